import type { Module } from "../../generated/module.js";
import { type GoMap, GoStrings, type Value as GoValue } from "../../go-template/values.js";

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
  /** Aliases left out: integers beyond 2^53 (not held exactly here); templates reading them are not decided. */
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
      value = typeof given === "number" ? Math.trunc(given) : (item.integer.default ?? 0);
      // A Go int beyond 2^53 is not held exactly here: the templates reading it are not decided.
      if (!Number.isSafeInteger(value)) {
        opaque ??= new Set();
        opaque.add(item.alias);
        delete config[item.alias];
        continue;
      }
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
