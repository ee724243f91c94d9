import { goQuote } from "../go-template/go-strings.js";
import { FieldPath } from "./field-path.js";
import { boundedJson, limits, truncate } from "./limits.js";

/**
 * The kinds of field error, named as apimachinery's field.ErrorType. `cause` is the StatusCause type
 * the API server reports; `wording` the text that precedes the value in the message.
 */
const errorTypes = {
  invalid: { cause: "FieldValueInvalid", wording: "Invalid value" },
  // field.TypeInvalid: a value of the wrong JSON type (or format), worded as an invalid one.
  typeInvalid: { cause: "FieldValueTypeInvalid", wording: "Invalid value" },
  required: { cause: "FieldValueRequired", wording: "Required value" },
  forbidden: { cause: "FieldValueForbidden", wording: "Forbidden" },
  notSupported: { cause: "FieldValueNotSupported", wording: "Unsupported value" },
  duplicate: { cause: "FieldValueDuplicate", wording: "Duplicate value" },
  notFound: { cause: "FieldValueNotFound", wording: "Not found" },
  tooMany: { cause: "FieldValueTooMany", wording: "Too many" },
  tooLong: { cause: "FieldValueTooLong", wording: "Too long" },
} as const;

export type FieldErrorType = keyof typeof errorTypes;

/** One problem with one field: what apimachinery calls a field.Error. */
export interface FieldError {
  type: FieldErrorType;
  /** Where: segments, rendered only where the error is shown (`formatField`). */
  field: FieldPath;
  /** The offending value, when the message should show it. */
  value?: unknown;
  /** The value already rendered as the API server renders it (Go's `%#v` of a map), shown instead. */
  shownValue?: string;
  detail?: string;
  /**
   * The stable id of the rule that found it (`module.release-name`), shown in denials and offline
   * findings, and the key for rule actions (deny, warn, off).
   */
  rule?: string;
  /**
   * Set on an error that stands for this many errors a check counted but did not build (a bounded
   * check's last error): the answer counts them among the rest and never shows it as a cause.
   */
  omitted?: number;
}

export type FieldErrorList = FieldError[];

/** The error that stands for `count` errors a check found but did not build. */
export function omittedErrors(count: number): FieldError {
  return { type: "tooMany", field: FieldPath.empty, detail: `... and ${count} more errors`, omitted: count };
}

const withValue = (type: FieldErrorType) => (path: FieldPath, value: unknown, detail?: string) =>
  ({ type, field: path, value, detail }) satisfies FieldError;
const withoutValue = (type: FieldErrorType) => (path: FieldPath, detail?: string) =>
  ({ type, field: path, detail }) satisfies FieldError;

/** Constructors in apimachinery's shape: field.Invalid(path, value, detail) and friends. */
export const fieldError = {
  invalid: withValue("invalid"),
  typeInvalid: withValue("typeInvalid"),
  /** field.Invalid with the value left out (apimachinery's omitValue): `Invalid value: <detail>`. */
  invalidOmitted: withoutValue("invalid"),
  duplicate: withValue("duplicate"),
  notFound: withValue("notFound"),
  required: withoutValue("required"),
  forbidden: withoutValue("forbidden"),
  tooLong: withoutValue("tooLong"),
  notSupported: (path: FieldPath, value: unknown, supported: readonly string[]): FieldError => ({
    type: "notSupported",
    field: path,
    value,
    detail: `supported values: ${listUpTo(supported, limits.messageChars)}`,
  }),
  tooMany: (path: FieldPath, actual: number, max: number): FieldError => ({
    type: "tooMany",
    field: path,
    value: actual,
    detail: `must have at most ${max} ${max === 1 ? "item" : "items"}`,
  }),
};

/** The quoted values, comma-separated, stopping once the text is longer than `max`. */
function listUpTo(values: readonly string[], max: number): string {
  let text = "";
  for (const [i, value] of values.entries()) {
    if (text.length > max) return `${text}, ... (${values.length - i} more)`;
    text += `${i > 0 ? ", " : ""}${goQuote(value.length > max ? `${value.slice(0, max)}...` : value)}`;
  }
  return text;
}

export function causeType(error: FieldError): string {
  return errorTypes[error.type].cause;
}

/**
 * The value as apimachinery prints it: strings quoted, numbers and booleans bare, objects as JSON; cut
 * at 200 characters (without serializing the rest) so that a huge value cannot bloat the denial.
 */
export function formatValue(value: unknown): string {
  if (value === undefined) return "null";
  // A string as Go's %q (control characters as \x01, not JSON's \u0001); anything compound as
  // json.Marshal writes it.
  if (typeof value === "string") {
    const max = limits.valueChars;
    const quoted = goQuote(value.length > max ? value.slice(0, max + 1) : value);
    return quoted.length > max ? `${quoted.slice(0, max)}...` : quoted;
  }
  return boundedJson(value, limits.valueChars);
}

/** The message body after the field path: `Invalid value: "Foo": must be ...`, at most 1 KiB. */
export function describeError(error: FieldError): string {
  const head = errorTypes[error.type].wording;
  const shown =
    error.shownValue !== undefined
      ? `${head}: ${error.shownValue}`
      : "value" in error
        ? `${head}: ${formatValue(error.value)}`
        : head;
  const detail = error.detail === undefined ? "" : truncate(error.detail, limits.messageChars);
  return truncate(detail ? `${shown}: ${detail}` : shown, limits.messageChars);
}

/** The field path as shown, cut when a request chose a huge key. */
export function formatField(error: FieldError): string {
  return truncate(error.field.toString(), limits.fieldChars);
}

/** The full line, as `kubectl` shows it: `spec.helm.releaseName: Invalid value: "Foo": ...`. */
export function formatFieldError(error: FieldError): string {
  return error.field.toString() !== ""
    ? `${formatField(error)}: ${describeError(error)}`
    : describeError(error);
}

/** The same errors, each tagged with the id of the rule that found them. */
export function byRule(rule: string, errors: FieldErrorList): FieldErrorList {
  // Object.assign rather than a spread: V8 copies a spread of these unions key by key (about 5× slower).
  return errors.map((error) => Object.assign({}, error, { rule }));
}

/**
 * A StatusCause's message: apimachinery's wording first, then the rule that found it, e.g.
 * `Invalid value: "Foo": must be ... (rule module.release-name)`. The API server passes causes through
 * as they are (a field of our own would be dropped), and kubectl prints `field: message` per cause.
 */
export function causeMessage(error: FieldError): string {
  return error.rule ? `${describeError(error)} (rule ${error.rule})` : describeError(error);
}
