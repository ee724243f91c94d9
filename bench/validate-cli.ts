/**
 * `npm run bench:validate`: `module-admission validate` on 10,000 manifests against its parse-only
 * baseline and kubeconform (bench/offline.ts), alone; `npm run bench` measures the same as part of its results.
 * MANIFESTS and ROUNDS change the defaults (10,000 and 3).
 */
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildForBench } from "./build.js";
import { kubeconform } from "./kubeconform.js";
import { measureOffline } from "./offline.js";

const root = fileURLToPath(new URL("..", import.meta.url));
buildForBench(root);
const result = measureOffline({
  root,
  built: join(root, ".bench-build"),
  total: Number(process.env.MANIFESTS ?? 10_000),
  rounds: Number(process.env.ROUNDS ?? 3),
  kubeconform: await kubeconform(),
});
console.log(
  JSON.stringify(
    { ...result, cores: cpus().length, loadAverage: loadavg().map((load) => Number(load.toFixed(1))) },
    null,
    2,
  ),
);
