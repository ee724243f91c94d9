import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/**
 * `npm run test:unit`: every `*.test.ts` under test/ that is not `*.e2e.test.ts`, in this one process.
 * `node --test` runs each file in a process of its own, and with tsx that start costs about a second a
 * file on this 2-core machine, more than most unit files take; Node 20 has no way to run them in one
 * process (`--experimental-test-isolation=none` came with Node 22.8). Unit files start no server and no
 * child process, so they share one safely; `npm test` still runs every file isolated.
 */
const testDir = fileURLToPath(new URL("..", import.meta.url));

function unitFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return unitFiles(path);
    return entry.name.endsWith(".test.ts") && !entry.name.endsWith(".e2e.test.ts") ? [path] : [];
  });
}

const only = process.argv.slice(2);
const files = unitFiles(testDir)
  .filter((file) => only.length === 0 || only.some((part) => relative(testDir, file).includes(part)))
  .sort();
if (files.length === 0) {
  console.error(
    `no unit test files under ${testDir}${only.length > 0 ? ` matching ${only.join(", ")}` : ""}`,
  );
  process.exit(2);
}
for (const file of files) await import(pathToFileURL(file).href);
