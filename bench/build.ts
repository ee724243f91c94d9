import { spawnSync } from "node:child_process";
import { join } from "node:path";

/**
 * Everything the bench runs, compiled as users run it: the project's build (dist/, what `npm start`
 * runs, the CLI bundled as `npm run compile` bundles it) and the bench's own servers and offline baseline (bench/tsconfig.json, into .bench-build/).
 * tsx would wrap every closure in a naming helper and inflate the figures.
 */
export function buildForBench(root: string): void {
  for (const project of ["tsconfig.json", "bench/tsconfig.json"]) {
    const build = spawnSync(
      process.execPath,
      [join(root, "node_modules/typescript/bin/tsc"), "-p", project],
      {
        cwd: root,
        encoding: "utf8",
      },
    );
    if (build.status !== 0) throw new Error(`tsc -p ${project} failed:\n${build.stdout}${build.stderr}`);
  }
  // `npm run compile`'s second step: dist/cli/main.js bundled, as it ships.
  const bundle = spawnSync(process.execPath, [join(root, "scripts/bundle-cli.mjs")], { encoding: "utf8" });
  if (bundle.status !== 0) throw new Error(`bundling failed:\n${bundle.stdout}${bundle.stderr}`);
}
