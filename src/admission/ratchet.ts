import { isDeepStrictEqual } from "node:util";
import { FieldPath, type PathStep, sameStep } from "../base/field-path.js";
import { limits } from "../base/limits.js";
import { WorkBudgetExceeded } from "../budget/work-budget.js";
import {
  childSchema,
  jsonEqual,
  ListIndexes,
  mapListPairs,
  sameJson,
  sameValue,
} from "../schema/correlation.js";
import type { JsonSchema } from "../schema/schema-source.js";
import {
  type CountedErrors,
  type FieldError,
  type FieldErrorList,
  formatFieldError,
  type ItemErrors,
  omittedErrors,
  summaryOf,
} from "./field-errors.js";
import type { Validator, Verdict } from "./resource-kind.js";
import type { AdmissionRequest } from "./review.js";
import type { ReviewContext } from "./review-context.js";
import { fitWarning, type Warning } from "./warning.js";

/**
 * Whether two errors are the same problem for ratcheting: where, what kind, why, and the offending
 * value. A changed invalid value is a new problem, as in the API server's CRD validation ratcheting
 * (KEP-4008), which spares only values the update left unchanged. A detail that names the error's own
 * field (apiextensions' `spec.channels[0].channel in body should match ...`) is compared with that
 * field left out: an item a reorder moved keeps its problem at another index.
 */
function sameProblem(error: FieldError, other: FieldError): boolean {
  return (
    error.type === other.type &&
    ownDetail(error) === ownDetail(other) &&
    isDeepStrictEqual(offendingValue(error), offendingValue(other))
  );
}

/** An error's detail with its own field path taken out. */
function ownDetail(error: FieldError): string {
  const detail = error.detail ?? "";
  const field = error.field.toString();
  return field === "" ? detail : detail.replaceAll(field, "\u0000");
}

/** The value an error names; none and undefined alike. */
const offendingValue = (error: FieldError): unknown => ("value" in error ? error.value : null) ?? null;

/**
 * The value at a field path, or at the deepest part of it that exists as such (a path into a YAML
 * string, or to a missing field, ends at its nearest container).
 */
export function valueAt(object: unknown, field: FieldPath): unknown {
  let value = object;
  for (const step of field.segments) {
    if (value === null || typeof value !== "object" || !Object.hasOwn(value, step)) return value;
    value = (value as Record<string, unknown>)[step];
  }
  return value;
}

/** Whether an update left the value at a field path (or its nearest existing container) unchanged. */
export function unchangedAt(object: unknown, oldObject: unknown, field: FieldPath): boolean {
  return isDeepStrictEqual(valueAt(object, field), valueAt(oldObject, field));
}

/**
 * The errors of the new object split into those the update introduced and those it did not: an error
 * is old when the old object had the same one (type, detail, offending value) at the same value, the
 * old item a list item corresponds to (`schema`'s list types: map lists by their keys, as the API
 * server correlates them), and the update left that value unchanged, as KEP-4008 spares only
 * unchanged values.
 */
export function splitByOld(
  errors: FieldErrorList,
  oldErrors: FieldErrorList | (() => FieldErrorList),
  object: unknown,
  oldObject: unknown,
  schema?: JsonSchema,
  lists: ListIndexes = new ListIndexes(searchedItems),
): { introduced: FieldErrorList; preexisting: FieldErrorList } {
  return splitLocated(errors, locate(errors, object, oldObject, schema, lists), oldErrors);
}

/** Where each error's value stood in the old object (`whereInOld`), in the errors' order. */
function locate(
  errors: FieldErrorList,
  object: unknown,
  oldObject: unknown,
  schema: JsonSchema | undefined,
  lists: ListIndexes,
  introduced?: ReadonlySet<FieldError>,
): (OldPlace | undefined)[] {
  // Where the value stood in the old object: a list reordered around an item moved it. Errors known
  // to be introduced already are not looked for.
  return errors.map((error) =>
    introduced?.has(error) ? undefined : whereInOld(object, oldObject, error.field, schema, lists),
  );
}

