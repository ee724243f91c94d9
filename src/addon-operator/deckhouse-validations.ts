import { type CelInput, isCelError, run } from "@bufbuild/cel";
import { isMap, type Schema, schemaMap } from "./schema.js";
import type { PathSegment, Violation } from "./validate.js";

/** YAML data as CEL values: maps as Map (so `self.key` works), whole numbers as int, as cel-go sees them. */
function toCel(value: unknown): CelInput {
  if (Array.isArray(value)) return value.map(toCel);
  if (isMap(value)) return new Map(Object.entries(value).map(([key, item]) => [key, toCel(item)]));
  if (typeof value === "number" && Number.isInteger(value)) return BigInt(value);
  return value as CelInput;
}

interface Rule {
  expression: string;
  message: string;
}

function rulesOf(schema: Schema): Rule[] {
  const rules = schema["x-deckhouse-validations"];
  if (!Array.isArray(rules)) return [];
  return rules.flatMap((rule) =>
    isMap(rule) && typeof rule.expression === "string"
      ? [{ expression: rule.expression, message: typeof rule.message === "string" ? rule.message : "" }]
      : [],
  );
}

/**
 * The schema's `x-deckhouse-validations` (CEL with `self`, and `oldSelf` on UPDATE), run at the root and
 * down through `properties` for keys that are present. A rule that reads `oldSelf` runs only when there
 * is an old value, as a Kubernetes transition rule does.
 */
export function runDeckhouseValidations(
  value: unknown,
  oldValue: unknown,
  schema: Schema,
  rootName: string,
  path: PathSegment[] = [],
): Violation[] {
  const violations: Violation[] = [];
  for (const rule of rulesOf(schema)) {
    const usesOld = /\boldSelf\b/.test(rule.expression);
    if (usesOld && oldValue === undefined) continue;
    const where = [rootName, ...path].join(".");
    let result: unknown;
    try {
      result = run(
        rule.expression,
        usesOld ? { self: toCel(value), oldSelf: toCel(oldValue) } : { self: toCel(value) },
      );
    } catch (error) {
      result = error;
    }
    if (result === true) continue;
    const message =
      isCelError(result) || result instanceof Error
        ? `${where}: x-deckhouse-validations rule ${JSON.stringify(rule.expression)} cannot be evaluated: ${(result as Error).message}`
        : rule.message || `${where}: failed rule ${rule.expression}`;
    violations.push({ kind: "invalid", path, value, message });
  }
  if (!isMap(value)) return violations;
  for (const [key, property] of schemaMap(schema, "properties")) {
    if (!(key in value)) continue;
    const old = isMap(oldValue) ? oldValue[key] : undefined;
    violations.push(...runDeckhouseValidations(value[key], old, property, rootName, [...path, key]));
  }
  return violations;
}
