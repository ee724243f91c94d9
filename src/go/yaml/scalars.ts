import { goYamlNumber } from "./numbers.js";
import { GoTimestamp, goYamlTimestamp } from "./timestamps.js";

/**
 * How Go's YAML libraries resolve a scalar (goyaml.v2 under sigs.k8s.io/yaml, and gopkg.in/yaml.v3:
 * resolve.go, `resolve(tag, in)`), for a plain scalar (no tag) and for the explicit core tags. The
 * libraries differ in their map of names: goyaml.v2 reads YAML 1.1's booleans (`yes`, `on`, `y`, and
 * their `no` kin), yaml.v3 only `true` and `false`; both read `~`, `null` and the empty scalar as null,
 * `.inf`, `.nan` and kin as floats and `<<` as the merge key. Numbers are goYamlNumber's; timestamps
 * goYamlTimestamp's, tried first for a plain or `!!timestamp` scalar starting with a digit or sign.
 *
 * Values are Go's types in JavaScript: an integer a bigint (int64, or uint64 above it), a float a
 * number, a timestamp a GoTimestamp (yaml.v3 decodes it into a time.Time; goyaml.v2 keeps the text).
 * An explicit tag that does not fit (`!!int 1.5`, yaml.v3's `!!bool yes`) fails as Go fails:
 * GoResolveError, worded as Go words it.
 */
export type GoYamlLibrary = "yaml.v2" | "yaml.v3";
export type GoScalar = null | boolean | bigint | number | string | GoTimestamp;
export type CoreTag = "null" | "bool" | "int" | "float" | "timestamp";

export class GoResolveError extends Error {}

const names = (values: [unknown, string, string[]][]) =>
  new Map(values.flatMap(([value, tag, texts]) => texts.map((text) => [text, { value, tag }] as const)));

const shared: [unknown, string, string[]][] = [
  [null, "null", ["", "~", "null", "Null", "NULL"]],
  [Number.NaN, "float", [".nan", ".NaN", ".NAN"]],
  [Number.POSITIVE_INFINITY, "float", [".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"]],
  [Number.NEGATIVE_INFINITY, "float", ["-.inf", "-.Inf", "-.INF"]],
  ["<<", "merge", ["<<"]],
];
const resolveMaps = {
  "yaml.v2": names([
    [true, "bool", ["y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"]],
    [false, "bool", ["n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"]],
    ...shared,
  ]),
  "yaml.v3": names([
    [true, "bool", ["true", "True", "TRUE"]],
    [false, "bool", ["false", "False", "FALSE"]],
    ...shared,
  ]),
};

/** resolve.go's resolveTable: the first character's hint; no hint means a string. */
function hint(text: string): "N" | "S" | "D" | "M" | "." | undefined {
  if (text === "") return "N";
  const c = text[0] as string;
  if (c === "+" || c === "-") return "S";
  if (c >= "0" && c <= "9") return "D";
  if ("yYnNtTfFoO~".includes(c)) return "M";
  return c === "." ? "." : undefined;
}

/** resolve(tag, in) before its tag check: Go's own tag for the text and its value. */
function resolveUnchecked(
  tag: CoreTag | "",
  text: string,
  library: GoYamlLibrary,
): { tag: string; value: GoScalar } {
  const h = hint(text);
  if (h !== undefined) {
    const named = resolveMaps[library].get(text);
    if (named) return named as { tag: string; value: GoScalar };
    if (h === ".") {
      const number = goYamlNumber(text, library);
      if (typeof number === "number") return { tag: "float", value: number };
    } else if (h === "D" || h === "S") {
      if (tag === "" || tag === "timestamp") {
        const time = goYamlTimestamp(text);
        // goyaml.v2 decodes a timestamp into `any` as its text (for compatibility); yaml.v3 as a time.Time.
        if (time) return { tag: "timestamp", value: library === "yaml.v3" ? time : text };
      }
      const number = goYamlNumber(text, library);
      if (number !== undefined) return { tag: typeof number === "bigint" ? "int" : "float", value: number };
    }
  }
  return { tag: "str", value: text };
}

/** A plain scalar, as Go resolves it. */
export function resolvePlain(text: string, library: GoYamlLibrary): GoScalar {
  return resolveUnchecked("", text, library).value;
}

/** A scalar with an explicit core tag (`!!int 0755`): Go's value, or GoResolveError when it does not fit. */
export function resolveTagged(tag: CoreTag, text: string, library: GoYamlLibrary): GoScalar {
  const resolved = resolveUnchecked(tag, text, library);
  if (resolved.tag === tag) return resolved.value;
  // An integer is read as a float where a float is asked for.
  if (tag === "float" && resolved.tag === "int") return Number(resolved.value);
  throw new GoResolveError(`cannot decode !!${resolved.tag} \`${text}\` as a !!${tag}`);
}

export { GoTimestamp };
