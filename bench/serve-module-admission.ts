import { serve } from "../src/cli/serve.js";
import { setConfigValidatorCache } from "../src/resources/module/config-validator-cache.js";

/**
 * `module-admission serve` as the benchmark starts it; BENCH_CONFIG_CACHE=off turns the cache of
 * compiled config validators off (in every worker: they run this file too), to measure what it saves.
 * Started with --expose-gc and an IPC channel, it answers the message "memory" with its heap used after
 * a forced garbage collection and its resident set size, for the soak.
 */
if (process.env.BENCH_CONFIG_CACHE === "off") setConfigValidatorCache(false);
process.on("message", (message) => {
  if (message !== "memory") return;
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const { heapUsed, rss } = process.memoryUsage();
  process.send?.({ heapUsed: gc ? heapUsed : null, rss });
});
// The IPC channel must not keep the process alive once serve has shut down.
process.channel?.unref();
await serve(process.argv.slice(2));