/** `splitByOld` of errors already located in the old object. */
function splitLocated(
  errors: FieldErrorList,
  located: readonly (OldPlace | undefined)[],
  oldErrors: FieldErrorList | (() => FieldErrorList),
): { introduced: FieldErrorList; preexisting: FieldErrorList } {
  // A multiset: each problem the old object had spares one occurrence in the new one. Problems are
  // looked up by field first: an object has few errors, and the full comparison runs only within one.
  // Built on the first error at an unchanged value (an error at a changed value is new whatever the old had).
  let spare: Map<string, FieldError[]> | undefined;
  const spareAt = (field: FieldPath) => {
    if (!spare) {
      spare = new Map();
      for (const error of typeof oldErrors === "function" ? oldErrors() : oldErrors) {
        const same = spare.get(error.field.toString());
        if (same) same.push(error);
        else spare.set(error.field.toString(), [error]);
      }
    }
    return spare.get(field.toString());
  };
  const introduced: FieldErrorList = [];
  const preexisting: FieldErrorList = [];
  errors.forEach((error, i) => {
    const old = located[i];
    // The same value gives the same error (a schema check's): nothing to compare it with.
    if (old?.unchanged && error.ofValueAlone) {
      preexisting.push(error);
      return;
    }
    const candidates = old?.unchanged ? spareAt(old.field) : undefined;
    const match = candidates?.findIndex((candidate) => sameProblem(error, candidate)) ?? -1;
    if (match >= 0) {
      candidates?.splice(match, 1);
      preexisting.push(error);
    } else {
      introduced.push(error);
    }
  });
  return { introduced, preexisting };
}

/** Lists (but map lists) longer than this are not searched for a moved item (an index stays an index). */
const searchedItems = 1000;

/**
 * The field an error names, with each list index along it changed to the index of the corresponding
 * old item (`oldIndexOf`: by keys in a map list, by value in any other), and whether the value there
 * (or at the nearest container both objects have) is unchanged; undefined when a map list's item is
 * new. An UPDATE that only reorders a list (Kyma's spec.resources or spec.channels, map lists keyed by
 * name and channel) leaves each item as it was.
 */
function whereInOld(
  object: unknown,
  oldObject: unknown,
  field: FieldPath,
  schema: JsonSchema | undefined,
  lists: ListIndexes,
): OldPlace | undefined {
  const walked = walk(startOf(object, oldObject, schema), field.steps, lists);
  if (!walked) return undefined;
  return {
    field: walked.moved ? FieldPath.empty.along(walked.steps) : field,
    unchanged: sameValue(walked.now, walked.before, walked.at),
  };
}

/** Where an error's field stood in the old object, and whether the update left the value there unchanged. */
interface OldPlace {
  field: FieldPath;
  unchanged: boolean;
}

/** Where a walk along a field path stands in both objects (`whereInOld`), to go on from. */
interface Walked {
  now: unknown;
  before: unknown;
  at: JsonSchema | undefined;
  moved: boolean;
  reached: boolean;
  /** The steps taken, with each index as the old item's. */
  steps: PathStep[];
}

const startOf = (object: unknown, oldObject: unknown, schema: JsonSchema | undefined): Walked => ({
  now: object,
  before: oldObject,
  at: schema,
  moved: false,
  reached: true,
  steps: [],
});

