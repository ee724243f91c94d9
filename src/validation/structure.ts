import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import {
  type CountedEntries,
  type CountedErrors,
  type FieldError,
  type FieldErrorList,
  fieldError,
  omittedErrors,
} from "../admission/field-errors.js";
import { bigintsAsNumbers } from "../base/exact-json.js";
import { FieldPath } from "../base/field-path.js";
import { limits } from "../base/limits.js";
import type { WorkBudget } from "../budget/work-budget.js";
import { goRequestUriError } from "../go/net-url/parse.js";
import { goQuote } from "../go/strconv/go-strings.js";
import { LruCache } from "../memo/lru-cache.js";
import { type ErrorCounter, errorCounter, type Tally } from "./count-errors.js";
import type { ShapeProblem } from "./readable.js";
import { type Cut, cutView, pointerToken } from "./structure-view.js";

/**
 * Values of the wrong shape the field-scoped gate takes out of an object one by one; past this many the
 * rest are taken out as the one value that holds them all (a list of 300,000 wrong-typed items goes
 * whole), so that the shape stays small and the gate's passes few.
 */
const maxShapeProblems = 1000;

/** The outcome of checking an object against its kind's generated JSON Schema. */
export interface StructureVerdict {
  /**
   * At most `limits.causes` errors, the answer's bound; when there were more, the last stands for the
   * rest (`omitted`), which are counted but never built.
   */
  errors: FieldError[];
  /** Fields the schema does not know: the API server prunes them silently, so we say so. */
  unknownFields: FieldPath[];
  /** Where each error is, for `readablePart`: the values a field-scoped gate keeps from the rules. */
  shape: ShapeProblem[];
}

/**
 * Checks objects against a kind's generated editor schema (types, formats, enums, bounds), so the rules
 * behind it can rely on the generated TypeScript types. In a cluster the API server has done this
 * already; the check matters for offline use and for CRDs other than ours.
 */
