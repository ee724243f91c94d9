import { FieldPath, type PathStep } from "../base/field-path.js";
import { boundedJson, limits, truncate } from "../base/limits.js";
import { goQuote } from "../go/strconv/go-strings.js";
import type { RuleId } from "./rule-catalogue.js";

/**
 * The kinds of field error, named as apimachinery's field.ErrorType. `cause` is the StatusCause type
 * the API server reports; `wording` the text that precedes the value in the message.
 */
const errorTypes = {
  invalid: { cause: "FieldValueInvalid", wording: "Invalid value" },
  required: { cause: "FieldValueRequired", wording: "Required value" },
  forbidden: { cause: "FieldValueForbidden", wording: "Forbidden" },
  notSupported: { cause: "FieldValueNotSupported", wording: "Unsupported value" },
  duplicate: { cause: "FieldValueDuplicate", wording: "Duplicate value" },
  notFound: { cause: "FieldValueNotFound", wording: "Not found" },
  tooMany: { cause: "FieldValueTooMany", wording: "Too many" },
  tooLong: { cause: "FieldValueTooLong", wording: "Too long" },
  tooFew: { cause: "FieldValueTooFew", wording: "Too few" },
  tooShort: { cause: "FieldValueTooShort", wording: "Too short" },
  /** A value of the wrong JSON type (the API server's schema check): worded as `Invalid value`. */
  typeInvalid: { cause: "FieldValueTypeInvalid", wording: "Invalid value" },
  internal: { cause: "InternalError", wording: "Internal error" },
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
  rule?: RuleId;
  /**
   * Shown as the API server shows it, unbounded (its own errors echo whole values), rather than cut to
   * this project's bounds on what its webhook answers say.
   */
  verbatim?: boolean;
  /**
   * Set on an error that stands for this many errors a check counted but did not build (a bounded
   * check's last error): the answer counts them among the rest and never shows it as a cause.
   */
  omitted?: number;
  /**
   * The bounded list of one rule's errors for the items of one list that this error is part of
   * (`ListErrors`): one of its first `limits.listErrors` errors, or (`listSummary`) the one error that
   * counts the rest. Ratcheting compares the items, listed or counted, never the count's text.
   */
  list?: ItemErrors;
  listSummary?: true;
  /**
   * The error follows from the value at its field alone (a schema check's: type, format, bounds,
   * required fields): an update that left that value unchanged did not introduce it, so ratcheting
   * spares it without the old object's answer.
   */
  ofValueAlone?: true;
  /** With `omitted`: where each counted error lies, each one following from its value alone. */
  counted?: CountedErrors;
}

/**
 * Errors a check counted without building them (`omitted`), each placed: ratcheting spares those at
 * values an update left unchanged and builds only the others, so that an update keeping 150 wrong-typed
 * items is not denied for the count of them (session 14).
 */
export interface CountedErrors {
  /** Counted errors one by one (`size` of them): the `k`th one's field, and the error built on demand. */
  singles: { size: number; field(k: number): FieldPath; build(k: number): FieldError };
  /** Lists and maps whose entries hold counted errors. */
  entries: readonly CountedEntries[];
}

/** The entries of one list or map holding counted errors, the errors of each built on demand. */
export interface CountedEntries {
  /** The list or map. */
  container: FieldPath;
  /** How many errors its entries hold. */
  total: number;
  /** How many counted errors the entry at this index or key holds (none: 0). */
  countAt(key: number | string): number;
  /** The counted errors of the entry at this index or key, built, each at its own field. */
  errorsAt(key: number | string): FieldErrorList;
  /**
   * Visits each entry holding counted errors, in order, until `visit` says `false`: its index in the
   * list or key in the map, and how many errors it holds (worked out again: only an UPDATE that
   * changed the list or map asks).
   */
  visitWhile(visit: (key: number | string, count: number) => boolean): void;
}

export type FieldErrorList = FieldError[];

/** The errors of one list's items that one check found, past those it built. */
export interface ItemErrors {
  /** The list. */
  path: FieldPath;
  /** What the counted items are, as the summary says: `N more items are <what>`. */
  what: string;
  /** Where in an item its error lies: the steps after the item's index (`link`; none for the item itself). */
  leaf: readonly PathStep[];
  /** The errors counted and not built, built now (on UPDATE, for ratcheting). */
  unlisted(): FieldErrorList;
  /**
   * The counted items, when not built yet: each one's index in the list, and its error built on
   * demand; with `found`, each one's finding, when the check says an error's problem (type, detail
   * with its own field left out, value) follows from its finding alone (`ListErrors`' `byFinding`).
   */
  items?: {
    indexes: readonly number[];
    error(k: number): FieldError;
    found?(k: number): unknown;
    /** Each item's problem follows from the value at its leaf alone (`ListErrors`' `ofValueAlone`). */
    ofValueAlone?: true;
  };
}

