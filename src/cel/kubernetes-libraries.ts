import {
  type CelFunc,
  type CelList,
  CelScalar,
  type CelValue,
  celFunc,
  celMethod,
  listType,
} from "@bufbuild/cel";
import { goParseRequestUriError } from "../go-net-url/parse.js";

/**
 * Functions of Kubernetes' CEL libraries (k8s.io/apiserver/pkg/cel/library) that a CRD rule may call,
 * bound where their meaning is plain: the lists library (isSorted, sum, min, max, indexOf,
 * lastIndexOf), isURL, and the sets library. A rule that calls one
 * of the others (find, url(), quantity(), ip(), cidr(), format.*, semver(), ...) fails here with an unbound
 * function and is reported as not evaluated offline, never judged.
 */
const { INT, STRING, BOOL, DYN } = CelScalar;
const list = listType(DYN);

const items = (values: CelList): CelValue[] => [...values];

/** CEL's ordering of two comparable values of one type (ints, doubles, strings, bools). */
function compare(a: CelValue, b: CelValue): number {
  if (typeof a === "bigint" && typeof b === "bigint") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "number" && typeof b === "number") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "boolean" && typeof b === "boolean") return Number(a) - Number(b);
  throw new Error("no such overload");
}

function same(a: CelValue, b: CelValue): boolean {
  try {
    return compare(a, b) === 0;
  } catch {
    return false;
  }
}

export const kubernetesLibraries: CelFunc[] = [
  celMethod("isSorted", list, [], BOOL, function () {
    const values = items(this);
    return values.every((value, i) => i === 0 || compare(values[i - 1] as CelValue, value) <= 0);
  }),
  celMethod("sum", list, [], DYN, function () {
    const values = items(this);
    if (values.length === 0) return 0n;
    return values.reduce((a, b) => {
      if (typeof a === "bigint" && typeof b === "bigint") return a + b;
      if (typeof a === "number" && typeof b === "number") return a + b;
      throw new Error("no such overload");
    });
  }),
  celMethod("min", list, [], DYN, function () {
    const values = items(this);
    if (values.length === 0) throw new Error("min called on empty list");
    return values.reduce((a, b) => (compare(b, a) < 0 ? b : a));
  }),
  celMethod("max", list, [], DYN, function () {
    const values = items(this);
    if (values.length === 0) throw new Error("max called on empty list");
    return values.reduce((a, b) => (compare(b, a) > 0 ? b : a));
  }),
  celMethod("indexOf", list, [DYN], INT, function (value) {
    return BigInt(items(this).findIndex((item) => same(item, value)));
  }),
  celMethod("lastIndexOf", list, [DYN], INT, function (value) {
    const values = items(this);
    for (let i = values.length - 1; i >= 0; i--) if (same(values[i] as CelValue, value)) return BigInt(i);
    return -1n;
  }),
  celFunc("isURL", [STRING], BOOL, (value) => goParseRequestUriError(value) === undefined),
  celFunc("sets.contains", [list, list], BOOL, (a, b) =>
    items(b).every((item) => items(a).some((other) => same(item, other))),
  ),
  celFunc("sets.equivalent", [list, list], BOOL, (a, b) => {
    const left = items(a);
    const right = items(b);
    return (
      left.every((item) => right.some((other) => same(item, other))) &&
      right.every((item) => left.some((other) => same(item, other)))
    );
  }),
  celFunc("sets.intersects", [list, list], BOOL, (a, b) =>
    items(a).some((item) => items(b).some((other) => same(item, other))),
  ),
];