export function structureChecker(
  schema: object,
  /** Entries of a list or map beyond which the rest is checked one by one (tests make it small). */
  cutAt: number = maxShapeProblems,
): (object: unknown, budget: WorkBudget, changing?: boolean) => StructureVerdict {
  // Compiled on first use (tens of milliseconds each): `validate` on Modules alone never compiles the
  // other kinds' checkers, and a command starts sooner. `serve` compiles them all before it listens.
  let compiled: Checkers | undefined;
  const compile = () => {
    compiled ??= compileChecker(schema);
    return compiled;
  };
  uncompiled.add(compile);
  // One review checks the same object more than once (its rules, then on UPDATE the transition rules;
  // offline, the API server's schema layer and then the kind's own gate, two checkers of one schema):
  // the verdict of an object checked within a review is remembered for the rest of the review, by
  // compiled schema (`WorkBudget.memo`: not in a WeakMap keyed by the object). A copy still `changing` is never remembered: the
  // field-scoped gate checks one copy again after each change it makes to it (charged all the same).
  return (object, budget, changing = false) => {
    if (changing) return checkUncached(object, budget);
    const verdicts = budget.memo<object, StructureVerdict>(compiled ?? compile());
    const known = object !== null && typeof object === "object" ? verdicts.get(object) : undefined;
    if (known) return known;
    const verdict = checkUncached(object, budget);
    if (object !== null && typeof object === "object") verdicts.set(object, verdict);
    return verdict;
  };
  function checkUncached(given: unknown, budget: WorkBudget): StructureVerdict {
    const checkers = compiled ?? compile();
    // The first pass stops at the first error: a valid object costs one walk, and no list of errors.
    if (checkers.quick(given)) return { errors: [], unknownFields: [], shape: [] };
    // Ajv knows no bigint (an int64 beyond 2^53-1): checked again with them as numbers.
    const object = bigintsAsNumbers(given);
    if (object !== given && checkers.quick(object)) return { errors: [], unknownFields: [], shape: [] };
    const verdict: StructureVerdict = { errors: [], unknownFields: [], shape: [] };
    // Long lists and big maps are cut to the shape problems' bound for the full check (which lists
    // every error); what was cut is checked entry by entry, its errors counted and let go, so that
    // 300,000 wrong-typed items never become a list of 300,000 errors (the process died of it).
    const { view, cuts } = cutView(object, schema, cutAt);
    checkers.full(view);
    const found = checkers.full.errors ?? [];
    checkers.full.errors = null;
    // Only what an answer can show is built (paths, values, messages): 300,000 wrong-typed items once
    // built 300,000 field errors and, on UPDATE, four times over, which exhausted a 200 MiB heap.
    budget.charge(found.length, "checking the object against its schema");
    let omitted = 0;
    // Where each counted error lies (`CountedErrors`): those built past the bound, one by one; and for
    // each cut, the first entry counted and how many errors from it on (which entries hold them is
    // worked out again only when an UPDATE asks: recording 100,000 of them cost a CREATE 5 ms).
    const singles: FoundError[] = [];
    const countedIn = new Map<Cut, CountedFrom>();
    let counting: { cut: Cut; from: CountedFrom } | undefined;
    const countAt = (cut: Cut, i: number, problems: number) => {
      if (counting?.cut !== cut) {
        let from = countedIn.get(cut);
        if (!from) {
          from = { first: i, total: 0 };
          countedIn.set(cut, from);
        }
        counting = { cut, from };
      }
      counting.from.total += problems;
    };
    const tally: Tally = { problems: 0, type: false, unknown: 0 };
    // The problems past `maxShapeProblems`, as the one value that holds them all.
    let overflow: { pointer: string; type: boolean } | undefined;
    // The cut the overflow is known to hold whole.
    let coveredCut: Cut | undefined;
    for (const error of firstStringErrors(found, view)) take(error);
    for (const cut of cuts) {
      if (cut.schema === undefined) continue;
      const count = cut.list ? cut.list.items.length - cut.list.from : (cut.entries?.keys.length ?? 0);
      budget.charge(count, "checking the object against its schema");
      if (cut.schema === false) {
        for (const key of cut.entries?.keys ?? [])
          take({
            keyword: "additionalProperties",
            instancePath: cut.pointer,
            params: { additionalProperty: key },
          });
        continue;
      }
      const entry = checkers.of(cut.schema);
      const onlyStrings = stringsOnly(cut.schema);
      let counter: ErrorCounter | undefined | null = null;
      // Once the value that holds the problems past both bounds holds this whole list or map, the entries
      // counted without a check change nothing of it (their type problem is noted already).
      let covered = false;
      for (let i = 0; i < count; i++) {
        const key = cut.list ? undefined : (cut.entries?.keys[i] as string);
        const value = cut.list ? cut.list.items[cut.list.from + i] : cut.entries?.record[key as string];
        if (
          onlyStrings &&
          verdict.errors.length >= limits.causes &&
          verdict.shape.length >= maxShapeProblems
        ) {
          // Past both bounds, an entry of `{type: string}` is counted without a check: Ajv's one error
          // for a value that is no string, none for a string (a map of 100,000 wrong-typed labels
          // checked each twice cost about 60 ms).
          if (typeof value === "string") continue;
          budget.charge(1, "checking the object against its schema");
          omitted++;
          countAt(cut, i, 1);
          if (!covered) {
            countOverflow(cut, key, i, true);
            covered = overflow !== undefined && inside(cut.pointer, overflow.pointer);
          }
          continue;
        }
        // Past both bounds only the count and where they lie are kept: nothing is built for them.
        if (verdict.errors.length >= limits.causes && verdict.shape.length >= maxShapeProblems) {
          // Counted without Ajv where the schema allows (src/validation/count-errors.ts): the errors of
          // the full pass, none made. An entry with unknown fields while there is room for them is
          // Ajv's, which names them.
          if (counter === null) counter = entry.counter;
          if (counter) {
            tally.problems = 0;
            tally.type = false;
            tally.unknown = 0;
            counter(value, tally);
            if (tally.unknown === 0 || verdict.unknownFields.length >= limits.causes) {
              if (tally.problems === 0 && tally.unknown === 0) continue;
              budget.charge(tally.problems + tally.unknown, "checking the object against its schema");
              if (tally.problems === 0) continue;
              omitted += tally.problems;
              countAt(cut, i, tally.problems);
              countOverflow(cut, key, i, tally.type);
              continue;
            }
          }
          // Otherwise one pass that lists every error, none of them described (no message, no schema,
          // no value): the same errors as the full pass, and no quick pass first, which an entry that
          // fails paid twice.
          const counting = entry.counting;
          if (counting(value)) continue;
          const errors = counting.errors ?? [];
          counting.errors = null;
          budget.charge(errors.length, "checking the object against its schema");
          let problems = 0;
          let type = false;
          for (const error of errors) {
            if (error.keyword === "additionalProperties")
              take({ ...error, instancePath: `${entryPointer(cut, key, i)}${error.instancePath}` });
            else {
              problems++;
              type ||= error.keyword === "type";
            }
          }
          if (problems === 0) continue;
          omitted += problems;
          countAt(cut, i, problems);
          countOverflow(cut, key, i, type);
          continue;
        }
        if (entry.quick(value)) continue;
        entry.full(value);
        const errors = entry.full.errors ?? [];
        entry.full.errors = null;
        budget.charge(errors.length, "checking the object against its schema");
        for (const error of firstStringErrors(errors, value))
          take({ ...error, instancePath: `${entryPointer(cut, key, i)}${error.instancePath}` });
      }
    }
    if (overflow) {
      verdict.shape.push({
        tokens: segments(overflow.pointer),
        keyword: overflow.type ? "type" : "overflow",
      });
    }
    // The last error shown makes room for the count of the rest, as the answer's bound does.
    if (omitted > 0) {
      const last = verdict.errors.pop() as FieldError;
      const counted = countedErrors(object, last, singles, countedIn, (cut) =>
        checkers.of(cut.schema as object),
      );
      verdict.errors.push({ ...omittedErrors(omitted + 1), counted });
    }
    return verdict;

    /** The `i`th entry cut holds problems past both bounds: the one value that holds them all grows to it. */
    function countOverflow(cut: Cut, key: string | undefined, i: number, type: boolean): void {
      if (!overflow) overflow = { pointer: entryPointer(cut, key, i), type };
      else {
        // Once it holds the whole list or map, the entries' own pointers are never made. It only ever
        // grows (to a pointer that holds the last), so once it holds a cut it holds it for good: not
        // asked again for each of 99,000 entries (5 ms a review of 100,000 channels).
        if (coveredCut !== cut) {
          if (inside(cut.pointer, overflow.pointer)) coveredCut = cut;
          else overflow.pointer = commonPointer(overflow.pointer, entryPointer(cut, key, i));
        }
        overflow.type ||= type;
      }
    }

    function take(error: FoundError): void {
      if (error.keyword === "additionalProperties") {
        // Warnings: the API server keeps 4 KiB of them, fewer than this.
        if (verdict.unknownFields.length >= limits.causes) return;
        const path = fieldPath(object, error.instancePath).child(String(error.params.additionalProperty));
        verdict.unknownFields.push(path);
      } else {
        if (verdict.shape.length < maxShapeProblems) {
          verdict.shape.push({ tokens: segments(error.instancePath), keyword: error.keyword });
        } else {
          overflow = {
            pointer: overflow ? commonPointer(overflow.pointer, error.instancePath) : error.instancePath,
            type: overflow?.type === true || error.keyword === "type",
          };
        }
        if (verdict.errors.length >= limits.causes) {
          omitted++;
          singles.push(error);
        } else verdict.errors.push(toFieldError(object, error));
      }
    }
  }
}