/** The error that stands for `count` errors a check found but did not build. */
export function omittedErrors(count: number): FieldError {
  return { type: "tooMany", field: FieldPath.empty, detail: `... and ${count} more errors`, omitted: count };
}

/**
 * The one error that stands for the items of a list past the first `limits.listErrors` errors: a
 * million wrong items must not cost a million errors.
 */
export function moreItems(path: FieldPath, count: number, what: string): FieldError {
  return { type: "invalid", field: path, detail: `${count} more items are ${what}` };
}

/**
 * A check's errors for the items of one list, bounded: the first `limits.listErrors` built, the rest
 * counted in one error (`moreItems`) that can build them when ratcheting needs them. `add` records an
 * item's finding; `build` makes its error (only for the listed ones, unless an UPDATE asks for all).
 */
export class ListErrors<Found> {
  private readonly listed: FieldErrorList = [];
  private readonly unlistedAt: number[] = [];
  private readonly unlistedFound: Found[] = [];
  private readonly items: ItemErrors;
  private readonly ofValueAlone: boolean;

  /**
   * `byFinding`: `build`'s problem follows from the finding alone (the index only places it), so that
   * ratcheting pairs an unchanged item with the old object's by their findings, building neither error:
   * an UPDATE keeping 25,000 bad links built and compared 50,000 errors (290 ms). `ofValueAlone`: the
   * finding is the value at the item's leaf and the problem follows from it alone (a link's syntax, not
   * a name's uniqueness): an item whose leaf value the update left unchanged had the same problem, so
   * ratcheting spares it without judging the old object (25,000 kept bad links: 11 of 60 ms).
   */
  constructor(
    path: FieldPath,
    what: string,
    leaf: readonly PathStep[],
    private readonly build: (index: number, found: Found) => FieldError,
    { byFinding = false, ofValueAlone = false }: { byFinding?: boolean; ofValueAlone?: boolean } = {},
  ) {
    this.ofValueAlone = ofValueAlone;
    const error = (k: number) => this.tagged(this.unlistedAt[k] as number, this.unlistedFound[k] as Found);
    const found = (k: number): unknown => this.unlistedFound[k];
    this.items = {
      path,
      what,
      leaf,
      unlisted: () => this.unlistedAt.map((_, k) => error(k)),
      items: {
        indexes: this.unlistedAt,
        error,
        ...(byFinding && { found }),
        ...(ofValueAlone && { ofValueAlone: true as const }),
      },
    };
  }

  /** An item's finding: its error when it is among the listed (built now), else counted. */
  add(index: number, found: Found): FieldError | undefined {
    if (this.listed.length < limits.listErrors) {
      const error = this.tagged(index, found);
      this.listed.push(error);
      return error;
    }
    this.unlistedAt.push(index);
    this.unlistedFound.push(found);
    return undefined;
  }

  get count(): number {
    return this.listed.length + this.unlistedAt.length;
  }

  /** The listed errors, and the one counting the rest when there are more. */
  errors(): FieldErrorList {
    return [...this.listed, ...this.summary()];
  }

  /** The error counting the items past the listed ones, when there are any. */
  summary(): FieldErrorList {
    const more = this.unlistedAt.length;
    return more === 0 ? [] : [summaryOf(this.items, more, this.listed[0]?.rule)];
  }

  private tagged(index: number, found: Found): FieldError {
    const error = Object.assign(this.build(index, found), { list: this.items });
    return this.ofValueAlone ? Object.assign(error, { ofValueAlone: true as const }) : error;
  }
}

