import { parse } from "@bufbuild/cel";

/**
 * cel-go's type checker as addon-operator's environment meets it (flant/addon-operator
 * pkg/values/validation/cel/cel.go: `cel.NewEnv` with only `self` and `oldSelf`, no extension
 * libraries), as far as whether a rule compiles: addon-operator types `self` by the value it checks
 * (a map is `map(string, dyn)`, a list `list(dyn)`, anything else `dyn`), so `self.a` on a list,
 * `self == 'x'` on a map, `1 + 1.5` or an undeclared function refuse the rule, and with it the values.
 * @bufbuild/cel plans expressions without a checker; this is one for CEL's standard library:
 * operators, `size`, the string predicates, `matches`, conversions, `has` and the comprehension macros.
 * Returns why the rule does not compile, or undefined.
 */
export type CelType =
  | { k: "dyn" | "int" | "uint" | "double" | "string" | "bytes" | "bool" | "null" | "type" }
  | { k: "duration" | "timestamp" }
  | { k: "list"; e: CelType }
  | { k: "map"; key: CelType; val: CelType };

const t = (
  k:
    | "dyn"
    | "int"
    | "uint"
    | "double"
    | "string"
    | "bytes"
    | "bool"
    | "null"
    | "type"
    | "duration"
    | "timestamp",
) => ({ k }) as CelType;
const DYN = t("dyn");
const INT = t("int");
const UINT = t("uint");
const DOUBLE = t("double");
const STRING = t("string");
const BYTES = t("bytes");
const BOOL = t("bool");
const TYPE = t("type");
const DURATION = t("duration");
const TIMESTAMP = t("timestamp");
const list = (e: CelType): CelType => ({ k: "list", e });
const map = (key: CelType, val: CelType): CelType => ({ k: "map", key, val });

/** The type addon-operator declares for a value (buildCELValueAndType). */
export function celTypeOf(value: unknown): CelType {
  if (Array.isArray(value)) return list(DYN);
  if (value !== null && typeof value === "object") return map(STRING, DYN);
  return DYN;
}

export function typeName(type: CelType): string {
  if (type.k === "list") return `list(${typeName(type.e)})`;
  if (type.k === "map") return `map(${typeName(type.key)}, ${typeName(type.val)})`;
  if (type.k === "null") return "null_type";
  if (type.k === "duration") return "google.protobuf.Duration";
  if (type.k === "timestamp") return "google.protobuf.Timestamp";
  return type.k;
}

class CheckError extends Error {}

/** The most specific type both fit, or undefined: `dyn` fits anything. */
function unify(a: CelType, b: CelType): CelType | undefined {
  if (a.k === "dyn") return b;
  if (b.k === "dyn") return a;
  if (a.k === "list" && b.k === "list") {
    const e = unify(a.e, b.e);
    return e && list(e);
  }
  if (a.k === "map" && b.k === "map") {
    const key = unify(a.key, b.key);
    const val = unify(a.val, b.val);
    return key && val && map(key, val);
  }
  return a.k === b.k ? a : undefined;
}

const isDyn = (x: CelType) => x.k === "dyn";
const is = (x: CelType, ...kinds: string[]) => isDyn(x) || kinds.includes(x.k);

type Overload = (args: CelType[]) => CelType | undefined;

/** An overload of exact kinds per argument (dyn matches any), giving `result`. */
const exact =
  (kinds: string[][], result: CelType | ((args: CelType[]) => CelType)): Overload =>
  (args) =>
    args.length === kinds.length && args.every((a, i) => is(a, ...(kinds[i] as string[])))
      ? typeof result === "function"
        ? result(args)
        : result
      : undefined;

const sameType =
  (result?: CelType): Overload =>
  (args) => {
    if (args.length !== 2) return undefined;
    const u = unify(args[0] as CelType, args[1] as CelType);
    return u && (result ?? u);
  };

const orderable = ["int", "uint", "double", "string", "bytes", "bool", "duration", "timestamp"];
/** `<` and kin: one type on both sides (cel-go's default environment has no cross-type numeric ones). */
const ordering: Overload = (args) => {
  if (args.length !== 2) return undefined;
  const [a, b] = args as [CelType, CelType];
  const u = unify(a, b);
  return u && is(u, ...orderable) ? BOOL : undefined;
};

const arithmetic =
  (kinds: string[]): Overload =>
  (args) => {
    if (args.length !== 2) return undefined;
    const [a, b] = args as [CelType, CelType];
    const u = unify(a, b);
    if (!u) return undefined;
    return is(u, ...kinds) ? u : undefined;
  };

