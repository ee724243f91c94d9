import { writeFileSync } from "node:fs";

/**
 * Preloaded with `node --import` into the processes `bench/offline.ts` compares: at exit, writes the
 * process's CPU time (process.cpuUsage(), microseconds) to $BENCH_CPU_FILE. It adds nothing before.
 */
const file = process.env.BENCH_CPU_FILE;
if (file) process.once("exit", () => writeFileSync(file, JSON.stringify(process.cpuUsage())));
