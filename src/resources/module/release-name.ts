import { randomInt } from "node:crypto";
import { helmReleaseNameMaxLength } from "../../validation/names.js";

const suffixLength = 11;
const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
const prefixMaxLength = helmReleaseNameMaxLength - suffixLength - 1;

/**
 * A release name in the operator's format, `<namespace>-<11 random lowercase alphanumerics>`, that is
 * always a valid DNS-1035 label of at most 53 characters: the namespace part is cut to 41 characters
 * and stripped of trailing '-', and a namespace that does not start with a letter gets an `m` in front
 * (a namespace is a DNS-1123 label: it may start with a digit).
 */
export function generateReleaseName(namespace: string): string {
  let prefix = /^[a-z]/.test(namespace) ? namespace : `m${namespace}`;
  prefix = prefix.slice(0, prefixMaxLength).replace(/-+$/, "");
  let suffix = "";
  for (let i = 0; i < suffixLength; i++) suffix += alphabet[randomInt(alphabet.length)];
  return `${prefix}-${suffix}`;
}
