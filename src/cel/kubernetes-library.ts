import {
  type CelList,
  CelScalar,
  type CelValue,
  celEnv,
  celFunc,
  celMap,
  celMethod,
  listType,
  parse,
  plan,
} from "@bufbuild/cel";
import { strings } from "@bufbuild/cel/ext";
import { goRequestUriError } from "../go/net-url/parse.js";

/**
 * The part of the Kubernetes CEL libraries (k8s.io/apiserver/pkg/cel/library) bound for @bufbuild/cel,
 * where their meaning is plain: the list library (`indexOf` and `lastIndexOf` with CEL equality: 1 == 1.0,
 * lists and maps element by element; `isSorted`, `sum`, `min`, `max`), the regex library's `find` (the
 * first match, or ""), `isURL` and the sets library. Every policy that uses them is evaluated by the real
 * API server too (test/policies). A CRD rule that calls one of the others (url(), quantity(), ip(),
 * cidr(), format.*, semver(), ...) fails with an unbound function and is reported as not evaluated
 * offline, never judged (src/cel/crd-validator.ts).
 */
const dynList = listType(CelScalar.DYN);

// @bufbuild/cel does not export its equality; CEL's `==` is it.
const equality = plan(celEnv({ variables: { a: CelScalar.DYN, b: CelScalar.DYN } }), parse("a == b"));
const celEquals = (a: CelValue, b: CelValue) => equality({ a, b } as never) === true;

function position(list: Iterable<CelValue>, value: CelValue, last: boolean): bigint {
  let found = -1n;
  let i = 0n;
  for (const item of list) {
    if (celEquals(item, value)) {
      found = i;
      if (!last) return found;
    }
    i++;
  }
  return found;
}

const indexOf = celMethod("indexOf", dynList, [CelScalar.DYN], CelScalar.INT, function (value) {
  return position(this as Iterable<CelValue>, value, false);
});
const lastIndexOf = celMethod("lastIndexOf", dynList, [CelScalar.DYN], CelScalar.INT, function (value) {
  return position(this as Iterable<CelValue>, value, true);
});

/**
 * `find`: the leftmost-first match of the pattern, as RE2's. The patterns come from the generated
 * policies (never from an object), so JavaScript's engine, whose leftmost-first result is RE2's for
 * patterns without backreferences, finds the same text.
 */
const find = celMethod("find", CelScalar.STRING, [CelScalar.STRING], CelScalar.STRING, function (pattern) {
  return new RegExp(pattern, "u").exec(this as string)?.[0] ?? "";
});

/**
 * A map key whose value is null is present, as in cel-go (`'a' in m`, `has(m.a)`): a free-form map keeps
 * JSON nulls. @bufbuild/cel's maps take a null value for a missing key; their `has`, which both `in` and
 * `has()` ask, is corrected here, once, on the prototype its native maps share (test/cel pins it).
 */
const nativeMap = Object.getPrototypeOf(celMap(new Map())) as {
  has(key: unknown): boolean;
  get(key: unknown): unknown;
  _map: Map<unknown, unknown>;
};
const hasNonNull = nativeMap.has;
nativeMap.has = function (this: typeof nativeMap, key: unknown) {
  if (hasNonNull.call(this, key)) return true;
  return this._map.has(key) && this._map.get(key) === null;
};

const { BOOL, DYN } = CelScalar;
const items = (values: CelList): CelValue[] => [...values];

/** CEL's ordering of two comparable values of one type (ints, doubles, strings, bools). */
function compare(a: CelValue, b: CelValue): number {
  if (typeof a === "bigint" && typeof b === "bigint") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "number" && typeof b === "number") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "boolean" && typeof b === "boolean") return Number(a) - Number(b);
  throw new Error("no such overload");
}

const contains = (list: CelList, value: CelValue) => items(list).some((item) => celEquals(item, value));

const lists = [
  celMethod("isSorted", dynList, [], BOOL, function () {
    const values = items(this);
    return values.every((value, i) => i === 0 || compare(values[i - 1] as CelValue, value) <= 0);
  }),
  celMethod("sum", dynList, [], DYN, function () {
    const values = items(this);
    if (values.length === 0) return 0n;
    return values.reduce((a, b) => {
      if (typeof a === "bigint" && typeof b === "bigint") return a + b;
      if (typeof a === "number" && typeof b === "number") return a + b;
      throw new Error("no such overload");
    });
  }),
  celMethod("min", dynList, [], DYN, function () {
    const values = items(this);
    if (values.length === 0) throw new Error("min called on empty list");
    return values.reduce((a, b) => (compare(b, a) < 0 ? b : a));
  }),
  celMethod("max", dynList, [], DYN, function () {
    const values = items(this);
    if (values.length === 0) throw new Error("max called on empty list");
    return values.reduce((a, b) => (compare(b, a) > 0 ? b : a));
  }),
];

const sets = [
  celFunc("sets.contains", [dynList, dynList], BOOL, (a, b) => items(b).every((item) => contains(a, item))),
  celFunc("sets.equivalent", [dynList, dynList], BOOL, (a, b) => {
    return items(b).every((item) => contains(a, item)) && items(a).every((item) => contains(b, item));
  }),
  celFunc("sets.intersects", [dynList, dynList], BOOL, (a, b) => items(a).some((item) => contains(b, item))),
];

const isURL = celFunc("isURL", [CelScalar.STRING], BOOL, (value) => goRequestUriError(value) === undefined);

/** Functions beside CEL's standard ones and the strings extension, as the API server has them. */
export const kubernetesFunctions = [...strings, indexOf, lastIndexOf, find, ...lists, ...sets, isURL];
