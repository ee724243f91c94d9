import { CelScalar, type CelValue, celFunc, celType, isCelError, run } from "@bufbuild/cel";
import { parseGoDuration } from "../go/time/duration.js";

/**
 * cel-go's conversions from strings (and the global `matches`), which parse with Go's strconv and time (int: ParseInt base 10,
 * uint: ParseUint, double: ParseFloat, duration: time.ParseDuration), in place of @bufbuild/cel's
 * JavaScript ones (`double('')` is 0 there, `duration('')` 0s): a string Go refuses is cel-go's
 * "type conversion error", which makes addon-operator refuse the values.
 */
const conversionError = (to: string) => new Error(`type conversion error from 'string' to '${to}'`);

const durationType = celType(run("duration('1s')") as CelValue);

/** strconv.ParseFloat's syntax: decimal or hex floats, inf/infinity/nan in any case; in range. */
const goFloat =
  /^[+-]?(?:(?:[0-9](?:_?[0-9])*)?\.?(?:[0-9](?:_?[0-9])*)?(?:[eE][+-]?[0-9]+)?|0[xX][0-9a-fA-F_]*\.?[0-9a-fA-F_]*[pP][+-]?[0-9]+|inf|infinity|nan)$/i;

function parseFloat64(s: string): number {
  if (!goFloat.test(s) || !/[0-9]|inf|nan/i.test(s) || /_/.test(s.replace(/^[+-]?0[xX]/, "")))
    throw conversionError("double");
  const lower = s.toLowerCase();
  if (/inf/.test(lower)) return lower.startsWith("-") ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  if (/nan/.test(lower)) return Number.NaN;
  const value = /0x/i.test(s) ? hexFloat(s) : Number(s);
  if (!Number.isFinite(value)) throw conversionError("double");
  return value;
}

function hexFloat(s: string): number {
  const [, sign, mantissa = "", exponent = "0"] =
    /^([+-]?)0[xX]([0-9a-fA-F_.]*)[pP]([+-]?[0-9]+)$/.exec(s) ?? [];
  const [whole = "", fraction = ""] = mantissa.replaceAll("_", "").split(".");
  const digits = `${whole}${fraction}` || "0";
  const value = Number.parseInt(digits, 16) * 2 ** (Number(exponent) - 4 * fraction.length);
  return sign === "-" ? -value : value;
}

export const celGoConversions = [
  celFunc("int", [CelScalar.STRING], CelScalar.INT, (s: string) => {
    if (!/^[+-]?[0-9]+$/.test(s)) throw conversionError("int");
    const value = BigInt(s);
    if (value < -(2n ** 63n) || value >= 2n ** 63n) throw conversionError("int");
    return value;
  }),
  celFunc("uint", [CelScalar.STRING], CelScalar.UINT, (s: string) => {
    if (!/^[0-9]+$/.test(s) || BigInt(s) >= 2n ** 64n) throw conversionError("uint");
    return run("uint(s)", { s }) as never;
  }),
  celFunc("double", [CelScalar.STRING], CelScalar.DOUBLE, parseFloat64),
  // The global form of matches, which CEL's standard library has beside the method.
  celFunc("matches", [CelScalar.STRING, CelScalar.STRING], CelScalar.BOOL, (s: string, pattern: string) => {
    const result = run("s.matches(p)", { s, p: pattern });
    if (isCelError(result)) throw new Error(result.message);
    return result as boolean;
  }),
  celFunc("duration", [CelScalar.STRING], durationType, (s: string) => {
    if (!parseGoDuration(s).ok) throw conversionError("google.protobuf.Duration");
    const value = run("duration(s)", { s });
    if (isCelError(value)) throw conversionError("google.protobuf.Duration");
    return value as never;
  }),
];
