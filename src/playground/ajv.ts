/**
 * ajv in the page: the validators were compiled at build time (ajv's standalone code, made by
 * scripts/build-playground.ts with the options src/validation/structure.ts compiles with), so the page
 * needs no code generation at run time and runs under a Content-Security-Policy without `unsafe-eval`.
 * `compile` looks a schema up by its JSON text; a schema not compiled ahead is an error, never a
 * silent pass.
 */

import { validators } from "virtual:playground-validators";
import type { ValidateFunction } from "ajv";
import { validatorKey } from "./validator-key.js";

const table = validators as Record<string, ValidateFunction>;

export class Ajv {
  private readonly allErrors: boolean;

  constructor(options: { allErrors?: boolean } = {}) {
    this.allErrors = options.allErrors === true;
  }

  addFormat(): this {
    return this;
  }

  compile(schema: object): ValidateFunction {
    const validate = table[validatorKey(this.allErrors, JSON.stringify(schema))];
    if (!validate) throw new Error("the playground has no validator compiled for this schema: rebuild it");
    return validate;
  }
}