/** Global functions and operators, by name: each a list of overloads. */
const functions: Record<string, Overload[]> = {
  "_==_": [sameType(BOOL)],
  "_!=_": [sameType(BOOL)],
  "_<_": [ordering],
  "_<=_": [ordering],
  "_>_": [ordering],
  "_>=_": [ordering],
  "_+_": [
    arithmetic(["int", "uint", "double", "string", "bytes", "list", "duration"]),
    exact([["timestamp"], ["duration"]], TIMESTAMP),
    exact([["duration"], ["timestamp"]], TIMESTAMP),
  ],
  "_-_": [
    arithmetic(["int", "uint", "double", "duration"]),
    exact([["timestamp"], ["timestamp"]], DURATION),
    exact([["timestamp"], ["duration"]], TIMESTAMP),
  ],
  "_*_": [arithmetic(["int", "uint", "double"])],
  "_/_": [arithmetic(["int", "uint", "double"])],
  "_%_": [arithmetic(["int", "uint"])],
  "-_": [exact([["int"]], INT), exact([["double"]], DOUBLE)],
  "!_": [exact([["bool"]], BOOL)],
  "_&&_": [exact([["bool"], ["bool"]], BOOL)],
  "_||_": [exact([["bool"], ["bool"]], BOOL)],
  "@not_strictly_false": [exact([["bool"]], BOOL)],
  "_?_:_": [
    (args) => {
      if (args.length !== 3 || !is(args[0] as CelType, "bool")) return undefined;
      return unify(args[1] as CelType, args[2] as CelType);
    },
  ],
  "@in": [
    (args) => {
      if (args.length !== 2) return undefined;
      const [x, c] = args as [CelType, CelType];
      if (isDyn(c)) return BOOL;
      if (c.k === "list") return unify(x, c.e) ? BOOL : undefined;
      if (c.k === "map") return unify(x, c.key) ? BOOL : undefined;
      return undefined;
    },
  ],
  "_[_]": [
    (args) => {
      if (args.length !== 2) return undefined;
      const [c, i] = args as [CelType, CelType];
      if (isDyn(c)) return DYN;
      if (c.k === "list") return is(i, "int", "uint") ? c.e : undefined;
      if (c.k === "map") return unify(i, c.key) ? c.val : undefined;
      return undefined;
    },
  ],
  size: [exact([["string", "bytes", "list", "map"]], INT)],
  matches: [exact([["string"], ["string"]], BOOL)],
  int: [exact([["int", "uint", "double", "string", "timestamp", "duration"]], INT)],
  uint: [exact([["int", "uint", "double", "string"]], UINT)],
  double: [exact([["int", "uint", "double", "string"]], DOUBLE)],
  string: [exact([["int", "uint", "double", "string", "bool", "bytes", "timestamp", "duration"]], STRING)],
  bytes: [exact([["bytes", "string"]], BYTES)],
  bool: [exact([["bool", "string"]], BOOL)],
  duration: [exact([["duration", "string"]], DURATION)],
  timestamp: [exact([["timestamp", "string", "int"]], TIMESTAMP)],
  type: [(args) => (args.length === 1 ? TYPE : undefined)],
  dyn: [(args) => (args.length === 1 ? DYN : undefined)],
};

const timeAccessors = [
  "getFullYear",
  "getMonth",
  "getDayOfYear",
  "getDayOfMonth",
  "getDate",
  "getDayOfWeek",
  "getHours",
  "getMinutes",
  "getSeconds",
  "getMilliseconds",
];

/** Member functions (`x.f(...)`), by name: overloads over [receiver, ...args]. */
const methods: Record<string, Overload[]> = {
  size: [exact([["string", "bytes", "list", "map"]], INT)],
  contains: [exact([["string"], ["string"]], BOOL)],
  startsWith: [exact([["string"], ["string"]], BOOL)],
  endsWith: [exact([["string"], ["string"]], BOOL)],
  matches: [exact([["string"], ["string"]], BOOL)],
  ...Object.fromEntries(
    timeAccessors.map((name) => [
      name,
      [exact([["timestamp"]], INT), exact([["timestamp"], ["string"]], INT), exact([["duration"]], INT)],
    ]),
  ),
};

/** Type names CEL declares as identifiers. */
const typeIdentifiers = new Set([
  "int",
  "uint",
  "double",
  "bool",
  "string",
  "bytes",
  "list",
  "map",
  "null_type",
  "type",
  "dyn",
]);

interface ExprNode {
  exprKind: { case?: string; value?: unknown };
}

