// `npm run compile`'s second step, after tsc: the CLI bundled by esbuild (bin/build-cli.mjs), written
// over tsc's dist/cli/main.js and dist/cli/serve-worker.js (the paths bin/, the image and the chart run).
// tsc still type-checks and still emits all of dist/ (tests and the bench import single modules from
// it); only the two entry points are replaced.
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import { buildCli } from "../bin/build-cli.mjs";

await buildCli(fileURLToPath(new URL("..", import.meta.url)), esbuild);
