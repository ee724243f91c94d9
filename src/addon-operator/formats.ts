import { isIP } from "node:net";

/**
 * The string formats go-openapi's strfmt.Default knows, those a config value plausibly uses. Formats it
 * does not know pass, as they do in addon-operator.
 */
const formats: Record<string, (value: string) => boolean> = {
  date: (value) => /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`)),
  "date-time": (value) =>
    /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(value) &&
    !Number.isNaN(Date.parse(value.replace(" ", "T"))),
  email: (value) => /^[^\s@]+@[^\s@]+$/.test(value),
  hostname: (value) =>
    value.length <= 255 &&
    value.split(".").every((label) => /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/.test(label)),
  ipv4: (value) => isIP(value) === 4,
  ipv6: (value) => isIP(value) === 6,
  cidr: (value) => {
    const [ip, bits, ...rest] = value.split("/");
    const version = isIP(ip ?? "");
    if (rest.length > 0 || version === 0 || !/^\d{1,3}$/.test(bits ?? "")) return false;
    return Number(bits) <= (version === 4 ? 32 : 128);
  },
  mac: (value) => /^([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}$/.test(value),
  uri: (value) => URL.canParse(value),
  uuid: (value) =>
    /^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/.test(value),
  byte: (value) => /^[A-Za-z0-9+/]*={0,2}$/.test(value) && value.length % 4 === 0,
  duration: (value) => /^(\d+(\.\d+)?\s*(ns|us|µs|ms|s|m|h|d|w)\s*)+$/.test(value),
  hexcolor: (value) => /^#([0-9a-fA-F]{3}){1,2}$/.test(value),
};

/** False only when the format is known and the value does not have it. */
export function matchesFormat(format: string, value: string): boolean {
  const check = formats[format];
  return check ? check(value) : true;
}
