/**
 * kube-openapi's `date-time` format check (strfmt.IsDateTime): a full date Go's time.Parse accepts
 * (`2006-01-02`: the day must exist in its month), `T` (either case), then `hh:mm:ss`, optional
 * fraction, and `Z` or an offset; hours, minutes and seconds compared as text against 23, 59, 59.
 */
export function isGoDateTime(value: string): boolean {
  if (value.length < 4) return false;
  const parts = value.toLowerCase().split("t");
  if (parts.length < 2 || !isGoDate(parts[0] as string)) return false;
  const time = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/.exec(
    parts[1] as string,
  );
  if (!time) return false;
  return (time[1] as string) <= "23" && (time[2] as string) <= "59" && (time[3] as string) <= "59";
}

/** time.Parse("2006-01-02", value) succeeds: four-digit year, a month 01-12, a day its month has. */
export function isGoDate(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] as number;
  return day <= days;
}