/** `from`, walked on along `steps` (a new state; `from` is kept); undefined when a map list's item is new. */
function walk(from: Walked, steps: readonly PathStep[], lists: ListIndexes): Walked | undefined {
  let { now, before, at, moved, reached } = from;
  const taken = [...from.steps];
  for (const step of steps) {
    if (!reached) {
      taken.push(step);
      continue;
    }
    let oldStep = step;
    if (step.as === "index" && Array.isArray(now) && Array.isArray(before)) {
      const index = lists.oldIndexOf(now, before, step.index, at);
      if (index === undefined) return undefined;
      if (index !== step.index) {
        moved = true;
        oldStep = { as: "index", index };
      }
    }
    const name = step.as === "index" ? step.index : step.name;
    const oldName = oldStep.as === "index" ? oldStep.index : oldStep.name;
    if (hasMember(now, name) && hasMember(before, oldName)) {
      now = (now as Record<string | number, unknown>)[name];
      before = (before as Record<string | number, unknown>)[oldName];
      at = childSchema(at, name);
    } else {
      reached = false;
    }
    taken.push(oldStep);
  }
  return { now, before, at, moved, reached, steps: taken };
}

/**
 * Which of a bounded list's counted items (`ItemErrors`) lie at a value the update changed: those are
 * introduced whatever the old object had, and stay unbuilt; the others are compared with the old
 * object's, each with its old item's index when its value there is the same (`Unchanged`). One walk to
 * the list, then a step or two per item.
 */
function unlistedAtChanges(
  items: ItemErrors,
  start: Walked,
  lists: ListIndexes,
): { changed: number[]; unchanged: Unchanged[] } | { changed: number[]; built: FieldErrorList } {
  const changed: number[] = [];
  const unchanged: Unchanged[] = [];
  const unbuilt = items.items;
  if (!unbuilt) return { changed, built: items.unlisted() };
  const atList = walk(start, items.path.steps, lists);
  const list = atList?.reached ? atList.now : undefined;
  const oldList = atList?.before;
  if (!atList || !Array.isArray(list) || !Array.isArray(oldList)) {
    // Not a list on both sides: each item's error is compared as any other.
    return { changed, built: items.unlisted() };
  }
  const itemSchema = childSchema(atList.at, 0);
  const oldIndexOf = lists.of(list, oldList, atList.at);
  unbuilt.indexes.forEach((index, k) => {
    // As `walk` goes on from the list along [index, ...leaf], without a state per item.
    const oldIndex = oldIndexOf(index);
    if (oldIndex === undefined || !hasMember(list, index) || !hasMember(oldList, oldIndex)) {
      if (oldIndex === undefined) changed.push(k);
      else unchanged.push({ k });
      return;
    }
    let now: unknown = list[index];
    let before: unknown = oldList[oldIndex];
    let at = itemSchema;
    for (const step of items.leaf) {
      const name = step.as === "index" ? step.index : step.name;
      if (!hasMember(now, name) || !hasMember(before, name)) break;
      now = (now as Record<string | number, unknown>)[name];
      before = (before as Record<string | number, unknown>)[name];
      at = childSchema(at, name);
    }
    if (sameValue(now, before, at)) unchanged.push({ k, oldIndex });
    else changed.push(k);
  });
  return { changed, unchanged };
}

/** A counted item at a value the update left unchanged: its place among the unlisted, and its old item's index. */
interface Unchanged {
  k: number;
  oldIndex?: number;
}

/**
 * The counted items of a list whose check pairs by finding (`ItemErrors.items.found`), each paired
 * with the old object's counted item of the same list at its old index: the same finding there is the
 * same problem (spared, unbuilt, and that old item spares nothing else); any other is built, to be
 * compared as every error is. `consumed` records the old items that spared one.
 */
