// The CLI bundled into a few files by esbuild, in dist/cli/: what `npm run compile` writes after tsc
// (scripts/bundle-cli.mjs), and what bin/module-admission.js writes on its first run from an install
// that has src/ and no dist/ (pre-commit's and the GitHub Action's: esbuild comes with tsx, an optional
// dependency). Why: loading ~280 ES modules one by one through tsx (resolving, reading, transpiling
// each) cost several times the CPU of the bundle on every run.
//
// Every chunk goes to dist/cli/, two levels below the project root, as the modules that find files by
// their own `import.meta.url` expect (src/schema/generated-schema.ts). Each subcommand stays in a
// chunk of its own, loaded when chosen. The optional dependencies stay outside: main.ts says how to
// get @kubernetes/client-node when an install left it out, and tsx runs only the sources.
//
// Output files are written only when their content changed, each through a temporary file and a
// rename, the chunks before the entry points: test files build in parallel, and a CLI another one
// started must never read half a chunk, nor an entry point whose chunks are not there yet. Chunks of
// earlier builds (`bundle-*.js` no longer produced) are removed.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";

const entryPoints = ["src/cli/main.ts", "src/cli/serve-worker.ts"];

/** Bundles the CLI of the project at `root` into `root`/dist/cli with the given esbuild module. */
export async function buildCli(root, esbuild) {
  const outdir = join(root, "dist/cli");
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints,
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
  // esbuild's service process ends with the build, not with the command that runs after it.
  await esbuild.stop?.();
  mkdirSync(outdir, { recursive: true });
  const entries = new Set(["main.js", "serve-worker.js"]);
  const files = [...result.outputFiles].sort(
    (a, b) => Number(entries.has(basename(a.path))) - Number(entries.has(basename(b.path))),
  );
  const written = new Set();
  for (const file of files) {
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
}
