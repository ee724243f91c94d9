/** Name rules from apimachinery's validation package and Helm, with their messages. */

const dns1035Label = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

export const dns1035LabelMessage =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic " +
  "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for " +
  "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

/** Helm refuses release names longer than this (they become label values with suffixes). */
export const helmReleaseNameMaxLength = 53;

/** Problems with a name that must be a DNS-1035 label of at most `maxLength` characters. */
export function dns1035LabelProblems(value: string, maxLength: number): string[] {
  const problems: string[] = [];
  if (value.length > maxLength) problems.push(`must be no more than ${maxLength} characters`);
  if (!dns1035Label.test(value)) problems.push(dns1035LabelMessage);
  return problems;
}

// Helm's own release name rule (pkg/chartutil): lowercase RFC 1123 subdomain, at most 53 characters.
const helmReleaseName = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export function helmReleaseNameProblems(value: string): string[] {
  const problems: string[] = [];
  if (value.length > helmReleaseNameMaxLength) {
    problems.push(`must be no more than ${helmReleaseNameMaxLength} characters`);
  }
  if (!helmReleaseName.test(value)) {
    problems.push(
      "a Helm release name must consist of lower case alphanumeric characters, '-' or '.', and start and end with an alphanumeric character",
    );
  }
  return problems;
}
