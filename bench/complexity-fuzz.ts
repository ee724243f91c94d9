import { parseArgs } from "node:util";
import { fuzzKinds, growthsOf, type Measurement, measure, warmUp } from "../test/support/complexity-fuzz.js";

/**
 * `npm run fuzz`: the full complexity fuzz of issue 21. Every array, map and string field of every
 * kind is grown by 10x steps from 10 while the review's body stays within the 7 MiB cap, and each
 * review's CPU (JSON parsing and the handler, as the server spends it) is measured. Reported: the
 * costliest reviews, every review over its bound (100 ms up to 3 MiB, what the API server can send;
 * 250 ms up to 7 MiB) and every step whose cost grew more than 20x for 10x the input (with 5 ms of
 * slack, so that timer noise on small figures does not count). Exit 1 when any is found. CPU time on a
 * shared machine varies: `--repeat` takes the least of several runs of each review.
 */
const { values } = parseArgs({
  options: { kind: { type: "string" }, repeat: { type: "string", default: "1" } },
});
const repeat = Number(values.repeat);
const mib = 1024 * 1024;
const all: Measurement[] = [];
const overBound: Measurement[] = [];
const superlinear: string[] = [];
for (const kind of fuzzKinds()) {
  if (values.kind && kind.name !== values.kind) continue;
  await warmUp(kind);
  const growths = growthsOf(kind);
  let kindWorst: Measurement | undefined;
  for (const growth of growths) {
    let previous: Measurement | undefined;
    for (let n = 10; ; n *= 10) {
      let best: Measurement | undefined;
      for (let r = 0; r < repeat; r++) {
        const result = await measure(kind, growth, n);
        if (!best || result.cpuMs < best.cpuMs) best = result;
      }
      const result = best as Measurement;
      if (result.bodyBytes > 7 * mib) break;
      all.push(result);
      const bound = result.bodyBytes <= 3 * mib ? 100 : 250;
      if (result.cpuMs > bound) overBound.push(result);
      if (previous && result.cpuMs > 20 * previous.cpuMs + 5) {
        superlinear.push(
          `${result.kind} ${result.field} (${result.shape}): ${previous.n} → ${n}: ${previous.cpuMs.toFixed(1)} → ${result.cpuMs.toFixed(1)} ms`,
        );
      }
      if (!kindWorst || result.cpuMs > kindWorst.cpuMs) kindWorst = result;
      previous = result;
      if (n >= 10_000_000) break;
    }
  }
  const w = kindWorst as Measurement;
  console.log(
    `${kind.name}: ${growths.length} fields, ${all.filter((m) => m.kind === kind.name).length} reviews; most CPU ${w.cpuMs.toFixed(1)} ms at ${w.field} × ${w.n} (${(w.bodyBytes / mib).toFixed(2)} MiB)`,
  );
}
const row = (m: Measurement) =>
  `  ${m.kind} ${m.field} (${m.shape}) × ${m.n}: ${(m.bodyBytes / mib).toFixed(2)} MiB, ${m.cpuMs.toFixed(1)} ms, ${m.response.allowed ? "allowed" : `denied ${m.response.status?.details?.causes?.[0]?.message?.slice(0, 80) ?? m.response.status?.message?.slice(0, 80)}`}`;
console.log("\nCostliest reviews:");
for (const m of [...all].sort((a, b) => b.cpuMs - a.cpuMs).slice(0, 10)) console.log(row(m));
console.log(`\nOver the bound (100 ms to 3 MiB, 250 ms to 7 MiB): ${overBound.length}`);
for (const m of overBound) console.log(row(m));
console.log(`Grew more than 20x for 10x the input: ${superlinear.length}`);
for (const line of superlinear) console.log(`  ${line}`);
process.exitCode = overBound.length + superlinear.length > 0 ? 1 : 0;
