import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/**
 * The folders of src/, lowest first: a folder may import only from folders before it. Written once,
 * here; docs/architecture.md's layout table lists the same folders in the same order (checked below).
 * The order also says what must not happen: the HTTP layer (`server`) sits below the kinds
 * (`resources`), so it cannot learn of them; the protocol (`admission`) sits below the rules' libraries
 * and plugs kinds in through an interface.
 */
export const layerOrder = [
  "generated",
  "base",
  "schema",
  "memo",
  "budget",
  "go",
  "regex",
  "manifests",
  "admission",
  "server",
  "isolation",
  "addon-operator",
  "validation",
  "cel",
  "apiextensions",
  "codegen",
  "kube",
  "resources",
  "offline",
  "reports",
  "cli",
  "playground",
] as const;

/** An import of one module by another, by their folders under src/ (`.` for a file directly in src/). */
export interface FolderImport {
  from: string;
  to: string;
  /** The importing file and the import as written, to name the line to fix. */
  file: string;
  specifier: string;
}

const srcDir = fileURLToPath(new URL("../src", import.meta.url));
/** Where an import of a file outside src/ (a test helper, package.json) leads: never allowed. */
const outsideSrc = "(outside src)";

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|js|mjs)$/.test(entry.name) ? [path] : [];
  });
}

/** The folder of src/ a path lies in; undefined outside src/. */
function folderOf(path: string): string | undefined {
  const rel = relative(srcDir, path);
  if (rel.startsWith("..")) return undefined;
  const parts = rel.split(sep);
  return parts.length > 1 ? (parts[0] as string) : ".";
}

/**
 * What a module imports, read by TypeScript's own import scanner: `import`, `import type`,
 * `export … from` and `import("…")` (in code or in a type), so a type-only dependency counts as much as
 * a value one.
 */
export function importSpecifiers(source: string): string[] {
  return ts.preProcessFile(source, true, true).importedFiles.map((file) => file.fileName);
}

/** Every relative import between folders of src/. */
export function folderImports(): FolderImport[] {
  const imports: FolderImport[] = [];
  for (const file of sourceFiles(srcDir)) {
    const from = folderOf(file) as string;
    for (const specifier of importSpecifiers(readFileSync(file, "utf8"))) {
      if (!specifier.startsWith(".")) continue;
      const to = folderOf(resolve(dirname(file), specifier)) ?? outsideSrc;
      if (to !== from) imports.push({ from, to, file: relative(srcDir, file), specifier });
    }
  }
  return imports;
}

/**
 * What is wrong with a graph of folder imports under an order: every cycle between folders (each
 * strongly connected component of more than one folder, named once), every import up the order, and
 * every folder the order does not place. Empty when the graph is layered.
 */
export function layerProblems(imports: readonly FolderImport[], order: readonly string[]): string[] {
  const problems: string[] = [];
  const rank = new Map(order.map((folder, i) => [folder, i]));
  const folders = new Set(imports.flatMap(({ from, to }) => [from, to]));
  for (const folder of [...folders].sort()) {
    if (folder === outsideSrc) problems.push("a module of src/ imports a file outside src/");
    else if (!rank.has(folder)) problems.push(`folder ${folder} is not in the layer order`);
  }
  for (const cycle of folderCycles(imports))
    problems.push(`import cycle between folders: ${cycle.join(" -> ")}`);
  for (const { from, to, file, specifier } of imports) {
    const [fromRank, toRank] = [rank.get(from), rank.get(to)];
    if (fromRank !== undefined && toRank !== undefined && toRank > fromRank) {
      problems.push(`src/${file} imports ${specifier}: ${from} may not import ${to}, a higher layer`);
    }
  }
  return problems;
}

/** The strongly connected components of more than one folder (Tarjan), each as a closed walk. */
function folderCycles(imports: readonly FolderImport[]): string[][] {
  const edges = new Map<string, Set<string>>();
  for (const { from, to } of imports) {
    if (!edges.has(from)) edges.set(from, new Set());
    (edges.get(from) as Set<string>).add(to);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (folder: string): void => {
    index.set(folder, index.size);
    low.set(folder, index.get(folder) as number);
    stack.push(folder);
    onStack.add(folder);
    for (const next of edges.get(folder) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(folder, Math.min(low.get(folder) as number, low.get(next) as number));
      } else if (onStack.has(next))
        low.set(folder, Math.min(low.get(folder) as number, index.get(next) as number));
    }
    if (low.get(folder) !== index.get(folder)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      component.push(member);
    } while (member !== folder);
    if (component.length > 1) components.push(component.sort());
  };
  for (const folder of [...edges.keys()].sort()) if (!index.has(folder)) visit(folder);
  return components.map((component) => [...component, component[0] as string]);
}

/** The folders docs/architecture.md's layout table names for src/, in its order. */
function documentedOrder(): string[] {
  const doc = readFileSync(new URL("../docs/architecture.md", import.meta.url), "utf8");
  return [...doc.matchAll(/^\| `src\/([a-z0-9-]+)\/` \|/gm)].map((match) => match[1] as string);
}

describe("the import graph of src/", () => {
  it("has no cycle between folders and no import up the layer order", () => {
    assert.deepEqual(layerProblems(folderImports(), layerOrder), []);
  });

  it("reads every kind of import, type-only and dynamic ones included", () => {
    const source = [
      'import type { A } from "../a/a.js";',
      'import { type B, c } from "../b/b.js";',
      'export { d } from "../d/d.js";',
      'export type { E } from "../e/e.js";',
      'const f = await import("../f/f.js");',
      'type G = import("../g/g.js").G;',
      'import "../h/h.js";',
    ].join("\n");
    assert.deepEqual(importSpecifiers(source).sort(), [
      "../a/a.js",
      "../b/b.js",
      "../d/d.js",
      "../e/e.js",
      "../f/f.js",
      "../g/g.js",
      "../h/h.js",
    ]);
    assert.ok(folderImports().length > 300, "the scan of src/ found almost no imports between folders");
  });

  it("places every folder of src/, and only those", () => {
    const present = readdirSync(srcDir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    assert.deepEqual([...layerOrder].sort(), present);
  });

  it("is documented in docs/architecture.md, folder by folder, in the same order", () => {
    assert.deepEqual(documentedOrder(), [...layerOrder]);
  });

  it("rejects a graph with a cycle, an upward import, an unplaced folder and an import out of src/", () => {
    const edge = (from: string, to: string): FolderImport => ({
      from,
      to,
      file: `${from}/x.ts`,
      specifier: `../${to}/y.js`,
    });
    const problems = layerProblems(
      [
        edge("low", "high"),
        edge("high", "low"),
        edge("high", "middle"),
        edge("middle", "stray"),
        edge("middle", outsideSrc),
      ],
      ["low", "middle", "high"],
    );
    assert.deepEqual(problems, [
      "a module of src/ imports a file outside src/",
      "folder stray is not in the layer order",
      "import cycle between folders: high -> low -> high",
      "src/low/x.ts imports ../high/y.js: low may not import high, a higher layer",
    ]);
    assert.deepEqual(
      layerProblems([edge("high", "low"), edge("high", "middle")], ["low", "middle", "high"]),
      [],
    );
  });
});