function pairByFinding(
  items: ItemErrors,
  rule: FieldError["rule"],
  unchanged: readonly Unchanged[],
  oldErrors: FieldErrorList,
  consumed: Map<ItemErrors, Uint8Array>,
): { spared: number[]; built: FieldErrorList } {
  const unbuilt = items.items as NonNullable<ItemErrors["items"]>;
  const old = oldErrors.find(
    (error) =>
      error.listSummary &&
      error.rule === rule &&
      error.list?.items?.found !== undefined &&
      error.list.what === items.what &&
      error.list.path.toString() === items.path.toString() &&
      sameSteps(error.list.leaf, items.leaf),
  )?.list;
  const oldItems = old?.items;
  const spared: number[] = [];
  const built: FieldErrorList = [];
  if (!old || !oldItems?.found || !unbuilt.found) {
    for (const { k } of unchanged) built.push(unbuilt.error(k));
    return { spared, built };
  }
  // The old items' places among its unlisted, by their index in the old list (ascending, as added).
  const lastIndex = oldItems.indexes[oldItems.indexes.length - 1] ?? -1;
  const placeOf = new Int32Array(lastIndex + 1).fill(-1);
  oldItems.indexes.forEach((index, k) => {
    placeOf[index] = k;
  });
  const used = consumed.get(old) ?? new Uint8Array(oldItems.indexes.length);
  consumed.set(old, used);
  for (const { k, oldIndex } of unchanged) {
    const place = oldIndex === undefined || oldIndex > lastIndex ? -1 : (placeOf[oldIndex] as number);
    if (place >= 0 && used[place] === 0 && isDeepStrictEqual(unbuilt.found(k), oldItems.found(place))) {
      used[place] = 1;
      spared.push(k);
    } else {
      built.push(unbuilt.error(k));
    }
  }
  return { spared, built };
}

/**
 * A check's counted errors (`CountedErrors`, each following from its value alone), split by where they
 * lie: those at values the update left unchanged are spared (counted); the others are introduced, built
 * as far as an answer shows errors and counted past that. An entry the update changed is looked into:
 * each of its errors may still lie at a value left unchanged. What that builds is charged to the review.
 */
