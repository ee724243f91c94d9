/** The schemes a link lifecycle-manager's users follow has: web pages, and OCI artifacts (`oci://`). */
const linkScheme = /^(?:https?|oci):\/\//i;

/**
 * Why `value` is not an absolute http(s) or oci URL, or undefined when it is. Links the lifecycle
 * manager and its UIs fetch or show must stand on their own: a relative path has nothing to resolve
 * against. `oci://registry/repository:tag` names an OCI artifact (lifecycle-manager's own scripts and
 * Helm write charts so), which the WHATWG parser reads as an opaque host.
 */
export function absoluteHttpUrlProblem(value: string): string | undefined {
  // The plainest http(s) links parse: one regex pass instead of URL.canParse (100,000 icons' links
  // cost 12-15 ms of a review in its parser).
  if (isPlainHttpUrl(value)) return undefined;
  return absoluteHttpUrlProblemByParse(value);
}

/** `absoluteHttpUrlProblem` without its shortcut (tests hold the shortcut to it). */
export function absoluteHttpUrlProblemByParse(value: string): string | undefined {
  if (!linkScheme.test(value))
    return "must be an absolute http, https or oci URL, e.g. https://example.com/path";
  if (/\s/.test(value) || !canParseUrl(value)) return "must be a valid URL";
  return undefined;
}

/**
 * URL.canParse, by `new URL` for text past ASCII: Node 20's fast path of URL.canParse, taken once the
 * call is optimized, reads a Latin-1 string's bytes as UTF-8, so `https://aé'_` parsed for the first
 * 4,000 calls of a process and then not (Node 24 parses it every time, as `new URL` does).
 */
function canParseUrl(value: string): boolean {
  if (isAscii(value)) return URL.canParse(value);
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

function isAscii(value: string): boolean {
  for (let i = 0; i < value.length; i++) if (value.charCodeAt(i) > 0x7f) return false;
  return true;
}

/**
 * The links the CEL policies need not call the webhook for (RE2, as CEL's `matches`): absolute http(s)
 * URLs every WHATWG parser takes. `isPlainHttpUrl` is the same set in one JavaScript pass.
 */
export const surelyValidLink =
  "^[hH][tT][tT][pP][sS]?://([A-Za-z0-9]+(-[A-Za-z0-9]+)*[.])*[A-Za-z]([A-Za-z0-9]*(-[A-Za-z0-9]+)*)?(:[0-9]{1,4})?([/?#][!-~]*)?$";

/**
 * An http(s) URL every WHATWG parser takes (`surelyValidLink`, without its nested quantifiers, which
 * a backtracking engine would take in polynomial time): a host of labels of letters and digits joined by single `-`,
 * separated by single `.` (no `xn--` label to decode, no empty one), whose last label starts with a
 * letter (so it is no IPv4 address), a port below 10000, then printable ASCII. Each part ends where
 * the next one's first character is: no backtracking; the last label is looked at after.
 */
const plainHttpShape =
  /^[hH][tT][tT][pP][sS]?:\/\/[A-Za-z0-9]+(?:[.-][A-Za-z0-9]+)*(?::[0-9]{1,4})?(?:[/?#][!-~]*)?$/;

export function isPlainHttpUrl(value: string): boolean {
  if (!plainHttpShape.test(value)) return false;
  const start = value.indexOf("//") + 2;
  let end = start;
  while (end < value.length && isHostCharacter(value.charCodeAt(end))) end++;
  const dot = value.lastIndexOf(".", end - 1);
  const first = value.charCodeAt(dot >= start ? dot + 1 : start) | 0x20;
  return first >= 0x61 && first <= 0x7a;
}

/** A letter, a digit, `-` or `.`: what the shape's host is made of. */
function isHostCharacter(code: number): boolean {
  const lower = code | 0x20;
  return (lower >= 0x61 && lower <= 0x7a) || (code >= 0x30 && code <= 0x39) || code === 0x2d || code === 0x2e;
}