/** Why the expression does not compile in addon-operator's environment, or undefined. */
export function celCompileError(expression: string, self: CelType, oldSelf: CelType): string | undefined {
  let root: ExprNode | undefined;
  try {
    root = parse(expression).expr as ExprNode | undefined;
  } catch (error) {
    return (error as Error).message.split("\n")[0];
  }
  try {
    typeOf(
      root,
      new Map([
        ["self", self],
        ["oldSelf", oldSelf],
      ]),
    );
    return undefined;
  } catch (error) {
    if (error instanceof CheckError) return error.message;
    throw error;
  }
}

function typeOf(node: ExprNode | undefined, scope: ReadonlyMap<string, CelType>): CelType {
  if (!node) return DYN;
  const { case: kind, value } = node.exprKind;
  const v = value as Record<string, unknown>;
  switch (kind) {
    case "constExpr":
      return constantType(v.constantKind as { case?: string });
    case "identExpr": {
      const name = String(v.name);
      const found = scope.get(name);
      if (found) return found;
      if (typeIdentifiers.has(name)) return TYPE;
      throw new CheckError(`undeclared reference to '${name}' (in container '')`);
    }
    case "selectExpr": {
      const operand = typeOf(v.operand as ExprNode, scope);
      if (isDyn(operand)) return v.testOnly ? BOOL : DYN;
      if (operand.k === "map") return v.testOnly ? BOOL : operand.val;
      throw new CheckError(`type '${typeName(operand)}' does not support field selection`);
    }
    case "callExpr": {
      const name = String(v.function);
      const args = (v.args as ExprNode[]).map((arg) => typeOf(arg, scope));
      const target = v.target as ExprNode | undefined;
      if (target) {
        const receiver = typeOf(target, scope);
        const overloads = methods[name];
        if (!overloads) throw new CheckError(`undeclared reference to '${name}' (in container '')`);
        return resolve(name, overloads, [receiver, ...args]);
      }
      const overloads = functions[name];
      if (!overloads) throw new CheckError(`undeclared reference to '${name}' (in container '')`);
      return resolve(name, overloads, args);
    }
    case "listExpr": {
      const elements = (v.elements as ExprNode[]).map((e) => typeOf(e, scope));
      return list(
        elements.reduce<CelType | undefined>((a, b) => (a ? (unify(a, b) ?? DYN) : b), undefined) ?? DYN,
      );
    }
    case "structExpr": {
      const entries = v.entries as { keyKind: { case?: string; value?: unknown }; value?: ExprNode }[];
      let key: CelType | undefined;
      let val: CelType | undefined;
      for (const entry of entries) {
        if (entry.keyKind.case !== "mapKey") throw new CheckError("message construction is not supported");
        const k = typeOf(entry.keyKind.value as ExprNode, scope);
        const x = typeOf(entry.value, scope);
        key = key ? (unify(key, k) ?? DYN) : k;
        val = val ? (unify(val, x) ?? DYN) : x;
      }
      return map(key ?? DYN, val ?? DYN);
    }
    case "comprehensionExpr": {
      const range = typeOf(v.iterRange as ExprNode, scope);
      let element: CelType;
      if (isDyn(range)) element = DYN;
      else if (range.k === "list") element = range.e;
      else if (range.k === "map") element = range.key;
      else
        throw new CheckError(
          `expression of type '${typeName(range)}' cannot be range of a comprehension (must be list, map, or dynamic)`,
        );
      const accu = typeOf(v.accuInit as ExprNode, scope);
      const inner = new Map(scope);
      inner.set(String(v.accuVar), accu);
      inner.set(String(v.iterVar), element);
      typeOf(v.loopCondition as ExprNode, inner);
      typeOf(v.loopStep as ExprNode, inner);
      const outer = new Map(scope);
      outer.set(String(v.accuVar), accu);
      return typeOf(v.result as ExprNode, outer);
    }
    default:
      return DYN;
  }
}

function resolve(name: string, overloads: Overload[], args: CelType[]): CelType {
  for (const overload of overloads) {
    const result = overload(args);
    if (result) return result;
  }
  throw new CheckError(
    `found no matching overload for '${name}' applied to '(${args.map(typeName).join(", ")})'`,
  );
}

function constantType(constant: { case?: string }): CelType {
  switch (constant.case) {
    case "int64Value":
      return INT;
    case "uint64Value":
      return UINT;
    case "doubleValue":
      return DOUBLE;
    case "stringValue":
      return STRING;
    case "bytesValue":
      return BYTES;
    case "boolValue":
      return BOOL;
    case "nullValue":
      return t("null");
    default:
      return DYN;
  }
}
