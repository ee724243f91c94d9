// Preloaded (`node --import`) into a command whose peak memory a test measures: on exit, writes the
// process's maximum resident set size in KiB (getrusage's ru_maxrss) to $MAX_RSS_FILE.
import { writeFileSync } from "node:fs";

process.on("exit", () => {
  if (process.env.MAX_RSS_FILE)
    writeFileSync(process.env.MAX_RSS_FILE, String(process.resourceUsage().maxRSS));
});
