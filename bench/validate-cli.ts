/**
 * `npm run bench:validate`: `module-admission validate` on 10,000 manifests against its parse-only
 * baseline (bench/offline.ts), alone; `npm run bench` measures the same as part of its results.
 * MANIFESTS and ROUNDS change the defaults (10,000 and 3).
 */
import { spawnSync } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { measureOffline } from "./offline.js";

const root = fileURLToPath(new URL("..", import.meta.url));
for (const project of ["tsconfig.json", "bench/tsconfig.json"]) {
  const build = spawnSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", project], {
    cwd: root,
    encoding: "utf8",
  });
  if (build.status !== 0) throw new Error(`tsc -p ${project} failed:\n${build.stdout}${build.stderr}`);
}
const result = measureOffline({
  root,
  built: join(root, ".bench-build"),
  total: Number(process.env.MANIFESTS ?? 10_000),
  rounds: Number(process.env.ROUNDS ?? 3),
});
console.log(
  JSON.stringify(
    { ...result, cores: cpus().length, loadAverage: loadavg().map((load) => Number(load.toFixed(1))) },
    null,
    2,
  ),
);
