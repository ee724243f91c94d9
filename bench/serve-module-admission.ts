import { serve } from "../src/cli/serve.js";
import { setConfigValidatorCache } from "../src/resources/module/config-validator-cache.js";

/**
 * `module-admission serve` as the benchmark starts it; BENCH_CONFIG_CACHE=off turns the cache of
 * compiled config validators off (in every worker: they run this file too), to measure what it saves.
 */
if (process.env.BENCH_CONFIG_CACHE === "off") setConfigValidatorCache(false);
await serve(process.argv.slice(2));
