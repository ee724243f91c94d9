import { cronScheduleError } from "../../../src/go/robfig-cron/parse.js";
import type { GoOracle } from "../go-oracle.js";
import type { DifferentialRun, Random } from "./random.js";

/**
 * Cron schedules as users write a Workspace's hibernation schedule: five or six fields of numbers,
 * names, ranges, steps and lists, descriptors, `@every` durations, `TZ=`/`CRON_TZ=` prefixes, and
 * their near misses (out of range, bad names and durations, stray whitespace).
 */
const atoms = [
  "0",
  "5",
  "7",
  "12",
  "13",
  "23",
  "24",
  "31",
  "32",
  "59",
  "60",
  "1",
  "01",
  "+3",
  "-1",
  "x",
  "",
  "99999999999999999999",
  "007",
];
const names = ["mon", "MON", "Fri", "sun", "sat", "jan", "JUL", "dec", "funday", "ja"];
const durations = [
  "1h30m",
  "1.5s",
  "0",
  "-1s",
  "1d",
  "1",
  "",
  "5m",
  "1h1h",
  ".5h",
  "1µs",
  "1us",
  "+2h",
  "9999999999h",
  "1e3s",
  "h",
  "2562047h47m16.854775807s",
  "2562047h47m16.854775808s",
];
const zones = [
  "UTC",
  "Europe/Berlin",
  "America/New_York",
  "Local",
  "",
  "Mars/Olympus",
  "europe/berlin",
  "US/Pacific",
  "EST5EDT",
  "Etc/GMT+5",
  "../etc/passwd",
  "GMT",
  "Asia/Kolkata",
];
const descriptors = [
  "@yearly",
  "@annually",
  "@monthly",
  "@weekly",
  "@daily",
  "@midnight",
  "@hourly",
  "@sometimes",
  "@DAILY",
  "@every",
];
const spaces = [" ", " ", " ", "  ", "\t", "\n"];

function atom(random: Random): string {
  return random.chance(0.25) ? random.pick(names) : random.pick(atoms);
}

function field(random: Random): string {
  const r = random.next();
  let expr: string;
  if (r < 0.3) expr = random.pick(["*", "*", "?", atom(random)]);
  else if (r < 0.55) expr = `${atom(random)}-${atom(random)}`;
  else if (r < 0.7)
    expr = `${random.pick(["*", atom(random), `${atom(random)}-${atom(random)}`])}/${random.pick(atoms)}`;
  else if (r < 0.8) expr = `${atom(random)}-${atom(random)}-${atom(random)}`;
  else if (r < 0.85) expr = `*/${atom(random)}/${atom(random)}`;
  else expr = atom(random);
  return random.chance(0.15) ? `${expr},${field(random)}` : expr;
}

export function generateCron(random: Random): string {
  const kind = random.next();
  let spec: string;
  if (kind < 0.15) spec = random.pick(descriptors);
  else if (kind < 0.25) spec = `@every ${random.pick(durations)}`;
  else {
    const n = random.chance(0.8) ? random.int(5, 6) : random.int(0, 8);
    spec = Array.from({ length: n }, () => field(random))
      .map((f, i) => (i === 0 ? f : `${random.pick(spaces)}${f}`))
      .join("");
  }
  if (random.chance(0.15))
    spec = `${random.pick(["TZ=", "CRON_TZ="])}${random.pick(zones)}${random.pick(["", " ", " ", "  "])}${spec}`;
  if (random.chance(0.1)) spec = `${random.pick(spaces)}${spec}${random.pick(["", " ", "\t"])}`;
  return spec;
}

/** robfig's verdict (its error text, "" when it parses; a panic as its own answer) from Go and the port. */
export async function cronDifferential(oracle: GoOracle, specs: readonly string[]): Promise<DifferentialRun> {
  const answers = await oracle.askAll(
    "cron",
    specs.map((spec) => ({ spec })),
  );
  const run: DifferentialRun = { family: "robfig/cron", cases: specs.length, disagreements: [] };
  specs.forEach((spec, i) => {
    const answer = answers[i] as (typeof answers)[number];
    const ts = cronScheduleError(spec) ?? "";
    // robfig panics on a `TZ=` prefix with no space after it; the port names that case.
    if ("panic" in answer) {
      if (!ts.startsWith("a time zone must be followed by a space"))
        run.disagreements.push({ input: spec, go: answer, ts });
      return;
    }
    const go = "timeout" in answer ? answer : (answer.error ?? "");
    if (go !== ts) run.disagreements.push({ input: spec, go, ts });
  });
  return run;
}
