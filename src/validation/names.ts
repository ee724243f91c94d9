import { Buffer } from "node:buffer";

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

// apimachinery's util/validation messages: `RegexError` lists its examples as "'a',  or 'b', ".
const regexError = (message: string, format: string, ...examples: string[]) =>
  `${message} (e.g. ${examples.map((example) => `'${example}', `).join(" or ")}regex used for validation is '${format}')`;

/** The regex of IsDNS1123Label, for CEL that must agree with dns1123LabelProblems. */
export const dns1123LabelFormat = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const dns1123Label = new RegExp(`^${dns1123LabelFormat}$`);
const dns1123SubdomainFormat = `${dns1123LabelFormat}(\\.${dns1123LabelFormat})*`;
const dns1123Subdomain = new RegExp(`^${dns1123SubdomainFormat}$`);
const qualifiedNameFormat = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const qualifiedName = new RegExp(`^${qualifiedNameFormat}$`);
const qualifiedNameMessage =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelValueFormat = `(${qualifiedNameFormat})?`;
const labelValue = new RegExp(`^${labelValueFormat}$`);

/** Go's len() of a string: its UTF-8 bytes, which apimachinery's length bounds count. */
const bytes = (value: string) => Buffer.byteLength(value, "utf8");

/** IsDNS1123Label (util/validation): a namespace, for example. */
export function dns1123LabelProblems(value: string): string[] {
  const problems: string[] = [];
  if (bytes(value) > 63) problems.push("must be no more than 63 characters");
  if (!dns1123Label.test(value)) {
    problems.push(
      dns1123Subdomain.test(value)
        ? "must not contain dots"
        : regexError(
            "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
            dns1123LabelFormat,
            "my-name",
            "123-abc",
          ),
    );
  }
  return problems;
}

/**
 * IsDNS1123Subdomain: an object's name, a label key's prefix. util/validation's counts "characters",
 * the newer content package's (label key prefixes) "bytes".
 */
export function dns1123SubdomainProblems(
  value: string,
  unit: "characters" | "bytes" = "characters",
): string[] {
  const problems: string[] = [];
  if (bytes(value) > 253) problems.push(`must be no more than 253 ${unit}`);
  if (!dns1123Subdomain.test(value)) {
    problems.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        dns1123SubdomainFormat,
        "example.com",
      ),
    );
  }
  return problems;
}

/** IsQualifiedName (content.IsLabelKey in 1.37): a label key, an annotation key (lower-cased first), a finalizer. */
export function qualifiedNameProblems(value: string): string[] {
  const parts = value.split("/");
  if (parts.length > 2) {
    return [
      `a valid label key ${regexError(qualifiedNameMessage, qualifiedNameFormat, "MyName", "my.name", "123-abc")} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  const problems: string[] = [];
  const name = parts.length === 2 ? (parts[1] as string) : value;
  if (parts.length === 2) {
    const prefix = parts[0] as string;
    if (prefix === "") problems.push("prefix part must be non-empty");
    else
      problems.push(...dns1123SubdomainProblems(prefix, "bytes").map((problem) => `prefix part ${problem}`));
  }
  if (name === "") problems.push("name part must be non-empty");
  else if (bytes(name) > 63) problems.push("name part must be no more than 63 bytes");
  if (!qualifiedName.test(name)) {
    problems.push(
      `name part ${regexError(qualifiedNameMessage, qualifiedNameFormat, "MyName", "my.name", "123-abc")}`,
    );
  }
  return problems;
}

/** IsValidLabelValue (content.IsLabelValue in 1.37). */
export function labelValueProblems(value: string): string[] {
  const problems: string[] = [];
  if (bytes(value) > 63) problems.push("must be no more than 63 bytes");
  if (!labelValue.test(value)) {
    problems.push(
      regexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        labelValueFormat,
        "MyValue",
        "my_value",
        "12345",
      ),
    );
  }
  return problems;
}

/** path.ValidatePathSegmentName: how the API server checks a custom resource's (and embedded) name. */
export function pathSegmentNameProblems(value: string, prefix: boolean): string[] {
  if (!prefix && (value === "." || value === "..")) return [`may not be '${value}'`];
  return ["/", "%"].filter((c) => value.includes(c)).map((c) => `may not contain '${c}'`);
}
