/**
 * node:net in the page: isIP, with Node's grammar: dotted IPv4 without leading zeros; IPv6 as the
 * browser's URL parser reads it, with Node's optional zone (`%` and letters, digits, `-`, `.`, `:`).
 */

const ipv4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

export function isIP(value: string): 0 | 4 | 6 {
  if (ipv4.test(value)) return 4;
  const zone = value.indexOf("%");
  const address = zone < 0 ? value : value.slice(0, zone);
  if (zone >= 0 && !/^[0-9a-zA-Z.:-]+$/.test(value.slice(zone + 1))) return 0;
  if (!address.includes(":") || /[^0-9a-fA-F:.]/.test(address)) return 0;
  try {
    new URL(`http://[${address}]/`);
    return 6;
  } catch {
    return 0;
  }
}
