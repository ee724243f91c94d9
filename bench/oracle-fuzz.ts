/**
 * `npm run fuzz:oracle [-- family... --count N --seed S]`: the long differential run. Each family's
 * generator makes N cases (default 10,000), Go (test/oracles) and the TypeScript port judge them, and
 * the counts and every kind of disagreement (one example each) are printed. Exits 1 on any
 * disagreement. `npm test` runs the same families shortly (the *differential.e2e.test.ts files).
 */
import { families } from "../test/support/differential/families.js";
import { Random } from "../test/support/differential/random.js";
import { GoOracle } from "../test/support/go-oracle.js";
import { addonOracleTool, ensureBuilt, oracleTool, withoutGo } from "../test/support/go-tools.js";

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args.splice(at, 2)[1]) : fallback;
};
const count = option("count", 10_000);
const seed = option("seed", 1);
const chosen = args.length === 0 ? families : families.filter((f) => args.includes(f.name));
if (withoutGo) {
  console.error(withoutGo);
  process.exit(1);
}
await ensureBuilt(oracleTool, (line) => console.error(line));
await ensureBuilt(addonOracleTool, (line) => console.error(line));

/** A disagreement's kind: its two answers with the quoted parts and numbers blanked. */
const kindOf = (go: unknown, ts: unknown) =>
  JSON.stringify([go, ts])
    .replace(/\\"(?:[^"\\]|\\\\.)*?\\"/g, "Q")
    .replace(/\d+/g, "N")
    .slice(0, 300);

let failed = false;
const oracle = new GoOracle();
for (const family of chosen) {
  const random = new Random(seed);
  const started = Date.now();
  const batch = 2000;
  let cases = 0;
  const kinds = new Map<string, { count: number; example: unknown }>();
  let disagreements = 0;
  /** A family's own counts (templates: not modelled, over budget, Go timeouts), summed. */
  const counts = new Map<string, number>();
  while (cases < count) {
    const inputs = Array.from({ length: Math.min(batch, count - cases) }, () => family.generate(random));
    const run = await family.run(oracle, inputs);
    cases += run.cases;
    for (const [key, value] of Object.entries(run))
      if (key !== "cases" && typeof value === "number") counts.set(key, (counts.get(key) ?? 0) + value);
    disagreements += run.disagreements.length;
    for (const d of run.disagreements) {
      const kind = kindOf(d.go, d.ts);
      const known = kinds.get(kind);
      if (known) known.count++;
      else kinds.set(kind, { count: 1, example: d });
    }
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const extra = [...counts].map(([key, value]) => `, ${key} ${value}`).join("");
  console.log(
    `${family.name}: ${cases} cases, ${disagreements} disagreements, ${kinds.size} kinds${extra} (${seconds} s)`,
  );
  for (const { count: n, example } of kinds.values()) console.log(`  ${n}x ${JSON.stringify(example)}`);
  if (disagreements > 0) failed = true;
}
await oracle.close();
process.exit(failed ? 1 : 0);
