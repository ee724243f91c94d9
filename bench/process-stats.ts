import { readdirSync, readFileSync } from "node:fs";

/** Kernel clock ticks per second (`getconf CLK_TCK`): 100 on every Linux this runs on. */
const ticksPerSecond = 100;

/**
 * CPU seconds a process has used so far, all its threads (TLS, GC, libuv pool) included: utime + stime
 * from /proc/<pid>/stat (fields 14 and 15; the command name in field 2 may contain spaces and brackets).
 */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // fields[0] is field 3 (state): utime is field 14, stime field 15.
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

/**
 * The CPU milliseconds between two `cpuSeconds` readings: a whole number of clock ticks. Subtracting the
 * two quotients leaves a float error (ten ticks read as 100.00000000000001 ms, over a 100 ms bound).
 */
export function cpuMsBetween(before: number, after: number): number {
  return (Math.round((after - before) * ticksPerSecond) * 1000) / ticksPerSecond;
}

/**
 * Each thread's CPU so far (ms), by thread id, with its name (`comm`: "node" for the main thread,
 * "V8 DefaultWorke" for V8's helpers, the GC's among them, "libuv-worker", a worker thread's own name).
 */
export function threadCpuMs(pid: number): Map<number, { name: string; ms: number }> {
  const threads = new Map<number, { name: string; ms: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
    } catch {
      continue; // ended since the listing
    }
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    threads.set(Number(tid), {
      name: stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")),
      ms: ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond,
    });
  }
  return threads;
}

/**
 * What each thread spent between two `threadCpuMs` readings, divided by `per` (the reviews sent), most
 * first: "main 12, node 19005 154, ...". A thread that ended between them (a worker replaced) is not in
 * `after`: the process's total has it.
 */
export function threadSpending(
  pid: number,
  before: Map<number, { name: string; ms: number }>,
  after: typeof before,
  per = 1,
): string {
  const spent: [string, number][] = [];
  for (const [tid, { name, ms }] of after) {
    const used = (ms - (before.get(tid)?.ms ?? 0)) / per;
    if (used > 0) spent.push([tid === pid ? "main" : `${name} ${tid}`, used]);
  }
  return spent
    .sort((a, b) => b[1] - a[1])
    .map(([name, ms]) => `${name} ${ms.toFixed(0)}`)
    .join(", ");
}

/** CPU milliseconds of a bare JSON.parse of `body` in this process: the least of five. */
export function bareParseMs(body: string): number {
  let least = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 5; i++) {
    const started = process.cpuUsage();
    JSON.parse(body);
    const used = process.cpuUsage(started);
    least = Math.min(least, (used.user + used.system) / 1000);
  }
  return least;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** The value below which `fraction` of the values lie (nearest rank). */
export function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return (
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))] ?? Number.NaN
  );
}
