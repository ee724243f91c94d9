import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { isMap, isScalar, isSeq, LineCounter, type Node, parseAllDocuments } from "yaml";

/** Input the user named that cannot be read or parsed: `validate` exits 2 with this reason. */
export class InputError extends Error {}

/** One object read from a manifest file, with what it takes to point at its fields. */
export interface Manifest {
  file: string;
  object: Record<string, unknown>;
  /** 1-based line of the object's first field. */
  line: number;
  /** 1-based line of a field (`spec.config.replicas`), or of its nearest ancestor present in the file. */
  lineOf(field: string): number;
}

const manifestExtensions = /\.(ya?ml|json)$/i;

/** The files behind `-f` arguments: files as given, directories walked for *.yaml, *.yml and *.json. */
export function manifestFiles(paths: string[]): string[] {
  return paths.flatMap((path) => {
    if (path === "-") return [path];
    let stat: ReturnType<typeof statSync>;
    try {
      stat = statSync(path);
    } catch (error) {
      throw new InputError(
        `${path}: ${(error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file or directory" : (error as Error).message}`,
      );
    }
    if (!stat.isDirectory()) return [path];
    const entries = readdirSync(path, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
    return entries.flatMap((entry) => {
      const child = join(path, entry.name);
      if (entry.isDirectory()) return manifestFiles([child]);
      return manifestExtensions.test(entry.name) ? [child] : [];
    });
  });
}

export function readInput(file: string, readStdin: () => string): string {
  try {
    return file === "-" ? readStdin() : readFileSync(file, "utf8");
  } catch (error) {
    throw new InputError(`${file}: ${(error as Error).message}`);
  }
}

/**
 * Every object in a YAML (or JSON) text, multi-document aware; the items of a `kind: List` count as
 * objects. Empty documents are skipped; a syntax error is an InputError naming file and line.
 */
export function parseManifests(file: string, text: string): Manifest[] {
  const lines = new LineCounter();
  const lineAt = (node: Node | null | undefined) => (node?.range ? lines.linePos(node.range[0]).line : 1);
  const manifests: Manifest[] = [];
  for (const document of parseAllDocuments(text, { lineCounter: lines })) {
    const [error] = document.errors;
    if (error) {
      const at = lines.linePos(error.pos[0]).line;
      throw new InputError(`${file}:${at}: ${error.message.split("\n")[0]}`);
    }
    const value = document.toJS({ maxAliasCount: 100 }) as unknown;
    if (value === null || value === undefined) continue;
    const root = document.contents as Node | null;
    const record = value as Record<string, unknown>;
    if (typeof value !== "object" || Array.isArray(value)) {
      throw new InputError(
        `${file}:${lineAt(root)}: a manifest must be an object, not ${Array.isArray(value) ? "a list" : typeof value}`,
      );
    }
    const objects =
      record.kind === "List" && Array.isArray(record.items) && isMap(root)
        ? record.items.map((item, index) => ({
            object: item,
            node: nodeAt(root, ["items", String(index)]).node,
          }))
        : [{ object: value, node: root }];
    for (const { object, node } of objects) {
      if (object === null || typeof object !== "object") continue;
      manifests.push({
        file,
        object: object as Record<string, unknown>,
        line: lineAt(firstKey(node) ?? node),
        lineOf: (field) => lineAt(nodeAt(node, fieldSteps(field)).keyOrNode),
      });
    }
  }
  return manifests;
}

/** `config[2].alias` → ["config", "2", "alias"]; `metadata.labels[app]` → ["metadata", "labels", "app"]. */
export function fieldSteps(field: string): string[] {
  return [...field.matchAll(/([^.[\]]+)|\[([^\]]*)\]/g)].map((match) => match[1] ?? match[2] ?? "");
}

/** The deepest node along `steps`, and the key that names it, so a line points at `replicas:`. */
function nodeAt(
  start: Node | null | undefined,
  steps: string[],
): { node: Node | null | undefined; keyOrNode: Node | null | undefined } {
  let node = start;
  let keyOrNode = start;
  for (const step of steps) {
    if (isMap(node)) {
      const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === step);
      if (!pair) break;
      node = pair.value as Node | null;
      keyOrNode = (pair.key as Node) ?? node;
    } else if (isSeq(node)) {
      const item = node.items[Number(step)] as Node | undefined;
      if (!item) break;
      node = item;
      keyOrNode = item;
    } else {
      break;
    }
  }
  return { node, keyOrNode };
}

function firstKey(node: Node | null | undefined): Node | undefined {
  return isMap(node) ? ((node.items[0]?.key as Node | undefined) ?? undefined) : undefined;
}
