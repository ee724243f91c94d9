import { readFileSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { parseYaml } from "../go/yaml/dialects.js";
import { copyMap, isMap } from "./schema.js";

/** A `$ref` that cannot be expanded: addon-operator (spec.ExpandSchema) then fails to load the module. */
export class RefError extends Error {}

/** Expanded schemas larger than this are refused (refs can multiply a small file exponentially). */
const maxNodes = 200_000;

interface Context {
  /** Parsed documents by absolute path, each read once. */
  documents: Map<string, unknown>;
  nodes: number;
}

/**
 * The schema with every `$ref` replaced by what it points to, as go-openapi's spec.ExpandSchema does when
 * addon-operator loads a schema (pkg/values/validation/schemas.go, LoadSchemaFromBytes): `#/pointer` in the
 * same document, `file.yaml` and `file.yaml#/pointer` relative to the referring file (or absolute), read
 * as YAML 1.1. The `$ref` node's other keys are dropped. Throws RefError for a ref that does not resolve,
 * a remote ref (not fetched here), a circular ref or an expansion beyond bounds.
 */
export function expandRefs(schema: Record<string, unknown>, file: string): Record<string, unknown> {
  const context: Context = { documents: new Map([[resolve(file), schema]]), nodes: 0 };
  return expand(schema, resolve(file), context, []) as Record<string, unknown>;
}

function expand(node: unknown, file: string, context: Context, active: string[]): unknown {
  if (++context.nodes > maxNodes) throw new RefError(`$refs expand to more than ${maxNodes} schema nodes`);
  if (Array.isArray(node)) return node.map((item) => expand(item, file, context, active));
  if (!isMap(node)) return node;
  const ref = node.$ref;
  if (typeof ref === "string") {
    const [target, targetFile] = resolveRef(ref, file, context);
    const key = `${targetFile}#${ref.split("#")[1] ?? ""}`;
    if (active.includes(key)) throw new RefError(`$ref ${JSON.stringify(ref)} is circular`);
    return expand(target, targetFile, context, [...active, key]);
  }
  const result = copyMap(node);
  for (const [key, value] of Object.entries(node)) {
    // Enum values, defaults and examples are data, not schemas: a "$ref" key there is just a key.
    result[key] =
      key === "enum" || key === "default" || key === "example" ? value : expand(value, file, context, active);
  }
  return result;
}

function resolveRef(ref: string, file: string, context: Context): [unknown, string] {
  const hash = ref.indexOf("#");
  const location = hash < 0 ? ref : ref.slice(0, hash);
  const pointer = hash < 0 ? "" : ref.slice(hash + 1);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(location)) {
    throw new RefError(
      `$ref ${JSON.stringify(ref)} is remote: not fetched here, and addon-operator needs it reachable`,
    );
  }
  const targetFile =
    location === "" ? file : isAbsolute(location) ? location : resolve(dirname(file), decodeURI(location));
  const document = loadDocument(targetFile, ref, context);
  return [followPointer(document, pointer, ref), targetFile];
}

function loadDocument(path: string, ref: string, context: Context): unknown {
  const known = context.documents.get(path);
  if (known !== undefined) return known;
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new RefError(
      `$ref ${JSON.stringify(ref)}: ${path} cannot be read (${(error as NodeJS.ErrnoException).code})`,
    );
  }
  const parsed = parseYaml(text, "sigs");
  if ("problem" in parsed)
    throw new RefError(`$ref ${JSON.stringify(ref)}: ${path} is not valid YAML: ${parsed.problem}`);
  context.documents.set(path, parsed.value);
  return parsed.value;
}

function followPointer(document: unknown, pointer: string, ref: string): unknown {
  if (pointer === "" || pointer === "/") return document;
  let node = document;
  for (const raw of pointer.replace(/^\//, "").split("/")) {
    const token = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    if (Array.isArray(node) && /^\d+$/.test(token) && Number(token) < node.length) node = node[Number(token)];
    else if (isMap(node) && Object.hasOwn(node, token)) node = node[token];
    else throw new RefError(`$ref ${JSON.stringify(ref)} does not resolve: no ${JSON.stringify(token)}`);
  }
  return node;
}
