/** node:net in the page: isIP, over the browser's URL parser for IPv6 (inet_pton's grammar). */

const ipv4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

export function isIP(value: string): 0 | 4 | 6 {
  if (ipv4.test(value)) return 4;
  if (!value.includes(":") || /[^0-9a-fA-F:.]/.test(value)) return 0;
  try {
    new URL(`http://[${value}]/`);
    return 6;
  } catch {
    return 0;
  }
}
