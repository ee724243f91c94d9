/**
 * goyaml's timestamp resolution (resolve.go, parseTimestamp): a plain scalar starting `YYYY-` that Go's
 * time.Parse reads with one of `2006-1-2T15:4:5.999999999Z07:00`, the same with a lower-case `t`,
 * `2006-1-2 15:4:5.999999999` (UTC) or `2006-1-2`. Month and day take one or two digits, hours,
 * minutes and seconds too; the fraction takes any number of digits after `.` or `,` (nanoseconds
 * kept); the zone is `Z` or `±hh:mm`; each field is range-checked, the day against its month.
 *
 * gopkg.in/yaml.v3 decodes such a scalar into a time.Time when the target is `any`, and JSON then
 * writes it in RFC 3339 with nanoseconds (`2025-01-01` becomes `2025-01-01T00:00:00Z`): this is that
 * text. goyaml.v2 (sigs.k8s.io/yaml) keeps the scalar's own text instead.
 */
export class GoTimestamp {
  constructor(
    /** The time as encoding/json writes a time.Time: RFC 3339, trailing zeros of the fraction dropped. */
    readonly json: string,
  ) {}
}

export function goYamlTimestamp(text: string): GoTimestamp | undefined {
  if (!/^[0-9]{4}-/.test(text)) return undefined;
  for (const separator of ["T", "t", " ", undefined] as const) {
    const parsed = parse(text, separator);
    if (parsed) return parsed;
  }
  return undefined;
}

const daysIn = (month: number, year: number): number => {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
};

/** Go's getnum(s, false): one digit, or two when the second is a digit too. */
function num(s: string, at: number): { value: number; next: number } | undefined {
  const digit = (i: number) => /[0-9]/.test(s[i] ?? "");
  if (!digit(at)) return undefined;
  if (!digit(at + 1)) return { value: s.charCodeAt(at) - 48, next: at + 1 };
  return { value: (s.charCodeAt(at) - 48) * 10 + s.charCodeAt(at + 1) - 48, next: at + 2 };
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** One layout: the date, then (with a separator) the time, its fraction and, unless " ", the zone. */
function parse(s: string, separator: "T" | "t" | " " | undefined): GoTimestamp | undefined {
  const year = Number(s.slice(0, 4));
  let i = 5;
  const month = num(s, i);
  if (!month || s[month.next] !== "-") return undefined;
  const day = num(s, month.next + 1);
  if (!day) return undefined;
  i = day.next;
  if (month.value < 1 || month.value > 12) return undefined;
  let time = "00:00:00";
  let zone = "Z";
  if (separator !== undefined) {
    if (s[i] !== separator) return undefined;
    const hour = num(s, i + 1);
    if (!hour || s[hour.next] !== ":") return undefined;
    const minute = num(s, hour.next + 1);
    if (!minute || s[minute.next] !== ":") return undefined;
    const second = num(s, minute.next + 1);
    if (!second) return undefined;
    i = second.next;
    if (hour.value >= 24 || minute.value >= 60 || second.value >= 60) return undefined;
    let fraction = "";
    if ((s[i] === "." || s[i] === ",") && /[0-9]/.test(s[i + 1] ?? "")) {
      let j = i + 1;
      while (j < s.length && /[0-9]/.test(s[j] as string)) j++;
      // Nanoseconds: at most nine digits count (Go reads ten and drops the last).
      fraction = s
        .slice(i + 1, j)
        .slice(0, 9)
        .padEnd(9, "0")
        .replace(/0+$/, "");
      i = j;
    }
    time = `${pad(hour.value)}:${pad(minute.value)}:${pad(second.value)}${fraction === "" ? "" : `.${fraction}`}`;
    if (separator !== " ") {
      if (s[i] === "Z") i++;
      else {
        const offset = /^([+-])([0-9]{2}):([0-9]{2})/.exec(s.slice(i));
        if (!offset) return undefined;
        const [, sign, hh, mm] = offset as unknown as [string, string, string, string];
        if (Number(hh) > 24 || Number(mm) > 60) return undefined;
        zone = hh === "00" && mm === "00" ? "Z" : `${sign}${hh}:${mm}`;
        i += 6;
      }
    }
  }
  if (i !== s.length) return undefined;
  if (day.value < 1 || day.value > daysIn(month.value, year)) return undefined;
  return new GoTimestamp(`${pad(year, 4)}-${pad(month.value)}-${pad(day.value)}T${time}${zone}`);
}
