/**
 * What Ajv's full pass (`allErrors`) would list for a value, counted without Ajv: for the entries the
 * structure check only counts (past both of its bounds, src/validation/structure.ts), where Ajv's error
 * objects were most of the cost and all of the garbage (100,000 channels of a bad name: about 19 MiB a
 * review, each scavenge of it copying the parsed review again). Only schemas of the keywords below
 * are counted here; for any other `errorCounter` gives undefined and Ajv counts.
 * test/validation/count-errors.test.ts holds the counts to Ajv's on generated schemas and values.
 */

/** What was found in the values counted so far. */
export interface Tally {
  /** Errors other than unknown fields. */
  problems: number;
  /** Whether one of them is a type error. */
  type: boolean;
  /** Unknown fields (`additionalProperties: false`). */
  unknown: number;
}

/** Adds to `tally` what the schema finds in `value`; allocates nothing. */
export type ErrorCounter = (value: unknown, tally: Tally) => void;

// Keywords that say nothing of a value (Ajv with `strict: false` ignores those it does not know, the
// `x-kubernetes-` ones; `default` is not applied: `useDefaults` is off).
const annotations = new Set(["title", "description", "default", "examples", "$comment"]);
const isAnnotation = (keyword: string) => annotations.has(keyword) || keyword.startsWith("x-kubernetes-");

// The keywords counted here, by the type they apply to; `enum` and `const` apply to any.
const keywordsOf: Record<string, ReadonlySet<string>> = {
  string: new Set(["minLength", "maxLength", "pattern"]),
  integer: new Set(["minimum", "maximum"]),
  number: new Set(["minimum", "maximum"]),
  boolean: new Set(),
  null: new Set(),
  object: new Set(["properties", "required", "additionalProperties"]),
  array: new Set(["items", "minItems", "maxItems"]),
};

const counters = new WeakMap<object, { counter: ErrorCounter | undefined }>();

/** The counter of a schema, or undefined when it uses a keyword not counted here. */
export function errorCounter(schema: object): ErrorCounter | undefined {
  let known = counters.get(schema);
  if (!known) {
    known = { counter: compile(schema) };
    counters.set(schema, known);
  }
  return known.counter;
}

const valid: ErrorCounter = () => {};

function compile(schema: unknown): ErrorCounter | undefined {
  if (schema === true) return valid;
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return undefined;
  const s = schema as Record<string, unknown>;
  const { type } = s;
  const own = typeof type === "string" ? keywordsOf[type] : undefined;
  for (const keyword of Object.keys(s)) {
    if (isAnnotation(keyword) || keyword === "enum" || keyword === "const") continue;
    if (keyword === "type" ? own === undefined : !own?.has(keyword)) return undefined;
  }
  const allowed = allowedValues(s);
  if (allowed === null) return undefined;
  const byType = type === undefined ? valid : typeCounter(type as string, s);
  if (byType === undefined) return undefined;
  if (allowed === undefined) return byType;
  // Ajv checks `enum` and `const` whatever the value's type, each one error (`===`, for primitives).
  return (value, tally) => {
    for (const values of allowed) if (!values.includes(value)) tally.problems++;
    byType(value, tally);
  };
}

/** `enum`'s and `const`'s values (null when one is not a primitive: Ajv compares those deeply). */
function allowedValues(s: Record<string, unknown>): unknown[][] | undefined | null {
  const lists: unknown[][] = [];
  if ("enum" in s) {
    if (!Array.isArray(s.enum)) return null;
    lists.push(s.enum);
  }
  if ("const" in s) lists.push([s.const]);
  if (lists.some((list) => list.some((value) => value !== null && typeof value === "object"))) return null;
  return lists.length > 0 ? lists : undefined;
}

function typeCounter(type: string, s: Record<string, unknown>): ErrorCounter | undefined {
  switch (type) {
    case "string":
      return stringCounter(s);
    case "integer":
    case "number":
      return numberCounter(type, s);
    case "boolean":
      return (value, tally) => {
        if (typeof value !== "boolean") wrongType(tally);
      };
    case "null":
      return (value, tally) => {
        if (value !== null) wrongType(tally);
      };
    case "object":
      return objectCounter(s);
    case "array":
      return arrayCounter(s);
    default:
      return undefined;
  }
}

function wrongType(tally: Tally): void {
  tally.problems++;
  tally.type = true;
}

const limit = (value: unknown): number | undefined | null =>
  value === undefined ? undefined : typeof value === "number" ? value : null;

