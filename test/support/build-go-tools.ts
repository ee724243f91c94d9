import { checkGoMod } from "../control-plane/go-mod.js";
import { ensureBuilt, type GoTool, goTools, goVersion } from "./go-tools.js";

/**
 * `npm test`'s step before the test files: builds every Go tool the tests run (control plane, helm,
 * oracles) into the cache, once per version, saying what it builds and how far it is. Without Go it says
 * so in one line and the tests that need Go are reported as skipped (`.ci/run` requires Go instead).
 */
const log = (line: string) => console.error(`go-tools: ${line}`);

if (goVersion() === null) {
  log("go not found on PATH: the control-plane, helm and oracle tests will be skipped");
} else {
  const problem = checkGoMod();
  if (problem) {
    log(problem);
    process.exit(1);
  }
  // Two builds at a time: one build leaves a core idle while it downloads modules or links a binary
  // (single-threaded). Tools of one Go module share most of their packages, and Go's build cache does
  // not share a package two builds compile at the same moment, so they build one after the other.
  const byModule = new Map<string, GoTool[]>();
  for (const tool of goTools) byModule.set(tool.module, [...(byModule.get(tool.module) ?? []), tool]);
  const queue = [...byModule.values()];
  const lane = async () => {
    for (let tools = queue.shift(); tools; tools = queue.shift()) {
      for (const tool of tools) await ensureBuilt(tool, log);
    }
  };
  // A failed build lets the other lane's build finish (exiting under it would leave its lock behind).
  const failed = (await Promise.allSettled([lane(), lane()])).filter((lane) => lane.status === "rejected");
  for (const { reason } of failed) log(reason instanceof Error ? reason.message : String(reason));
  if (failed.length > 0) process.exit(1);
}
