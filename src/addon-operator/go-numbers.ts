import type { ScalarTag } from "yaml";

/**
 * How Go's YAML libraries (goyaml.v2 under sigs.k8s.io/yaml, and gopkg.in/yaml.v3: resolve.go) read
 * a plain scalar that starts like a number (a digit, `+`, `-` or `.`):
 *
 * - starting with `.`: strconv.ParseFloat of the text (`.5`, `.1_0`: Go's underscore rule applies);
 * - otherwise every `_` is removed, then strconv.ParseInt(s, 0, 64): `0x`/`0X` hex, `0o`/`0O` and a
 *   leading `0` octal, `0b`/`0B` binary, a sign allowed; beyond int64, ParseUint (no sign); then
 *   ParseFloat, for decimal floats only (`1e3`, `08` is 8, `1e400` is out of range);
 * - anything else stays a string (`0x`, `0o8`, `1:20`).
 *
 * One tag does it all, so that no YAML 1.1 or 1.2 rule of the JavaScript parser decides otherwise.
 */
export function goYamlNumber(text: string): number | string {
  if (text.startsWith(".")) return goParseFloat(text) ?? text;
  const plain = text.replaceAll("_", "");
  const integer = goParseInteger(plain);
  if (integer !== undefined) return integer;
  if (yamlStyleFloat.test(plain)) return goParseFloat(plain) ?? text;
  return text;
}

// goyaml's yamlStyleFloat: the decimal floats it hands to ParseFloat.
const yamlStyleFloat = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;

const int64Min = -(2n ** 63n);
const uint64Max = 2n ** 64n - 1n;

/** ParseInt(s, 0, 64), and ParseUint(s, 0, 64) when it overflows: undefined when neither parses. */
function goParseInteger(text: string): number | undefined {
  const sign = text.startsWith("-") ? -1n : 1n;
  const unsigned = /^[-+]/.test(text) ? text.slice(1) : text;
  const digits = /^0[xX]([0-9a-fA-F]+)$|^0[oO]([0-7]+)$|^0[bB]([01]+)$|^0([0-7]+)$|^([1-9][0-9]*|0)$/.exec(
    unsigned,
  );
  if (!digits) return undefined;
  const [, hex, octal, binary, leadingZeroOctal, decimal] = digits;
  const magnitude =
    hex !== undefined
      ? BigInt(`0x${hex}`)
      : octal !== undefined
        ? BigInt(`0o${octal}`)
        : binary !== undefined
          ? BigInt(`0b${binary}`)
          : leadingZeroOctal !== undefined
            ? BigInt(`0o${leadingZeroOctal}`)
            : BigInt(decimal as string);
  const value = sign * magnitude;
  if (value >= int64Min && value < 2n ** 63n) return Number(value);
  // ParseUint takes no sign at all.
  if (!/^[-+]/.test(text) && value <= uint64Max) return Number(value);
  return undefined;
}

/**
 * strconv.ParseFloat for decimal text: underscores only between digits, out of range is an error
 * (undefined); Go's other forms (hex floats, "inf") never reach it from goyaml's resolver.
 */
function goParseFloat(text: string): number | undefined {
  if (
    !/^[-+]?(?:[0-9](?:_?[0-9])*)?(?:\.(?:[0-9](?:_?[0-9])*)?)?(?:[eE][-+]?[0-9](?:_?[0-9])*)?$/.test(text)
  ) {
    return undefined;
  }
  if (!/[0-9]/.test(text.replace(/[eE].*$/, ""))) return undefined;
  const value = Number(text.replaceAll("_", ""));
  return Number.isFinite(value) ? value : undefined;
}

/** The one tag for plain scalars that start like a number, placed after null, bool and .inf/.nan. */
export const goNumberTag: ScalarTag = {
  tag: "tag:yaml.org,2002:int",
  default: true,
  test: /^[-+.0-9]/,
  resolve: (text: string) => goYamlNumber(text),
};