function placeCounted(
  counted: CountedErrors,
  context: ReviewContext,
  start: Walked,
  schema: JsonSchema | undefined,
  lists: ListIndexes,
): { introduced: FieldErrorList; spared: number } {
  const { object, oldObject } = context.request;
  const introduced: FieldErrorList = [];
  let unbuilt = 0;
  let spared = 0;
  const introduce = (count: number, build: () => FieldErrorList | FieldError) => {
    if (introduced.length >= limits.causes) {
      unbuilt += count;
      return;
    }
    const built = build();
    const errors = Array.isArray(built) ? built : [built];
    for (const error of errors) {
      if (introduced.length < limits.causes) introduced.push(error);
      else unbuilt++;
    }
    unbuilt += Math.max(0, count - errors.length);
  };
  const placeEach = (errors: FieldErrorList) => {
    context.budget.charge(errors.length, "ratcheting the errors counted past the bound");
    for (const error of errors) {
      if (whereInOld(object, oldObject, error.field, schema, lists)?.unchanged) spared++;
      else introduce(1, () => error);
    }
  };
  // Lists and maps the update left as they were (a kept list of 50,000 bad channels): every error in
  // them spared at once, and those counted one by one there too (they lie in its first entries).
  // A top-level member the update left as it was (the spec) holds only kept ones. Compared once per
  // review: the update-only rules' reading of both specs asks the same (`sameJson` remembers it).
  const keptAt = (container: FieldPath) => {
    const [top] = container.steps;
    if (top?.as !== "field" || !isObject(object) || !isObject(oldObject)) return false;
    return sameJson(oldObject[top.name], object[top.name]);
  };
  const places = counted.entries.map((entries) => {
    const at = walk(start, entries.container.steps, lists);
    const kept = at?.reached === true && (keptAt(entries.container) || jsonEqual(at.now, at.before));
    return { entries, at, kept };
  });
  const keptContainers = places.flatMap(({ entries, kept }) => (kept ? [entries.container] : []));
  // In the check's order: the errors one by one (the first entries), then the entries cut.
  for (let k = 0; k < counted.singles.size; k++) {
    const field = counted.singles.field(k);
    if (
      keptContainers.some((container) => field.within(container)) ||
      whereInOld(object, oldObject, field, schema, lists)?.unchanged
    )
      spared++;
    else introduce(1, () => counted.singles.build(k));
  }
  for (const { entries, at, kept } of places) {
    if (kept) {
      spared += entries.total;
      continue;
    }
    const now = at?.reached ? at.now : undefined;
    const before = at?.before;
    const itemSchema = (key: number | string) => childSchema(at?.at, key);
    // Where the old object has no such list or map, every entry is new.
    const pairs = now === undefined || !isContainer(before) ? new Map() : oldSidePairs(now, before, at?.at);
    if (!pairs) {
      // Any other list: each entry correlated as `whereInOld` does, one by one.
      const oldIndexOf =
        Array.isArray(now) && Array.isArray(before) ? lists.of(now, before, at?.at) : undefined;
      context.budget.charge(entries.total, "ratcheting the errors counted past the bound");
      entries.visitWhile((key, count) => {
        const oldKey = oldIndexOf ? oldIndexOf(key as number) : key;
        const build = () => entries.errorsAt(key);
        if (oldKey === undefined || !hasMember(now, key) || !hasMember(before, oldKey))
          introduce(count, build);
        else {
          const value = (now as Record<string | number, unknown>)[key];
          const oldValue = (before as Record<string | number, unknown>)[oldKey];
          if (sameValue(value, oldValue, itemSchema(key))) spared += count;
          else if (isContainer(value) && isContainer(oldValue)) placeEach(build());
          else introduce(count, build);
        }
        return true;
      });
      continue;
    }
    // A map list or a map: only an entry the old object had can be spared, so they are looked at from
    // its side; the other entries are introduced, visited only as far as the answer shows them.
    // Charged as what it may read: the old side's entries, and the new side's as far as the last.
    context.budget.charge(pairs.size + entries.total, "ratcheting the errors counted past the bound");
    const sparedKeys = new Set<number | string>();
    const changedInside = new Set<number | string>();
    let rest = entries.total;
    for (const [key, oldKey] of pairs) {
      const count = entries.countAt(key);
      if (count === 0) continue;
      const value = (now as Record<string | number, unknown>)[key];
      const oldValue = (before as Record<string | number, unknown>)[oldKey];
      if (sameValue(value, oldValue, itemSchema(key))) {
        sparedKeys.add(key);
        spared += count;
        rest -= count;
      } else if (isContainer(value) && isContainer(oldValue)) {
        changedInside.add(key);
        rest -= count;
      }
    }
    entries.visitWhile((key, count) => {
      if (sparedKeys.has(key)) return true;
      if (changedInside.delete(key)) placeEach(entries.errorsAt(key));
      else {
        introduce(count, () => entries.errorsAt(key));
        rest -= count;
      }
      return introduced.length < limits.causes || changedInside.size > 0;
    });
    unbuilt += rest;
  }
  if (unbuilt > 0) introduced.push(omittedErrors(unbuilt));
  return { introduced, spared };
}

const isContainer = (value: unknown): boolean => value !== null && typeof value === "object";

/**
 * The entries of a map list or a map that correlate with one of the old object's (index or key → its
 * old index or key), found from the old side; undefined for any other list, or keys that repeat.
 */
function oldSidePairs(
  now: unknown,
  before: unknown,
  schema: JsonSchema | undefined,
): Map<number | string, number | string> | undefined {
  if (Array.isArray(now) && Array.isArray(before)) return mapListPairs(now, before, schema);
  if (!isObject(now) || !isObject(before)) return undefined;
  const pairs = new Map<string, string>();
  for (const key of Object.keys(before)) if (Object.hasOwn(now, key)) pairs.set(key, key);
  return pairs;
}

function sameSteps(a: readonly PathStep[], b: readonly PathStep[]): boolean {
  return a.length === b.length && a.every((step, i) => sameStep(step, b[i] as PathStep));
}

function hasMember(value: unknown, name: string | number): boolean {
  return value !== null && typeof value === "object" && Object.hasOwn(value, name);
}