/** Keywords that say nothing of a value: a schema of `type: string` and these checks strings only. */
const annotations = new Set(["type", "description", "title"]);

/** Whether a schema is `{type: "string"}` and annotations: a value is valid exactly when it is a string. */
function stringsOnly(schema: object): boolean {
  const { type } = schema as { type?: unknown };
  return type === "string" && Object.keys(schema).every((keyword) => annotations.has(keyword));
}

/** Where a cut's counting began (its `first` entry counted), and how many errors it counted from there. */
interface CountedFrom {
  first: number;
  total: number;
}

/**
 * The places of the errors a check counted: `last`, the built error the count took the place of; the
 * errors found past the bound one by one (`singles`); and the cut entries counted (`countedIn`), whose
 * errors are built again from their values when asked.
 */
function countedErrors(
  object: unknown,
  last: FieldError,
  singles: readonly FoundError[],
  countedIn: ReadonlyMap<Cut, CountedFrom>,
  checkersOf: (cut: Cut) => PartCheckers,
): CountedErrors {
  const entries: CountedEntries[] = [];
  for (const [cut, { first, total }] of countedIn) {
    const schema = cut.schema as object;
    const size = cut.list ? cut.list.items.length - cut.list.from : (cut.entries?.keys.length ?? 0);
    let problemsOf: ((value: unknown) => number) | undefined;
    const problems = (value: unknown) => {
      problemsOf ??= entryProblems(schema, checkersOf(cut));
      return problemsOf(value);
    };
    const keyAt = (i: number) => (cut.list ? cut.list.from + i : (cut.entries?.keys[i] as string));
    const valueAt = (key: number | string) =>
      cut.list ? cut.list.items[key as number] : cut.entries?.record[key as string];
    const placeOf = entryPlaces(cut);
    entries.push({
      container: fieldPath(object, cut.pointer),
      total,
      // Every entry from the first counted on was past both bounds: counted as the check counted it.
      countAt(key) {
        const i = placeOf(key);
        return i === undefined || i < first || i >= size ? 0 : problems(valueAt(key));
      },
      errorsAt: (key) => entryErrors(object, cut, key, valueAt(key), checkersOf(cut)),
      visitWhile(visit) {
        for (let i = first; i < size; i++) {
          const key = keyAt(i);
          const count = problems(valueAt(key));
          if (count > 0 && !visit(key, count)) return;
        }
      },
    });
  }
  // Built when an UPDATE asks for them (a CREATE's count is never placed).
  const built: FieldError[] = [last];
  const single = (k: number): FieldError => {
    built[k] ??= toFieldError(object, singles[k - 1] as FoundError);
    return built[k] as FieldError;
  };
  const fieldOf = (k: number): FieldPath =>
    built[k]?.field ?? errorField(object, singles[k - 1] as FoundError);
  return {
    singles: { size: singles.length + 1, field: fieldOf, build: single },
    entries,
  };
}

