// `npm run compile`'s second step, after tsc: the CLI bundled into a few files by esbuild, written over
// tsc's dist/cli/main.js and dist/cli/serve-worker.js (the paths bin/, the image and the chart run).
// Why: loading ~280 ES modules one by one (resolving, reading and compiling each) was most of what
// `validate` on one file cost. tsc still type-checks and still emits all of dist/ (tests and the bench
// import single modules from it); only the two entry points are replaced.
//
// Every chunk goes to dist/cli/, two levels below the project root, as the modules that find files by
// their own `import.meta.url` expect (src/schema/generated-schema.ts). Each subcommand stays in a
// chunk of its own, loaded when chosen. The optional dependencies stay outside: main.ts says how to
// get @kubernetes/client-node when an install left it out, and tsx runs only the sources.
//
// Output files are written only when their content changed, each through a temporary file and a
// rename: test files build in parallel, and a CLI another one started must never read half a chunk.
// Chunks of earlier builds (`bundle-*.js` no longer produced) are removed.
import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
const outdir = join(root, "dist/cli");

const result = await build({
  absWorkingDir: root,
  entryPoints: ["src/cli/main.ts", "src/cli/serve-worker.ts"],
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  chunkNames: "bundle-[name]-[hash]",
  external: ["@kubernetes/client-node", "tsx"],
  // CommonJS dependencies (ajv, commander) call `require` for Node's own modules.
  banner: {
    js: 'import { createRequire as bundleRequire } from "node:module"; const require = bundleRequire(import.meta.url);',
  },
  legalComments: "eof",
  logLevel: "warning",
  write: false,
});

const written = new Set();
for (const file of result.outputFiles) {
  written.add(file.path);
  let current;
  try {
    current = readFileSync(file.path, "utf8");
  } catch {
    current = undefined;
  }
  if (current === file.text) continue;
  const temporary = `${file.path}.${process.pid}.tmp`;
  writeFileSync(temporary, file.contents);
  renameSync(temporary, file.path);
}
for (const name of readdirSync(outdir)) {
  const path = join(outdir, name);
  if (/^bundle-.*\.js$/.test(basename(name)) && !written.has(path)) rmSync(path, { force: true });
}
// tsc's source maps describe the files the bundle replaced.
for (const entry of ["main.js.map", "serve-worker.js.map"]) rmSync(join(outdir, entry), { force: true });