type KubeObject = Record<string, unknown>;

const isObject = (value: unknown): value is KubeObject =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/**
 * An update that changes only `metadata` (finalizers, labels, annotations, owner references, managed
 * fields) or `status`: what controllers write to objects they must be able to finish with, an object
 * being deleted losing its finalizers included. Whether the object is being deleted changes nothing:
 * a change to its spec is judged as any other.
 */
export function isHousekeeping(object: unknown, oldObject: unknown): boolean {
  if (!isObject(object) || !isObject(oldObject)) return false;
  const { metadata: _m, status: _s, ...content } = object;
  const { metadata: _om, status: _os, ...oldContent } = oldObject;
  // jsonEqual, not isDeepStrictEqual: 50,000 kept channels took the latter 20 ms (it checks prototypes and symbols).
  return jsonEqual(content, oldContent);
}

/** The UPDATE verdict, ratcheted: what denies, what is shown, and whether ratcheting spared anything. */
export interface RatchetedVerdict extends Verdict {
  /** Errors of the new object's state that do not deny this update (the old object had them, or housekeeping). */
  spared: FieldErrorList;
}

/**
 * Ratcheting, once for every kind: on UPDATE, `validate` runs on the old object too, and a problem the
 * old object already had does not deny; it comes back as a warning. Update-only rules
 * (`validateTransition`) are never ratcheted. `stateErrors` are the new object's state errors as they
 * stand after rule actions; the old object's are computed here.
 */