function stringCounter(s: Record<string, unknown>): ErrorCounter | undefined {
  const min = limit(s.minLength);
  const max = limit(s.maxLength);
  if (min === null || max === null || (s.pattern !== undefined && typeof s.pattern !== "string"))
    return undefined;
  // As Ajv makes it (`unicodeRegExp` on by default): no `g` or `y`, so `test` keeps no state.
  const pattern = typeof s.pattern === "string" ? new RegExp(s.pattern, "u") : undefined;
  // The last short string tested and whether it matched: a list's entries often repeat a value (100,000
  // channels of one version: the version's pattern was a third of the count).
  let last: string | undefined;
  let lastMatched = false;
  return (value, tally) => {
    if (typeof value !== "string") return wrongType(tally);
    // Lengths in code points, as Ajv's `ucs2length`: at most the UTF-16 length, at least half of it.
    if (max !== undefined && value.length > max && codePoints(value) > max) tally.problems++;
    if (min !== undefined && value.length < 2 * min && codePoints(value) < min) tally.problems++;
    if (pattern === undefined) return;
    if (value !== last) {
      lastMatched = pattern.test(value);
      // Only a short one is kept: the counter outlives the review.
      last = value.length <= 256 ? value : undefined;
    }
    if (!lastMatched) tally.problems++;
  };
}

function numberCounter(type: "integer" | "number", s: Record<string, unknown>): ErrorCounter | undefined {
  const min = limit(s.minimum);
  const max = limit(s.maximum);
  if (min === null || max === null) return undefined;
  const bounds = (value: number, tally: Tally) => {
    if (min !== undefined && (value < min || Number.isNaN(value))) tally.problems++;
    if (max !== undefined && (value > max || Number.isNaN(value))) tally.problems++;
  };
  // Ajv's type check of an integer stands apart from the bounds, which apply to any number; a number's
  // bounds are checked only on a number, and anything else is its one type error.
  if (type === "integer")
    return (value, tally) => {
      if (!(typeof value === "number" && !(value % 1) && !Number.isNaN(value))) wrongType(tally);
      if (typeof value === "number") bounds(value, tally);
    };
  return (value, tally) => {
    if (typeof value === "number") bounds(value, tally);
    else wrongType(tally);
  };
}

function objectCounter(s: Record<string, unknown>): ErrorCounter | undefined {
  const properties = s.properties ?? {};
  if (properties === null || typeof properties !== "object" || Array.isArray(properties)) return undefined;
  // Ajv leaves a property named __proto__ out of `properties` (and so counts it as unknown).
  if (Object.hasOwn(properties, "__proto__")) return undefined;
  const names: string[] = [];
  const counters: ErrorCounter[] = [];
  for (const [name, schema] of Object.entries(properties)) {
    const counter = compile(schema);
    if (!counter) return undefined;
    names.push(name);
    counters.push(counter);
  }
  const required = s.required ?? [];
  if (!Array.isArray(required) || !required.every((name) => typeof name === "string")) return undefined;
  const requiredNames = required as string[];
  // A few names compared one by one (as Ajv's code does), more looked up.
  const known = new Set(names);
  const isNamed =
    names.length > 8
      ? (key: string) => known.has(key)
      : (key: string) => {
          for (let i = 0; i < names.length; i++) if (names[i] === key) return true;
          return false;
        };
  const additional = s.additionalProperties;
  const others = additional === undefined || additional === false ? undefined : compile(additional);
  if (additional !== undefined && additional !== false && !others) return undefined;
  const checksOthers = additional === false || (others !== undefined && others !== valid);
  return (value, tally) => {
    if (!value || typeof value !== "object" || Array.isArray(value)) return wrongType(tally);
    // Read as Ajv's code reads them: `data[name]`, own or not, and `for…in`.
    const record = value as Record<string, unknown>;
    for (let i = 0; i < requiredNames.length; i++)
      if (record[requiredNames[i] as string] === undefined) tally.problems++;
    if (checksOthers)
      for (const key in record) {
        if (isNamed(key)) continue;
        if (others) others(record[key], tally);
        else tally.unknown++;
      }
    for (let i = 0; i < names.length; i++) {
      const field = record[names[i] as string];
      if (field !== undefined) (counters[i] as ErrorCounter)(field, tally);
    }
  };
}

function arrayCounter(s: Record<string, unknown>): ErrorCounter | undefined {
  const min = limit(s.minItems);
  const max = limit(s.maxItems);
  if (min === null || max === null) return undefined;
  const items = s.items === undefined ? valid : compile(s.items);
  if (!items) return undefined;
  return (value, tally) => {
    if (!Array.isArray(value)) return wrongType(tally);
    if (max !== undefined && value.length > max) tally.problems++;
    if (min !== undefined && value.length < min) tally.problems++;
    if (items !== valid) for (const item of value) items(item, tally);
  };
}

/** A string's length in code points, as Ajv's `ucs2length` counts it (a lone surrogate is one). */
function codePoints(text: string): number {
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    length++;
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      if ((text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
    }
  }
  return length;
}
