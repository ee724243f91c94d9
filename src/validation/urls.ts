const httpScheme = /^https?:\/\//i;

/**
 * Why `value` is not an absolute http(s) URL, or undefined when it is. Links the lifecycle manager and
 * its UIs fetch or show must stand on their own: a relative path has nothing to resolve against.
 */
export function absoluteHttpUrlProblem(value: string): string | undefined {
  if (!httpScheme.test(value)) return "must be an absolute http or https URL, e.g. https://example.com/path";
  if (/\s/.test(value) || !URL.canParse(value)) return "must be a valid URL";
  return undefined;
}