export async function ratchetUpdate(
  validator: Validator<unknown>,
  context: ReviewContext,
  stateErrors: FieldErrorList,
): Promise<RatchetedVerdict> {
  if (stateErrors.length === 0) return { errors: [], warnings: [], spared: [] };
  const { request } = context;
  // A list's errors past the first few are counted in one (`ListErrors`): each item's is compared,
  // then the update's own are bounded again, so that fixing one of many bad items changes no verdict.
  const schema = validator.schema?.();
  const lists = new ListIndexes(searchedItems);
  const start = startOf(request.object, request.oldObject, schema);
  // Counted items at changed values are introduced as they are: only the others are built and compared.
  const changedUnlisted = new Map<ItemErrors, Unbuilt>();
  const counted = stateErrors.map((error) => {
    if (!error.listSummary || !error.list) return undefined;
    const found = unlistedAtChanges(error.list, start, lists);
    if (found.changed.length > 0) changedUnlisted.set(error.list, { ks: found.changed, rule: error.rule });
    return found;
  });
  // The old object is judged only when some error stands at a value the update left unchanged: one at
  // a changed value is introduced whatever the old object had (an UPDATE changing 25,000 bad links
  // checked the old object's 25,000 for nothing). Its work is charged to the review's budget when done.
  let oldErrors: FieldErrorList | undefined;
  const judgeOld = async () => {
    oldErrors ??= await oldStateErrors(validator, context, stateErrors);
    return oldErrors;
  };
  // Counted items of a check that pairs by finding are paired with the old object's, unbuilt.
  const sparedUnlisted = new Map<ItemErrors, Unbuilt>();
  const consumed = new Map<ItemErrors, Uint8Array>();
  const compared: FieldErrorList = [];
  // A check's errors counted past its bound, placed: those at unchanged values spared, the others
  // introduced (built as far as an answer shows them), without the old object's answer.
  const introducedCounted = new Set<FieldError>();
  let sparedCounted = 0;
  for (const [i, error] of stateErrors.entries()) {
    if (error.counted) {
      const placed = placeCounted(error.counted, context, start, schema, lists);
      for (const item of placed.introduced) {
        const tagged = withRule(item, error.rule);
        introducedCounted.add(tagged);
        compared.push(tagged);
      }
      sparedCounted += placed.spared;
      continue;
    }
    const found = counted[i];
    const { list } = error;
    if (!found || !list) {
      compared.push(error);
      continue;
    }
    let built = "built" in found ? found.built : [];
    if ("unchanged" in found && found.unchanged.length > 0 && list.items?.ofValueAlone) {
      // The same value at the leaf, the same problem: spared without the old object's answer.
      const spared = found.unchanged.flatMap(({ k, oldIndex }) => (oldIndex === undefined ? [] : [k]));
      if (spared.length > 0) sparedUnlisted.set(list, { ks: spared, rule: error.rule });
      const unsure = found.unchanged.filter(({ oldIndex }) => oldIndex === undefined);
      built = unsure.map(({ k }) => (list.items as NonNullable<ItemErrors["items"]>).error(k));
    } else if ("unchanged" in found && found.unchanged.length > 0) {
      const paired = pairByFinding(
        list,
        error.rule,
        found.unchanged,
        list.items?.found ? await judgeOld() : [],
        consumed,
      );
      if (paired.spared.length > 0) sparedUnlisted.set(list, { ks: paired.spared, rule: error.rule });
      built = paired.built;
    }
    for (const item of built) compared.push(withRule(item, error.rule));
  }
  const located = locate(compared, request.object, request.oldObject, schema, lists, introducedCounted);
  if (located.some((old, i) => old?.unchanged && !compared[i]?.ofValueAlone)) await judgeOld();
  const split = splitLocated(compared, located, () => withUnlisted(oldErrors ?? [], consumed));
  const introduced = rebound(split.introduced, changedUnlisted);
  const preexisting = rebound(split.preexisting, sparedUnlisted);
  if (sparedCounted > 0) preexisting.push(omittedErrors(sparedCounted));
  const warnings = preexisting.map((error): Warning => {
    const shown = error.omitted === undefined ? formatFieldError(error) : error.detail;
    const message = fitWarning(`already invalid before this update: ${shown}`);
    return { message, field: error.field, ...(error.rule ? { rule: error.rule } : {}) };
  });
  if (preexisting.length > 0 && validator.whileInvalid) warnings.push(...validator.whileInvalid(preexisting));
  // Housekeeping matters only when the update introduced something: skip the deep comparison otherwise.
  if (introduced.length === 0 || !isHousekeeping(request.object, request.oldObject)) {
    return { errors: introduced, warnings, spared: preexisting };
  }
  // A metadata/status-only update introduces only errors at the values it changed (an annotation set
  // to a value a rule refuses); the others come from today's rules or cluster (a Workspace deleted
  // meanwhile) and warn, so that such an update always goes through.
  const { changed, unchanged } = splitByChange(introduced, request.object, request.oldObject);
  const housekeeping = unchanged.map(
    (error): Warning => ({ message: fitWarning(formatFieldError(error)), field: error.field }),
  );
  return {
    errors: changed,
    warnings: [...warnings, ...housekeeping],
    spared: [...preexisting, ...unchanged],
  };
}

/** Every list's counted errors built, in place of the error counting them; those that spared one already (`consumed`) left out. */
function withUnlisted(errors: FieldErrorList, consumed: ReadonlyMap<ItemErrors, Uint8Array>): FieldErrorList {
  if (!errors.some((error) => error.listSummary)) return errors;
  return errors.flatMap((error) => {
    if (!error.listSummary || !error.list) return [error];
    const used = consumed.get(error.list);
    const { items } = error.list;
    if (!used || !items) return error.list.unlisted().map((item) => withRule(item, error.rule));
    return items.indexes.flatMap((_, k) => (used[k] === 0 ? [withRule(items.error(k), error.rule)] : []));
  });
}

/** A list's counted items at changed values (their places among its unlisted), not built, and its rule. */
interface Unbuilt {
  ks: number[];
  rule?: FieldError["rule"];
}

/** An item's error with its summary's rule (a rule's id is given to its errors as they are returned). */
const withRule = (item: FieldError, rule: FieldError["rule"]): FieldError =>
  rule && item.rule !== rule ? Object.assign({}, item, { rule }) : item;

