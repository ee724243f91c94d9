import { checkGoMod } from "../control-plane/go-mod.js";
import { ensureBuilt, goTools, goVersion } from "./go-tools.js";

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
  for (const tool of goTools) {
    try {
      await ensureBuilt(tool, log);
    } catch (error) {
      log(error instanceof Error ? error.message : String(error));
      process.exit(1);
    }
  }
}