/** How many errors an entry past both bounds holds, counted as the check counts them (unknown fields are none). */
function entryProblems(schema: object, checkers: PartCheckers): (value: unknown) => number {
  if (stringsOnly(schema)) return (value) => (typeof value === "string" ? 0 : 1);
  const { counter } = checkers;
  if (counter) {
    const tally: Tally = { problems: 0, type: false, unknown: 0 };
    return (value) => {
      tally.problems = 0;
      tally.unknown = 0;
      counter(value, tally);
      return tally.problems;
    };
  }
  return (value) => {
    const { counting } = checkers;
    if (counting(value)) return 0;
    const errors = counting.errors ?? [];
    counting.errors = null;
    return errors.filter((error) => error.keyword !== "additionalProperties").length;
  };
}

/**
 * An entry's place among its cut's entries, by its index in the list or key in the map (a map's keys
 * searched for the first few asked, then indexed once).
 */
function entryPlaces(cut: Cut): (key: number | string) => number | undefined {
  if (cut.list) {
    const { from } = cut.list;
    return (key) => (typeof key === "number" && key >= from ? key - from : undefined);
  }
  const keys = cut.entries?.keys ?? [];
  let asked = 0;
  let indexed: Map<string, number> | undefined;
  return (key) => {
    if (typeof key !== "string") return undefined;
    if (!indexed && ++asked > 16) indexed = new Map(keys.map((name, i) => [name, i]));
    const i = indexed ? indexed.get(key) : keys.indexOf(key);
    return i === undefined || i < 0 ? undefined : i;
  };
}

