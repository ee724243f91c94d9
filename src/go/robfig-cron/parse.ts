import { parseGoDuration } from "../time/duration.js";
import { loadLocationError } from "../time/location.js";

/**
 * Whether a schedule parses as robfig/cron v3's parser (parser.go) parses it, with the options the
 * Forkspacer operator passes for Workspace schedules (pkg/constants/cron: SecondOptional | Minute | Hour
 * | Dom | Month | Dow | Descriptor): 5 or 6 fields, or a descriptor such as `@daily` or `@every 1h30m`,
 * after an optional `TZ=`/`CRON_TZ=` location. Returns robfig's error text, or undefined when it parses.
 * Only the verdict is needed (the webhook checks schedules; it never runs them), so no bits are kept.
 * `charge` is told of the work as it goes: a unit a character, and `itemUnits` a comma-separated item
 * (a schedule may hold hundreds of thousands).
 */
export function cronScheduleError(
  spec: string,
  charge: (units: number) => void = () => {},
): string | undefined {
  charge(spec.length);
  if (spec.length === 0) return "empty spec string";
  let rest = spec;
  if (rest.startsWith("TZ=") || rest.startsWith("CRON_TZ=")) {
    const space = rest.indexOf(" ");
    // robfig slices spec[eq+1:-1] here and panics; the operator's webhook answers with an error.
    if (space < 0) return `a time zone must be followed by a space and the schedule: ${spec}`;
    const location = rest.slice(rest.indexOf("=") + 1, space);
    const problem = loadLocationError(location);
    if (problem) return `provided bad location ${location}: ${problem}`;
    rest = rest.slice(space).trim();
  }
  if (rest.startsWith("@")) return descriptorError(rest);
  const fields = rest.split(/\s+/).filter((field) => field !== "");
  if (fields.length < 5 || fields.length > 6) {
    return `expected 5 to 6 fields, found ${fields.length}: [${fields.join(" ")}]`;
  }
  const all = fields.length === 5 ? ["0", ...fields] : fields;
  for (const [i, field] of all.entries()) {
    const error = fieldError(field, bounds[i] as Bounds, charge);
    if (error) return error;
  }
  return undefined;
}

/** Units of the work budget per item of a field: a plain number, or a range, step or name. */
export const itemUnits = { plain: 8, other: 60 } as const;

/** A plain decimal item (at most six digits: nonNegativeInt caps larger ones at 1,000,000 in its messages). */
const plainItem = /^[0-9]{1,6}$/;

interface Bounds {
  min: number;
  max: number;
  names?: Record<string, number>;
}

const months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const days = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];
const bounds: Bounds[] = [
  { min: 0, max: 59 },
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: Object.fromEntries(months.map((name, i) => [name, i + 1])) },
  { min: 0, max: 6, names: Object.fromEntries(days.map((name, i) => [name, i])) },
];

function fieldError(field: string, r: Bounds, charge: (units: number) => void): string | undefined {
  for (const expr of field.split(",")) {
    if (expr === "") continue;
    let error: string | undefined;
    if (plainItem.test(expr)) {
      // rangeError's answer for a single number, without its splits and BigInt.
      charge(itemUnits.plain);
      const value = Number(expr);
      if (value < r.min) error = `beginning of range (${value}) below minimum (${r.min}): ${expr}`;
      else if (value > r.max) error = `end of range (${value}) above maximum (${r.max}): ${expr}`;
    } else {
      charge(itemUnits.other);
      error = rangeError(expr, r);
    }
    if (error) return error;
  }
  return undefined;
}

function rangeError(expr: string, r: Bounds): string | undefined {
  const rangeAndStep = expr.split("/");
  const lowAndHigh = (rangeAndStep[0] ?? "").split("-");
  let start: number;
  let end: number;
  if (lowAndHigh[0] === "*" || lowAndHigh[0] === "?") {
    [start, end] = [r.min, r.max];
  } else {
    const low = intOrName(lowAndHigh[0] ?? "", r.names);
    if (typeof low === "string") return low;
    start = low;
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) {
      const high = intOrName(lowAndHigh[1] ?? "", r.names);
      if (typeof high === "string") return high;
      end = high;
    } else return `too many hyphens: ${expr}`;
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    const parsed = nonNegativeInt(rangeAndStep[1] ?? "");
    if (typeof parsed === "string") return parsed;
    step = parsed;
    if (lowAndHigh.length === 1) end = r.max;
  } else if (rangeAndStep.length > 2) return `too many slashes: ${expr}`;
  if (start < r.min) return `beginning of range (${start}) below minimum (${r.min}): ${expr}`;
  if (end > r.max) return `end of range (${end}) above maximum (${r.max}): ${expr}`;
  if (start > end) return `beginning of range (${start}) beyond end of range (${end}): ${expr}`;
  if (step === 0) return `step of range should be a positive number: ${expr}`;
  return undefined;
}

function intOrName(expr: string, names: Record<string, number> | undefined): number | string {
  const named = names?.[expr.toLowerCase()];
  return named ?? nonNegativeInt(expr);
}

/** Go's strconv.Atoi (an optional sign, decimal digits, within int64), then robfig's sign check. */
function nonNegativeInt(expr: string): number | string {
  if (!/^[+-]?[0-9]+$/.test(expr)) {
    return `failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: invalid syntax`;
  }
  const value = BigInt(expr);
  if (value > 9223372036854775807n || value < -9223372036854775808n) {
    return `failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: value out of range`;
  }
  if (value < 0n) return `negative number (${value}) not allowed: ${expr}`;
  // Anything above 63 fails the range checks after this; the exact size no longer matters.
  return value > 1_000_000n ? 1_000_000 : Number(value);
}

const descriptors = new Set([
  "@yearly",
  "@annually",
  "@monthly",
  "@weekly",
  "@daily",
  "@midnight",
  "@hourly",
]);

function descriptorError(descriptor: string): string | undefined {
  if (descriptors.has(descriptor)) return undefined;
  const every = "@every ";
  if (descriptor.startsWith(every)) {
    const duration = parseGoDuration(descriptor.slice(every.length));
    return duration.ok ? undefined : `failed to parse duration ${descriptor}: ${duration.error}`;
  }
  return `unrecognized descriptor: ${descriptor}`;
}
