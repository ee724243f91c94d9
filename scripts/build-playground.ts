// `npm run build:playground`: the playground, a static page (dist/playground/: index.html, app.js,
// style.css) that judges pasted objects with the offline engine of `validate`, bundled from the same
// modules for the browser. What differs from the CLI is only at the bundle's edges:
// - Node's built-ins the engine imports are replaced by stand-ins (src/playground/node/): the files the
//   engine reads (schema sources, generated schemas, the example addon-operator module trees) are embedded
//   here and read from memory; crypto is Web Crypto and @noble/hashes' SHA-256; node:buffer is the
//   `buffer` package (the engine imports Buffer where it uses it; the build refuses a module that does not).
// - ajv compiles no code in the page: every schema the engine compiles (each kind's generated schema,
//   its editor schema, and every list-items and map-values part the structure gate may check on its
//   own) is compiled here into ajv's standalone code, with the options src/validation/structure.ts
//   uses, so the page's Content-Security-Policy needs no `unsafe-eval`.
// The examples are the repository's own (examples/): nothing from the corpus (../shared) is bundled.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { _, Ajv } from "ajv";
import standaloneCode from "ajv/dist/standalone/index.js";
import addFormats from "ajv-formats";
import { build, type Plugin } from "esbuild";
import { buildEditorSchema } from "../src/codegen/editor-schema.js";
import { formats } from "../src/playground/structure-formats.js";
import { bundledTrees } from "../src/playground/trees.js";
import { validatorKey } from "../src/playground/validator-key.js";
import { loadSchemaSources } from "../src/schema/schema-source.js";
import { checkerOptions } from "../src/validation/structure.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const outdir = join(root, "dist/playground");
const workdir = join(root, "dist/playground-build");
/** Where the engine's modules believe they are: their `import.meta.url` (two levels below the root). */
const virtualRoot = "/playground";

/** The embedded files, by the absolute path the engine reads them at. */
function embeddedFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  const add = (dir: string, keep: (name: string) => boolean) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true, recursive: true })) {
      if (!entry.isFile() || !keep(entry.name)) continue;
      const path = relative(root, join(entry.parentPath, entry.name));
      files[`${virtualRoot}/${path}`] = readFileSync(join(root, path), "utf8");
    }
  };
  add("schemas", (name) => name.endsWith(".yaml") || name.endsWith(".schema.json"));
  for (const tree of bundledTrees)
    for (const dir of [tree.modulesDir, tree.globalHooksDir]) if (dir) add(dir, () => true);
  return files;
}

/** The schemas the engine compiles: each kind's generated and editor schemas, and their parts. */
function compiledSchemas(): object[] {
  const tops: object[] = [];
  for (const source of loadSchemaSources(join(root, "schemas"))) {
    tops.push(buildEditorSchema(source));
    const dist = join(root, "schemas/dist", `${source.name}.schema.json`);
    tops.push(JSON.parse(readFileSync(dist, "utf8")) as object);
  }
  const all = new Map<string, object>();
  const selfContained = (schema: object) =>
    !/"\$(ref|dynamicRef|recursiveRef|id)"\s*:/.test(JSON.stringify(schema));
  const visit = (node: unknown, top: boolean) => {
    if (node === null || typeof node !== "object") return;
    if (Array.isArray(node)) {
      for (const item of node) visit(item, false);
      return;
    }
    const record = node as Record<string, unknown>;
    if (top) all.set(JSON.stringify(node), node);
    // The parts src/validation/structure-view.ts may cut out and check one by one.
    for (const key of ["items", "additionalProperties"]) {
      const part = record[key];
      if (part !== null && typeof part === "object" && !Array.isArray(part) && selfContained(part))
        all.set(JSON.stringify(part), part);
    }
    for (const value of Object.values(record)) visit(value, false);
  };
  for (const top of tops) visit(top, true);
  return [...all.values()];
}

/** One CommonJS module per validator (ajv's standalone code), and the table the page looks them up in. */
function writeValidators(): string {
  const dir = join(workdir, "validators");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const formatsModule = join(root, "src/playground/structure-formats.ts");
  const entries: string[] = [];
  let index = 0;
  for (const schema of compiledSchemas()) {
    const text = JSON.stringify(schema);
    for (const allErrors of [false, true]) {
      const ajv = new Ajv({
        ...checkerOptions,
        allErrors,
        verbose: allErrors,
        code: { ...checkerOptions.code, source: true, formats: _`require(${formatsModule}).formats` },
      });
      addFormats.default(ajv);
      ajv.addFormat("uri", formats.uri);
      const { $id: _id, ...withoutId } = schema as Record<string, unknown>;
      const code = standaloneCode.default(ajv, ajv.compile(withoutId));
      const file = join(dir, `v${index}.cjs`);
      writeFileSync(file, code);
      entries.push(`${JSON.stringify(validatorKey(allErrors, text))}: require(${JSON.stringify(file)})`);
      index++;
    }
  }
  const table = join(workdir, "validators.cjs");
  writeFileSync(table, `exports.validators = {\n${entries.join(",\n")}\n};\n`);
  return table;
}