/** An entry's errors as the full check builds them, at their fields in `object`. */
function entryErrors(
  object: unknown,
  cut: Cut,
  key: number | string,
  value: unknown,
  { full }: PartCheckers,
): FieldErrorList {
  if (full(value)) return [];
  const found = full.errors ?? [];
  full.errors = null;
  const pointer = `${cut.pointer}/${typeof key === "number" ? key : pointerToken(key)}`;
  const built: FieldErrorList = [];
  for (const error of firstStringErrors(found, value))
    if (error.keyword !== "additionalProperties")
      built.push(toFieldError(object, { ...error, instancePath: `${pointer}${error.instancePath}` }));
  return built;
}

/** The JSON Pointer of the `i`th entry cut (a map's: the one at `key`). */
function entryPointer(cut: Cut, key: string | undefined, i: number): string {
  return `${cut.pointer}/${key === undefined ? (cut.list?.from ?? 0) + i : pointerToken(key)}`;
}

/** What the checks say of one error. */
type FoundError = Pick<ErrorObject, "keyword" | "instancePath" | "params"> & {
  message?: string;
  /** The schema the keyword is in (the full pass is verbose): a type error reads its format. */
  parentSchema?: object;
};

/**
 * A schema's two checkers (the first error; every error), and those of its parts, made on demand. The
 * full checker is compiled the first time an object fails the quick one: a run of valid objects
 * (`validate` on a clean repository) never compiles it.
 */
interface Checkers {
  quick: ValidateFunction;
  full: ValidateFunction;
  of(part: object): PartCheckers;
}

/**
 * A part's checkers: the quick and full ones, and `counting` (compiled on first use), which lists every
 * error as the full one does but describes none: for the entries past both bounds, only counted.
 */
interface PartCheckers {
  quick: ValidateFunction;
  full: ValidateFunction;
  readonly counting: ValidateFunction;
  /** What counts the full pass's errors without Ajv, for a schema of the keywords it knows. */
  readonly counter: ErrorCounter | undefined;
}

const uncompiled = new Set<() => Checkers>();

/**
 * Compiles every checker made so far, the full ones too, for a server whose first review (valid or
 * not) should not wait for it.
 */
export function compileStructureCheckers(): void {
  for (const compile of uncompiled) {
    uncompiled.delete(compile);
    void compile().full;
  }
}

/**
 * Compiled checkers by schema text: `validate` checks an object against its kind's CRD schema and the
 * kind's webhook checks it against the same schema again (both generated from one source).
 */
const compiledSchemas = new LruCache<Checkers>({ bytes: 64 * 1024 * 1024, entries: 32 });

function compileChecker(schema: object): Checkers {
  const key = JSON.stringify(schema);
  // Ajv's generated code (two compilations: the quick pass and the full one) is reckoned at 16 bytes
  // per character of the schema it was compiled from.
  return compiledSchemas.getOrSet(
    key,
    () => compileUncached(schema),
    () => 16 * key.length,
  );
}

/**
 * Ajv's options for both checkers, chosen for start-up (a pre-commit run on one Module compiles both):
 * the schemas are the project's own, generated, and test/validation/structure-schemas.test.ts holds them
 * to the draft-07 meta-schema, so checking each against it again at every compile (`validateSchema`)
 * is left out; Ajv's code optimizer (`optimize`, a pass over the generated code that merges and drops
 * redundant statements) is too. Together they took the Module schema's two compilations from about
 * 175 to 85 ms of CPU; what the generated code accepts and reports is the same.
 */
