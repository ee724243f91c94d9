import { CelScalar, type CelValue, celEnv, celMap, celMethod, listType, parse, plan } from "@bufbuild/cel";
import { strings } from "@bufbuild/cel/ext";

/**
 * The part of the Kubernetes CEL libraries (k8s.io/apiserver/pkg/cel/library) the generated policies use,
 * for @bufbuild/cel: the list library's `indexOf` and `lastIndexOf` (CEL equality: 1 == 1.0, lists and
 * maps element by element) and the regex library's `find` (the first match, or ""). Every policy that uses
 * them is evaluated by the real API server too (test/policies), which is what keeps these honest.
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

/** Functions beside CEL's standard ones and the strings extension, as the API server has them. */
export const kubernetesFunctions = [...strings, indexOf, lastIndexOf, find];