/**
 * Each list's errors bounded again (`ListErrors`): the first `limits.listErrors` shown, the rest
 * counted; `unbuilt` adds each list's counted items not built yet (by their place among its unlisted).
 */
function rebound(errors: FieldErrorList, unbuilt = new Map<ItemErrors, Unbuilt>()): FieldErrorList {
  if (!errors.some((error) => error.list) && unbuilt.size === 0) return errors;
  const shown = new Map<ItemErrors, number>();
  const rest = new Map<ItemErrors, FieldErrorList>();
  const bounded: FieldErrorList = [];
  for (const error of errors) {
    const { list } = error;
    if (!list) {
      bounded.push(error);
      continue;
    }
    const count = shown.get(list) ?? 0;
    if (count < limits.listErrors) {
      bounded.push(error);
      shown.set(list, count + 1);
    } else {
      const more = rest.get(list);
      if (more) more.push(error);
      else rest.set(list, [error]);
    }
  }
  const summaries: FieldErrorList = [];
  for (const list of new Set([...rest.keys(), ...unbuilt.keys()])) {
    const more = rest.get(list) ?? [];
    const { ks: later = [], rule: summaryRule } = unbuilt.get(list) ?? {};
    const rule = summaryRule ?? more[0]?.rule;
    const error = (k: number) => withRule((list.items as NonNullable<ItemErrors["items"]>).error(k), rule);
    // Shown first up to the bound (built now), then counted (built only if asked).
    let next = 0;
    for (let room = limits.listErrors - (shown.get(list) ?? 0); room > 0 && next < later.length; room--)
      bounded.push(error(later[next++] as number));
    const count = more.length + later.length - next;
    if (count === 0) continue;
    const counted: ItemErrors = {
      path: list.path,
      what: list.what,
      leaf: list.leaf,
      unlisted: () => [...more, ...later.slice(next).map(error)],
    };
    summaries.push(summaryOf(counted, count, rule));
  }
  return [...bounded, ...summaries];
}

/** Errors at a value the update changed, and the rest (the object's root is never a changed value). */
function splitByChange(
  errors: FieldErrorList,
  object: unknown,
  oldObject: unknown,
): { changed: FieldErrorList; unchanged: FieldErrorList } {
  const changed: FieldErrorList = [];
  const unchanged: FieldErrorList = [];
  for (const error of errors) {
    if (!error.field.isEmpty && !unchangedAt(object, oldObject, error.field)) changed.push(error);
    else unchanged.push(error);
  }
  return { changed, unchanged };
}

/**
 * The old object judged as it would be created today (with today's cluster state): the baseline of
 * what the update did not introduce. Only the rules the new object failed are asked for (the old
 * object's other errors could spare nothing), unless some error has no rule id. An old object that is
 * not an object, or on which the rules fail, has no baseline; every error then counts as new.
 */
async function oldStateErrors(
  validator: Validator<unknown>,
  context: ReviewContext,
  stateErrors: FieldErrorList,
): Promise<FieldErrorList> {
  const { request } = context;
  if (!isObject(request.oldObject)) return [];
  const rules = stateErrors.map((error) => error.rule);
  const focus = rules.every((rule) => rule !== undefined) ? { errorsOf: new Set(rules) } : undefined;
  const { oldObject: _old, ...rest } = request;
  const asCreate: AdmissionRequest = { ...rest, operation: "CREATE", object: request.oldObject };
  try {
    const onOld: ReviewContext = { request: asCreate, budget: context.budget, ...(focus && { focus }) };
    return (await validator.validate(request.oldObject, onOld)).errors;
  } catch (error) {
    // Out of work: the review cannot be judged, which the protocol layer turns into a denial.
    if (error instanceof WorkBudgetExceeded) throw error;
    return [];
  }
}