export const checkerOptions = { strict: false, validateSchema: false, code: { optimize: false } } as const;

function compileUncached(schema: object): Checkers {
  const [quick, full] = [false, true].map((allErrors) => checkerAjv({ allErrors, verbose: allErrors })) as [
    Ajv,
    Ajv,
  ];
  let counting: Ajv | undefined;
  // A part (a list's items, a map's values) is compiled the first time an entry cut from one is checked.
  const parts = new WeakMap<object, PartCheckers>();
  let fullChecker: ValidateFunction | undefined;
  return {
    quick: quick.compile(schema),
    get full() {
      fullChecker ??= full.compile(schema);
      return fullChecker;
    },
    of(part) {
      let checkers = parts.get(part);
      if (!checkers) {
        let countingChecker: ValidateFunction | undefined;
        checkers = {
          quick: quick.compile(part),
          full: full.compile(part),
          get counting() {
            counting ??= checkerAjv({ allErrors: true, messages: false });
            countingChecker ??= counting.compile(part);
            return countingChecker;
          },
          get counter() {
            return errorCounter(part);
          },
        };
        parts.set(part, checkers);
      }
      return checkers;
    },
  };
}

function checkerAjv(options: { allErrors: boolean; verbose?: boolean; messages?: boolean }): Ajv {
  const ajv = new Ajv({ ...checkerOptions, ...options });
  addFormats.default(ajv);
  ajv.addFormat("uri", isRequestUri);
  return ajv;
}

/**
 * The API server's `format: uri`: Go's url.ParseRequestURI (kube-openapi strfmt's IsURI), which takes
 * an absolute path (`/x`) or anything with a scheme (`ftp://…`, `mailto:…`), nothing relative.
 * ajv-formats' RFC 3986 `uri` would refuse `/x`, which a CRD with `format: uri` accepts.
 */
const isRequestUri = (value: string): boolean => goRequestUriError(value) === undefined;

/**
 * kube-openapi checks a string's maxLength, then its minLength, then its pattern, and stops at the
 * first that fails (validate/validator.go, stringValidator): one error per string, as the API server
 * reports it. Ajv reports every keyword that fails.
 */
function firstStringErrors(found: readonly FoundError[], object: unknown): FoundError[] {
  const errors = found.filter((error) => !passesByFormat(error, object));
  const order = ["maxLength", "minLength", "pattern"];
  const first = new Map<string, number>();
  for (const error of errors) {
    const rank = order.indexOf(error.keyword);
    if (rank >= 0) first.set(error.instancePath, Math.min(rank, first.get(error.instancePath) ?? rank));
  }
  if (first.size === 0) return errors;
  return errors.filter((error) => {
    const rank = order.indexOf(error.keyword);
    return rank < 0 || first.get(error.instancePath) === rank;
  });
}

/**
 * kube-openapi's typeValidator lets a string or a list through where the schema names a format and a
 * non-numeric type: `link: []` under `type: string, format: uri` passes (and no format check applies to
 * a list). The API server stores it.
 */
function passesByFormat(error: FoundError, object: unknown): boolean {
  if (error.keyword !== "type") return false;
  const { format, type } = (error.parentSchema ?? {}) as { format?: unknown; type?: unknown };
  if (typeof format !== "string" || format === "" || type === "number" || type === "integer") return false;
  const value = valueAt(object, error.instancePath);
  return typeof value === "string" || Array.isArray(value);
}

