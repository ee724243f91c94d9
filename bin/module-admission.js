#!/usr/bin/env node
// The `module-admission` command. A built package (`npm run compile`, then `npm pack`: what the image and a
// release ship) runs dist/. An install straight from this git repository, as pre-commit makes it (3.x packs
// the clone, 4.x installs it from git, neither builds), has src/ and runs it through tsx, an optional
// dependency that such an install includes. Nothing is compiled on install, so no install step can fail.
import { existsSync } from "node:fs";

const built = new URL("../dist/cli/main.js", import.meta.url);
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
