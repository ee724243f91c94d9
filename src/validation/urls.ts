/** The schemes a link lifecycle-manager's users follow has: web pages, and OCI artifacts (`oci://`). */
const linkScheme = /^(?:https?|oci):\/\//i;

/**
 * Why `value` is not an absolute http(s) or oci URL, or undefined when it is. Links the lifecycle
 * manager and its UIs fetch or show must stand on their own: a relative path has nothing to resolve
 * against. `oci://registry/repository:tag` names an OCI artifact (lifecycle-manager's own scripts and
 * Helm write charts so), which the WHATWG parser reads as an opaque host.
 */
export function absoluteHttpUrlProblem(value: string): string | undefined {
  if (!linkScheme.test(value))
    return "must be an absolute http, https or oci URL, e.g. https://example.com/path";
  if (/\s/.test(value) || !URL.canParse(value)) return "must be a valid URL";
  return undefined;
}