/** The JSON type kube-openapi names for a value of the wrong type (an integral number is an integer). */
function jsonTypeName(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** The format kube-openapi infers from a decoded JSON value: int64, double, or none. */
function dataFormat(value: unknown): string {
  if (typeof value !== "number") return "";
  return Number.isInteger(value) ? "int64" : "float64";
}

/**
 * An error as the API server words it: kube-openapi's message (`<path> in body should match '<re>'`),
 * turned into a field error as apiextensions-apiserver's kubeOpenAPIResultToFieldErrors does
 * (pkg/apiserver/validation/validation.go): required, enum, maxLength, maxItems and type errors by
 * their own field error types, every other as an invalid value with kube-openapi's message.
 */
function toFieldError(object: unknown, error: FoundError): FieldError {
  // Every schema error follows from the value at its field alone (ratcheting spares it there unchanged).
  return Object.assign(schemaError(object, error), { ofValueAlone: true as const });
}

/** The field `toFieldError` names, without the rest of the error. */
function errorField(object: unknown, error: FoundError): FieldPath {
  const path = fieldPath(object, error.instancePath);
  if (error.keyword !== "required") return path;
  return path.child(String((error.params as Record<string, unknown>).missingProperty));
}

function schemaError(object: unknown, error: FoundError): FieldError {
  const path = fieldPath(object, error.instancePath);
  const value = valueAt(object, error.instancePath);
  const params = error.params as Record<string, unknown>;
  const inBody = `${path.toString()} in body`;
  switch (error.keyword) {
    case "required":
      return fieldError.required(path.child(String(params.missingProperty)));
    case "type": {
      // kube-openapi's typeValidator: a value that is neither a string nor a list, where the schema
      // names a format, is judged by its own format (an int64, a double, or none).
      const format = (error.parentSchema as { format?: unknown } | undefined)?.format;
      const byFormat =
        typeof format === "string" && format !== "" && typeof value !== "string" && !Array.isArray(value);
      const expected = byFormat ? format : params.type;
      const found = byFormat ? dataFormat(value) : jsonTypeName(value);
      return fieldError.typeInvalid(path, found, `${inBody} must be of type ${expected}: "${found}"`);
    }
    case "enum":
      return fieldError.notSupported(path, value, (params.allowedValues as unknown[]).map(String));
    case "const":
      return fieldError.notSupported(path, value, [String(params.allowedValue)]);
    case "minLength":
      return fieldError.invalid(path, value, `${inBody} should be at least ${params.limit} chars long`);
    case "maxLength":
      return fieldError.tooLong(path, `may not be more than ${params.limit} bytes`);
    case "pattern":
      return fieldError.invalid(path, value, `${inBody} should match '${params.pattern}'`);
    case "maxItems":
      return fieldError.tooMany(path, Array.isArray(value) ? value.length : 0, Number(params.limit));
    case "minItems":
      return fieldError.invalid(
        path,
        Array.isArray(value) ? value.length : 0,
        `${inBody} should have at least ${params.limit} items`,
      );
    case "maxProperties":
      return fieldError.tooMany(
        path,
        value !== null && typeof value === "object" ? Object.keys(value).length : 0,
        Number(params.limit),
      );
    case "minimum":
      return fieldError.invalid(path, value, `${inBody} should be greater than or equal to ${params.limit}`);
    case "maximum":
      return fieldError.invalid(path, value, `${inBody} should be less than or equal to ${params.limit}`);
    case "format":
      return fieldError.typeInvalid(
        path,
        value,
        `${inBody} must be of type ${params.format}: ${goQuote(String(value))}`,
      );
    default:
      return fieldError.invalid(path, value, error.message ?? error.keyword);
  }
}

/** Whether the value at JSON Pointer `pointer` is the one at `outer` or inside it. */
function inside(pointer: string, outer: string): boolean {
  return (
    pointer.startsWith(outer) && (pointer.length === outer.length || pointer.charCodeAt(outer.length) === 47)
  );
}

/** The longest JSON Pointer that is `a` or `b` or holds both: `/x/1000` and `/x/1001` give `/x`. */
function commonPointer(a: string, b: string): string {
  let same = 0;
  while (same < a.length && same < b.length && a[same] === b[same]) same++;
  if (same === a.length && (same === b.length || b[same] === "/")) return a;
  if (same === b.length && a[same] === "/") return b;
  return a.slice(0, Math.max(0, a.lastIndexOf("/", same - 1)));
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
