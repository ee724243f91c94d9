import type { Module } from "../../generated/module.js";
import { type GoMap, GoStrings, type Value as GoValue } from "../../go/template/values.js";

/**
 * `.config` as the operator's templates see it: GetValidatedConfig's output (forkspacer/forkspacer
 * v0.1.24 api/v1/module_types.go:744-792), passed as the data's `config` by RenderHelmSpec and
 * RenderCustomSpec. Only declared aliases are in it, in the order of config[] (a duplicate alias: the
 * later item's value): a key of spec.config that no item declares is not, so `.config.<it>` renders
 * `<no value>` (the operator's runner gets the raw spec.config, but no template reads it). Each value
 * is the one given when the Module passes validation, else the item's default, typed as Go types it:
 * integer `int(v)` (a JSON float truncated), boolean, string and option strings, multipleOptions
 * always its default (a JSON list is never a []string), a nil []string without one.
 */
export interface TemplateConfig {
  config: GoMap;
  /** Aliases left out: values beyond Go's int (int() of them is undefined in Go); templates reading them are not decided. */
  opaque: Set<string> | undefined;
}

/** The template data's config, or null for an item of no type (GetValidatedConfig refuses the Module). */
export function templateConfig(module: Module): TemplateConfig | null {
  const values = module.spec.config ?? {};
  const config: GoMap = {};
  let opaque: Set<string> | undefined;
  for (const item of module.config ?? []) {
    const given: unknown = Object.hasOwn(values, item.alias) ? values[item.alias] : undefined;
    let value: GoValue;
    if (item.integer) {
      const read = integerValue(item.integer, given);
      // int(v) of a float64 beyond int64 is undefined in Go: the templates reading it are not decided.
      if (read === undefined) {
        opaque ??= new Set();
        opaque.add(item.alias);
        delete config[item.alias];
        continue;
      }
      value = read;
    } else if (item.boolean) value = typeof given === "boolean" ? given : (item.boolean.default ?? false);
    else if (item.string) value = typeof given === "string" ? given : (item.string.default ?? "");
    else if (item.option) value = typeof given === "string" ? given : (item.option.default ?? "");
    // GetValidatedConfig refuses any value given (a JSON list is never a []string): the default renders.
    else if (item.multipleOptions) value = GoStrings.holding(item.multipleOptions.default);
    else return null;
    config[item.alias] = value as GoMap[string];
    opaque?.delete(item.alias);
  }
  return { config, opaque };
}

/**
 * An integer item's Go int in the template data: a value given is read as a float64 (encoding/json
 * into map[string]any) and made an int with int(v); else the default, the Go int the operator decoded
 * exactly (a bigint beyond 2^53-1). Undefined where int(v) is undefined in Go (beyond int64).
 */
export function integerValue(
  integer: { default?: number | bigint },
  given: unknown,
): number | bigint | undefined {
  if (typeof given !== "number" && typeof given !== "bigint") return integer.default ?? 0;
  const read = goInt(Number(given));
  return typeof read === "number" && Number.isNaN(read) ? undefined : read;
}

/** Go's int(v) of a float64: truncated; NaN where Go leaves it undefined (beyond int64). */
function goInt(v: number): number | bigint {
  if (!Number.isFinite(v) || v >= 2 ** 63 || v < -(2 ** 63)) return Number.NaN;
  const whole = Math.trunc(v);
  return Number.isSafeInteger(whole) ? whole : BigInt(whole);
}