/** The examples the page offers: the repository's own, each kind, an update, the ConfigMap. */
function examples(): { name: string; object: string; old?: string; tree?: string }[] {
  const read = (path: string) => readFileSync(join(root, path), "utf8");
  const reviewObject = (path: string) =>
    `${JSON.stringify((JSON.parse(read(path)) as { request: { object: unknown } }).request.object, null, 2)}\n`;
  return [
    { name: "Modules (examples/modules/redis.yaml)", object: read("examples/modules/redis.yaml") },
    {
      name: "Module, custom (examples/modules/custom-app.yaml)",
      object: read("examples/modules/custom-app.yaml"),
    },
    {
      name: "Module, the README's invalid example",
      object: reviewObject("examples/create-invalid-module.json"),
    },
    {
      name: "Module, Helm (examples/create-helm-module.json)",
      object: reviewObject("examples/create-helm-module.json"),
    },
    {
      name: "ModuleTemplate, invalid (examples/create-invalid-moduletemplate.json)",
      object: reviewObject("examples/create-invalid-moduletemplate.json"),
    },
    { name: "Workspace", object: read("examples/playground/workspace.yaml") },
    { name: "ModuleReleaseMeta", object: read("examples/playground/modulereleasemeta.yaml") },
    {
      name: "ModuleReleaseMeta, an update that downgrades a channel",
      object: read("examples/playground/modulereleasemeta.yaml"),
      old: read("examples/playground/modulereleasemeta-old.yaml"),
    },
    {
      name: "ConfigMap/addon-operator (examples/addon-operator/modules)",
      object: read("examples/playground/addon-operator-configmap.yaml"),
      tree: "echo",
    },
    {
      name: "ConfigMap/addon-operator (examples/addon-operator-cluster: global hooks, a CEL rule)",
      object: read("examples/playground/addon-operator-cluster-configmap.yaml"),
      tree: "cluster",
    },
  ];
}

const nodeStandIns = ["fs", "path", "url", "os", "net", "util", "crypto"];

function playgroundPlugin(validators: string): Plugin {
  const virtual: Record<string, string> = {
    "virtual:playground-files": `export const files = ${JSON.stringify(embeddedFiles())};`,
    "virtual:playground-examples": `export const examples = ${JSON.stringify(examples())};`,
    "virtual:playground-validators": `export { validators } from ${JSON.stringify(validators)};`,
  };
  return {
    name: "playground",
    setup(plugin) {
      plugin.onResolve({ filter: /^node:/ }, (args) => {
        const name = args.path.slice("node:".length);
        if (name === "buffer") return { path: join(root, "node_modules/buffer/index.js") };
        if (!nodeStandIns.includes(name)) return { errors: [{ text: `no stand-in for ${args.path}` }] };
        return { path: join(root, `src/playground/node/${name}.ts`) };
      });
      plugin.onResolve({ filter: /^(ajv|ajv-formats)$/ }, (args) => ({
        path: join(root, `src/playground/${args.path}.ts`),
      }));
      // The engine imports Buffer where it uses it (node:buffer, the `buffer` package here): a module
      // that used Node's global one would fail only in the page, so the build refuses it.
      plugin.onLoad({ filter: /\/src\/.*\.ts$/ }, (args) => {
        const text = readFileSync(args.path, "utf8");
        if (/\bBuffer\./.test(text) && !/import \{[^}]*\bBuffer\b[^}]*\} from "node:buffer"/.test(text))
          return {
            errors: [
              { text: `${relative(root, args.path)} uses Buffer without importing it from node:buffer` },
            ],
          };
        return undefined;
      });
      plugin.onResolve({ filter: /^virtual:/ }, (args) => ({ path: args.path, namespace: "virtual" }));
      plugin.onLoad({ filter: /.*/, namespace: "virtual" }, (args) => ({
        contents: virtual[args.path] ?? "",
        loader: "js",
        resolveDir: root,
      }));
    },
  };
}

/**
 * The page's policy: its own script and style, nothing else; no connection anywhere (the verdict is
 * computed in the page, the share link lives in the fragment), no eval.
 */
export const contentSecurityPolicy =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'none'; " +
  "base-uri 'none'; form-action 'none'";

function writeAtomically(path: string, content: string | Uint8Array): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, content);
  renameSync(temporary, path);
}

mkdirSync(outdir, { recursive: true });
mkdirSync(workdir, { recursive: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: ["src/playground/main.ts"],
  bundle: true,
  format: "iife",
  platform: "browser",
  target: "es2022",
  minify: true,
  legalComments: "none",
  write: false,
  logLevel: "warning",
  define: { "import.meta.url": JSON.stringify(`file://${virtualRoot}/src/bundle/app.js`) },
  plugins: [playgroundPlugin(writeValidators())],
});
const [bundle] = result.outputFiles;
if (!bundle) throw new Error("esbuild wrote no bundle");
writeAtomically(join(outdir, "app.js"), bundle.contents);
writeAtomically(join(outdir, "style.css"), readFileSync(join(root, "src/playground/style.css")));
const page = readFileSync(join(root, "src/playground/index.html"), "utf8").replace(
  "CONTENT_SECURITY_POLICY",
  contentSecurityPolicy,
);
writeAtomically(join(outdir, "index.html"), page);
console.log(`dist/playground/: app.js ${bundle.contents.length} bytes`);