/** The error counting `count` items of `items` beyond those listed, with `rule`'s id. */
export function summaryOf(items: ItemErrors, count: number, rule?: RuleId): FieldError {
  return Object.assign(moreItems(items.path, count, items.what), {
    list: items,
    listSummary: true as const,
    ...(rule ? { rule } : {}),
  });
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

/**
 * Each error's compound value as shown, rendered once per error: a denial shows each cause in its
 * message and as a cause, and listing a 100,000-key map's keys costs 15-25 ms each time (V8 sorts a
 * dictionary's keys): 41 ms of a 1.71 MiB review, 27 once. An error is never changed once made (a
 * changed field makes a new one), nor the object it names.
 */
const shownValues = new WeakMap<FieldError, string>();

function shownValueOf(error: FieldError): string {
  const { value } = error;
  if (value === null || typeof value !== "object") return formatValue(value);
  let shown = shownValues.get(error);
  if (shown === undefined) {
    shown = formatValue(value);
    shownValues.set(error, shown);
  }
  return shown;
}

/** The message body after the field path: `Invalid value: "Foo": must be ...`, at most 1 KiB. */
export function describeError(error: FieldError): string {
  if (error.verbatim) return goErrorBody(error);
  const head = errorTypes[error.type].wording;
  const shown =
    error.shownValue !== undefined
      ? `${head}: ${error.shownValue}`
      : "value" in error
        ? `${head}: ${shownValueOf(error)}`
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

/** The same errors, each tagged with the id of the rule that found them (a declared id: `RuleId`). */
export function byRule(rule: RuleId, errors: FieldErrorList): FieldErrorList {
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

/**
 * apimachinery's field.Error.ErrorBody, exactly: the wording, the value as Go prints it (`%q` for a
 * string, `%v` for a number or boolean, JSON otherwise; none for required, forbidden, too long,
 * internal, or a value omitted), then the detail. Used for the errors the API server itself produces,
 * which it never cuts.
 */
export function goErrorBody(error: FieldError): string {
  const head = errorTypes[error.type].wording;
  const withoutValue =
    error.type === "required" ||
    error.type === "forbidden" ||
    error.type === "tooLong" ||
    error.type === "tooShort" ||
    error.type === "internal" ||
    !("value" in error);
  const shown = withoutValue
    ? head
    : error.shownValue !== undefined
      ? `${head}: ${error.shownValue}`
      : `${head}: ${goValue(error.value)}`;
  return error.detail ? `${shown}: ${error.detail}` : shown;
}

/** A bad value as apimachinery prints it: Go's `%q`, `%v`, or its JSON. */
export function goValue(value: unknown): string {
  if (typeof value === "string") return goQuote(value);
  // A number beyond 2^53-1 is a float64 (an int64 beyond it is a bigint: src/base/exact-json.ts).
  if (typeof value === "number") return Number.isSafeInteger(value) ? String(value) : goFloat(value);
  if (typeof value === "bigint" || typeof value === "boolean") return String(value);
  return goJson(value);
}

/** Go's `%v` of a float64: the shortest digits, in exponent form when the exponent is below -4 or 6 and up. */
export function goFloat(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (!Number.isFinite(value)) return value > 0 ? "+Inf" : "-Inf";
  if (value === 0) return Object.is(value, -0) ? "-0" : "0";
  const exponent = Math.floor(Math.log10(Math.abs(value)));
  const [mantissa = "", power = "0"] = value.toExponential().split("e");
  // %v is %g with the shortest precision, which switches to the exponent form at 6.
  if (exponent < -4 || exponent >= 6) {
    const sign = power.startsWith("-") ? "-" : "+";
    const digits = power.replace(/^[-+]/, "");
    return `${mantissa}e${sign}${digits.length < 2 ? `0${digits}` : digits}`;
  }
  return String(value);
}

/** Go's encoding/json of a decoded value: keys sorted, `<`, `>` and `&` escaped as Go escapes them. */
export function goJson(value: unknown): string {
  if (value === undefined || value === null) return "null";
  if (typeof value === "string") return goJsonString(value);
  if (typeof value === "number") return goJsonNumber(value);
  if (typeof value === "bigint" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return `[${value.map(goJson).join(",")}]`;
  if (value instanceof Map) return goJson(Object.fromEntries([...value].map(([k, v]) => [String(k), v])));
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  return `{${keys.map((key) => `${goJsonString(key)}:${goJson(record[key])}`).join(",")}}`;
}

function goJsonString(text: string): string {
  return JSON.stringify(text)
    .replaceAll("<", "\\u003c")
    .replaceAll(">", "\\u003e")
    .replaceAll("&", "\\u0026")
    .replaceAll("\u2028", "\\u2028")
    .replaceAll("\u2029", "\\u2029");
}

/** encoding/json's float64: integers plainly, exponent form below 1e-6 or from 1e21 up. */
function goJsonNumber(value: number): string {
  if (Number.isInteger(value) && Math.abs(value) < 1e21) return String(value);
  const abs = Math.abs(value);
  // JavaScript's exponent form is Go's there (`1e-7`, `1.5e+21`); in between both print plainly.
  return abs !== 0 && (abs < 1e-6 || abs >= 1e21) ? value.toExponential() : String(value);
}

/**
 * The errors a denial shows: at most `limits.causes`, the last place kept for a cause saying how many
 * more there are (`more`, 0 when all are shown).
 */
export function boundErrors(errors: FieldErrorList): { shown: FieldErrorList; more: number } {
  // A bounded check's stand-in for the errors it counted without building them is counted, not shown.
  let uncounted = 0;
  let built = errors;
  if (errors.some((error) => error.omitted !== undefined)) {
    built = errors.filter((error) => error.omitted === undefined);
    for (const error of errors) uncounted += error.omitted ?? 0;
  }
  if (built.length <= limits.causes && uncounted === 0) return { shown: built, more: 0 };
  const shown = built.slice(0, limits.causes - 1);
  return { shown, more: built.length - shown.length + uncounted };
}
