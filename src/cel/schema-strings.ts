import type { JsonSchema } from "../schema/schema-source.js";

/**
 * CEL that holds when some string value below `path` (a CEL path below `object`, e.g. `object.spec.helm`)
 * may pass `test`, walking the schema: every string field, every item of a list, and, where the schema
 * leaves values free-form (`x-kubernetes-preserve-unknown-fields`), maps and lists `depth` levels deep,
 * holding for anything deeper (CEL has no recursion: what it cannot look at, it must assume). For a
 * narrowed webhook's matchConditions: it may say "call" too often, never too seldom.
 */
export function someString(
  schema: JsonSchema,
  path: string,
  test: (value: string) => string,
  depth = 3,
): string {
  let variables = 0;
  const fresh = () => `s${variables++}`;
  const anyValue = (value: string, levels: number): string => {
    if (levels === 0)
      return `(type(${value}) == string ? ${test(value)} : type(${value}) == map || type(${value}) == list)`;
    const key = fresh();
    const inner = anyValue(`${value}[${key}]`, levels - 1);
    const item = fresh();
    return `(type(${value}) == string ? ${test(value)} : type(${value}) == map ? ${value}.exists(${key}, ${inner}) : type(${value}) == list ? ${value}.exists(${item}, ${anyValue(item, levels - 1)}) : false)`;
  };
  const visit = (node: JsonSchema, value: string): string | undefined => {
    // Free-form: preserve-unknown-fields in a CRD, additionalProperties in the editor schema, or no type.
    const freeForm =
      node["x-kubernetes-preserve-unknown-fields"] === true ||
      node.additionalProperties === true ||
      !node.type;
    if (freeForm && !node.properties) return anyValue(value, depth);
    if (node.type === "string") return test(value);
    if (node.type === "array" && node.items) {
      const item = fresh();
      const inner = visit(node.items as JsonSchema, item);
      return inner && `${value}.exists(${item}, ${inner})`;
    }
    const properties = Object.entries((node.properties ?? {}) as Record<string, JsonSchema>).flatMap(
      ([name, child]) => {
        const inner = visit(child, `${value}.${name}`);
        return inner ? [`(has(${value}.${name}) && ${inner})`] : [];
      },
    );
    return properties.length > 0 ? `(${properties.join(" || ")})` : undefined;
  };
  const steps = path.split(".").slice(1);
  const node = steps.reduce(
    (at, step) => ((at.properties ?? {}) as Record<string, JsonSchema>)[step] ?? {},
    schema,
  );
  return visit(node, path) ?? "false";
}
