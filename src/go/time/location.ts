import { goTimeZones } from "./time-zones.js";

/**
 * Go's time.LoadLocation (time/zoneinfo.go) as far as its verdict: "" and "UTC" are UTC, "Local" the
 * local zone, a name holding ".." or starting with a slash or backslash is refused outright, any other
 * must name a zone Go finds (goTimeZones). Returns Go's error text, or undefined.
 */
export function loadLocationError(name: string): string | undefined {
  if (name === "" || name === "UTC" || name === "Local") return undefined;
  if (name.includes("..") || name.startsWith("/") || name.startsWith("\\"))
    return "time: invalid location name";
  return goTimeZones.has(name) ? undefined : `unknown time zone ${name}`;
}
