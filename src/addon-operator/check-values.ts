import {
  type CelOptions,
  DeckhouseValidationError,
  runDeckhouseValidations,
} from "./deckhouse-validations.js";
import { closeSchema, type Schema } from "./schema.js";
import { type Violation, validateValues } from "./validate.js";
import { effectiveValues } from "./values.js";

export interface CheckOptions extends Partial<CelOptions> {
  /** The stored section before an UPDATE, as stored (without defaults): `oldSelf`. */
  oldValues?: unknown;
}

/**
 * addon-operator's verdict on one values section (`validateObject` in pkg/values/validation/schemas.go):
 * the schema closed, the user's values laid over the schema's defaults, `x-deckhouse-validations` first
 * (when one fails or cannot run, only that is reported), then the schema keywords. With `rules:
 * "transition"` only the x-deckhouse-validations that read oldSelf run; the default runs the others and the
 * schema keywords.
 */
export function checkValues(
  values: unknown,
  schema: Schema,
  rootName: string,
  options: CheckOptions = {},
): Violation[] {
  const closed = closeSchema(schema);
  const effective = effectiveValues(values, closed);
  const rules = options.rules ?? "state";
  try {
    const celViolations = runDeckhouseValidations(effective, options.oldValues, closed, rootName, { rules });
    if (celViolations.length > 0 || rules === "transition") return celViolations;
  } catch (error) {
    if (!(error instanceof DeckhouseValidationError)) throw error;
    return [{ kind: "forbidden", path: [], message: `addon-operator refuses the values: ${error.message}` }];
  }
  return validateValues(effective, closed, rootName);
}
