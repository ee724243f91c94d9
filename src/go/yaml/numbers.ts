/**
 * How Go's YAML libraries (goyaml.v2 under sigs.k8s.io/yaml, and gopkg.in/yaml.v3: resolve.go) read
 * a plain scalar that starts like a number (a digit, `+`, `-` or `.`):
 *
 * - starting with `.`: strconv.ParseFloat of the text (`.5`, `.1_0`: Go's underscore rule applies);
 * - otherwise every `_` is removed, then strconv.ParseInt(s, 0, 64): `0x`/`0X` hex, `0o`/`0O` and a
 *   leading `0` octal, `0b`/`0B` binary, a sign allowed; beyond int64, ParseUint (no sign); then
 *   ParseFloat, for decimal floats only (`1e3`, `08` is 8, `1e400` is out of range);
 * - anything else is no number (`0x`, `0o8`, `1:20`): undefined.
 *
 * An integer is a bigint (Go's int64, or uint64 above it: exact, as Go keeps it), a float a number.
 */
export function goYamlNumber(text: string, library: "yaml.v2" | "yaml.v3"): bigint | number | undefined {
  if (text.startsWith(".")) return goParseFloat(text);
  const plain = text.replaceAll("_", "");
  const integer = goParseInteger(plain);
  if (integer !== undefined) return integer;
  if (yamlStyleFloat.test(plain)) {
    const float = goParseFloat(plain);
    if (float !== undefined) return float;
  }
  // Last, resolve.go reads what follows `0b` (and, in yaml.v3, `0o`) with ParseInt in base 2 (8),
  // which takes a sign of its own: `0b-1` is -1.
  const prefixed = (library === "yaml.v3" ? /^0([bo])([+-])([0-7]+)$/ : /^0(b)([+-])([01]+)$/).exec(plain);
  if (prefixed) {
    const [, base, sign, digits] = prefixed as unknown as [string, string, string, string];
    if (base === "b" && !/^[01]+$/.test(digits)) return undefined;
    const value = (sign === "-" ? -1n : 1n) * BigInt(`0${base}${digits}`);
    if (value >= int64Min && value < 2n ** 63n) return value;
  }
  return undefined;
}

// goyaml's yamlStyleFloat: the decimal floats it hands to ParseFloat.
const yamlStyleFloat = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;

const int64Min = -(2n ** 63n);
const uint64Max = 2n ** 64n - 1n;

/** ParseInt(s, 0, 64), and ParseUint(s, 0, 64) when it overflows: undefined when neither parses. */
function goParseInteger(text: string): bigint | undefined {
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
  if (value >= int64Min && value < 2n ** 63n) return value;
  // ParseUint takes no sign at all.
  if (!/^[-+]/.test(text) && value <= uint64Max) return value;
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
