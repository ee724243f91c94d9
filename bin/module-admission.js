#!/usr/bin/env node
// The `module-admission` command. A built package (`npm run compile`, then `npm pack`: what the image and a
// release ship) runs dist/. An install straight from this git repository, as pre-commit makes it (3.x packs
// the clone, 4.x installs it from git) and the GitHub Action's (`npm ci --omit=dev`), has src/ and no
// dist/: nothing is compiled on install, so no install step can fail. Its first run bundles src/ into
// dist/cli/ with esbuild (bin/build-cli.mjs; esbuild comes with tsx, an optional dependency) and every
// run after it runs that bundle: a few times less CPU than src/ through tsx on every run. Where the
// bundle cannot be written (a read-only install) or esbuild is missing, src/ runs through tsx.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";

const built = new URL("../dist/cli/main.js", import.meta.url);

/** esbuild, hoisted beside tsx or below it. */
async function esbuildModule() {
  const fromPackage = createRequire(new URL("../package.json", import.meta.url));
  let path;
  try {
    path = fromPackage.resolve("esbuild");
  } catch {
    path = createRequire(fromPackage.resolve("tsx/package.json")).resolve("esbuild");
  }
  return import(pathToFileURL(path).href);
}

if (!existsSync(built)) {
  try {
    const { buildCli } = await import("./build-cli.mjs");
    await buildCli(fileURLToPath(new URL("..", import.meta.url)), await esbuildModule());
  } catch {
    // Not built: src/ runs through tsx below.
  }
}
if (existsSync(built)) {
  await import(built.href);
} else {
  let register;
  try {
    ({ register } = await import("tsx/esm/api"));
  } catch {
    process.stderr.write(
      "module-admission: dist/ is not built and tsx (an optional dependency) is missing: run `npm run compile`, or install without --omit=optional\n",
    );
    process.exit(2);
  }
  register();
  await import(new URL("../src/cli/main.ts", import.meta.url).href);
}
