import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import { type FieldError, fieldError } from "../admission/field-errors.js";
import { FieldPath } from "../admission/field-path.js";
import { RecentResults } from "../memo/recent-results.js";
import type { ShapeProblem } from "./readable.js";

/** The outcome of checking an object against its kind's generated JSON Schema. */
export interface StructureVerdict {
  errors: FieldError[];
  /** Fields the schema does not know: the API server prunes them silently, so we say so. */
  unknownFields: string[];
  /** Where each error is, for `readablePart`: the values a field-scoped gate keeps from the rules. */
  shape: ShapeProblem[];
}

/**
 * Checks objects against a kind's generated editor schema (types, formats, enums, bounds), so the rules
 * behind it can rely on the generated TypeScript types. In a cluster the API server has done this
 * already; the check matters for offline use and for CRDs other than ours.
 */
export function structureChecker(schema: object): (object: unknown) => StructureVerdict {
  // Compiled on first use (tens of milliseconds each): `validate` on Modules alone never compiles the
  // other kinds' checkers, and a command starts sooner. `serve` compiles them all before it listens.
  let compiled: ValidateFunction | undefined;
  const compile = () => {
    compiled ??= compileChecker(schema);
    return compiled;
  };
  uncompiled.add(compile);
  return (object) => {
    const check = compiled ?? compile();
    if (check(object)) return { errors: [], unknownFields: [], shape: [] };
    const verdict: StructureVerdict = { errors: [], unknownFields: [], shape: [] };
    for (const error of check.errors ?? []) {
      if (error.keyword === "additionalProperties") {
        const path = fieldPath(object, error.instancePath).child(String(error.params.additionalProperty));
        verdict.unknownFields.push(path.toString());
      } else {
        verdict.errors.push(toFieldError(object, error));
        verdict.shape.push({ tokens: segments(error.instancePath), keyword: error.keyword });
      }
    }
    return verdict;
  };
}

const uncompiled = new Set<() => unknown>();

/** Compiles every checker made so far, for a server whose first review should not wait for it. */
export function compileStructureCheckers(): void {
  for (const compile of uncompiled) {
    uncompiled.delete(compile);
    compile();
  }
}

/**
 * Compiled checkers by schema text: `validate` checks an object against its kind's CRD schema and the
 * kind's webhook checks it against the same schema again (both generated from one source).
 */
const compiledSchemas = new RecentResults<ValidateFunction>(32);

function compileChecker(schema: object): ValidateFunction {
  return compiledSchemas.get(JSON.stringify(schema), () => compileUncached(schema));
}

function compileUncached(schema: object): ValidateFunction {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats.default(ajv);
  ajv.addFormat("uri", isRequestUri);
  return ajv.compile(schema);
}

/**
 * The API server's `format: uri`: Go's url.ParseRequestURI, which takes an absolute path (`/x`) or
 * anything with a scheme (`ftp://…`, `mailto:…`), but nothing relative and no control characters.
 * ajv-formats' RFC 3986 `uri` refuses `/x`, which a CRD with `format: uri` accepts.
 */
function isRequestUri(value: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: Go refuses exactly these characters.
  if (value === "" || /[\x00-\x1f\x7f]/.test(value)) return false;
  return value.startsWith("/") || /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(value);
}

function toFieldError(object: unknown, error: ErrorObject): FieldError {
  const path = fieldPath(object, error.instancePath);
  const value = valueAt(object, error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "required":
      return fieldError.required(path.child(String(params.missingProperty)));
    case "type":
      return fieldError.invalid(path, value, `must be of type ${params.type}`);
    case "enum":
      return fieldError.notSupported(path, value, (params.allowedValues as unknown[]).map(String));
    case "const":
      return fieldError.notSupported(path, value, [String(params.allowedValue)]);
    case "minLength":
      return params.limit === 1 && value === ""
        ? fieldError.required(path)
        : fieldError.invalid(path, value, `must be at least ${params.limit} characters`);
    case "maxLength":
      return fieldError.invalid(path, value, `must be no more than ${params.limit} characters`);
    case "maxItems":
      return fieldError.tooMany(path, Array.isArray(value) ? value.length : 0, Number(params.limit));
    case "minimum":
      return fieldError.invalid(path, value, `must be greater than or equal to ${params.limit}`);
    case "format":
      return fieldError.invalid(path, value, `must be a valid ${params.format}`);
    default:
      return fieldError.invalid(path, value, error.message ?? error.keyword);
  }
}

function segments(instancePath: string): string[] {
  return instancePath === ""
    ? []
    : instancePath
        .slice(1)
        .split("/")
        .map((token) => token.replaceAll("~1", "/").replaceAll("~0", "~"));
}

/** `/config/0/alias` → `config[0].alias`: numeric tokens are indexes where the value is a list. */
function fieldPath(object: unknown, instancePath: string): FieldPath {
  let path = FieldPath.root("");
  let node = object;
  for (const token of segments(instancePath)) {
    path = Array.isArray(node) ? path.index(Number(token)) : path.child(token);
    node = (node as Record<string, unknown> | undefined)?.[token];
  }
  return path;
}

function valueAt(object: unknown, instancePath: string): unknown {
  let node = object;
  for (const token of segments(instancePath)) node = (node as Record<string, unknown> | undefined)?.[token];
  return node;
}
