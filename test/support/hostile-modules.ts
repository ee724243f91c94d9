import type { ConfigItem, Module } from "../../src/generated/module.js";
import { customModule, helmModule } from "./modules.js";

/**
 * The hostile Modules of issue 15, each as the API server would send it (it passes the Module CRD:
 * every list and string within its bounds; spec.config and Helm values are free-form).
 */
export interface HostileModule {
  name: string;
  object: Module;
  oldObject?: Module;
}

/** Stands for a value nested 5,000 levels deep, which JSON.stringify itself cannot write. */
export const deepMarker = "__5000_LEVELS__";
export const deepJson = `${'{"n":'.repeat(5000)}{}${"}".repeat(5000)}`;

const withConfig = (config: ConfigItem[], values: Record<string, unknown>): Module => {
  const module = helmModule();
  module.config = config;
  module.spec.config = values;
  return module;
};

/** 128 aliases of 253 characters (the CRD's bounds), so every "not declared" message lists 32 KB. */
const longAliases = (): ConfigItem[] =>
  Array.from({ length: 128 }, (_, i) => ({
    name: "n",
    alias: `${String(i).padStart(3, "0")}${"a".repeat(250)}`,
    boolean: {},
  }));

export function hostileModules(): HostileModule[] {
  const stored = helmModule();
  if (stored.spec.helm) {
    stored.spec.helm.releaseName = `r${"x".repeat(59)}`;
    stored.spec.helm.existingRelease = { name: "redis", namespace: "data" };
  }
  const adopted = structuredClone(stored);
  if (adopted.spec.helm) adopted.spec.helm.existingRelease = { name: "postgres", namespace: "data" };
  return [
    {
      // 128 distinct patterns of 980 characters, each `.{1000}` 140 times: 140,002 RE2 instructions.
      name: "128 long regexes (compiled-regex cache)",
      object: withConfig(
        Array.from({ length: 128 }, (_, i) => ({
          name: "n",
          alias: `s${i}`,
          string: { regex: `${".{1000}".repeat(139)}${i}` },
        })),
        {},
      ),
    },
    {
      name: "9,000 undeclared spec.config keys against 128 long aliases",
      object: withConfig(
        longAliases(),
        Object.fromEntries(Array.from({ length: 9000 }, (_, i) => [`k${i}`, true])),
      ),
    },
    {
      name: "20,000 bad multipleOptions choices",
      object: withConfig(
        [
          {
            name: "n",
            alias: "m",
            multipleOptions: {
              values: Array.from({ length: 256 }, (_, i) => `${i}${"v".repeat(250)}`) as [
                string,
                ...string[],
              ],
            },
          },
        ],
        { m: Array.from({ length: 20_000 }, (_, i) => `bad${i}`) },
      ),
    },
    {
      name: "100 KB of `{` in a Helm value (template scan)",
      object: (() => {
        const module = helmModule();
        if (module.spec.helm) module.spec.helm.values = [{ raw: { x: "{".repeat(100_000) } }];
        return module;
      })(),
    },
    {
      name: "a 10 KB undeclared key against 128 long aliases (did you mean)",
      object: withConfig(longAliases(), { ["k".repeat(10_000)]: true }),
    },
    {
      name: "an 8,000-character value against a 980-character pattern",
      object: withConfig([{ name: "n", alias: "s", string: { regex: `${"(a|b){1000}".repeat(89)}x` } }], {
        s: "ab".repeat(4000),
      }),
    },
    {
      // 128 patterns of 63 instructions (8,064 together, within the schema's 10,000): the first values
      // fit the per-object matching budget, the rest are refused.
      name: "128 patterns against 128 values of 8,000 characters (matching budget)",
      object: withConfig(
        Array.from({ length: 128 }, (_, i) => ({
          name: "n",
          alias: `s${i}`,
          string: { regex: `.{60}${i % 10}` },
        })),
        Object.fromEntries(Array.from({ length: 128 }, (_, i) => [`s${i}`, "x".repeat(8000)])),
      ),
    },
    {
      name: "10^6 wrong-typed items (amplification)",
      object: withConfig([{ name: "n", alias: "m", multipleOptions: { values: ["a"] } }], {
        m: Array(1_000_000).fill(1),
      }),
    },
    {
      // Issue 21: each undeclared key's "did you mean" once ran against every alias (3.6 s here).
      name: "2,000 aliases and 50 undeclared spec.config keys (did you mean, work budget)",
      object: withConfig(
        Array.from({ length: 2000 }, (_, i) => ({
          name: "n",
          alias: `alias${i}${"x".repeat(50)}`,
          boolean: {},
        })),
        Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`alias${i}${"x".repeat(49)}y`, true])),
      ),
    },
    {
      // Issue 21, finding 2: each template's output was checked on its own, per template, not per
      // object (300 such templates cost 4.0 s of CPU).
      name: "300 templates each printing a 1 MB config value (template output, work budget)",
      object: (() => {
        const module = customModule();
        module.config = [{ name: "Big", alias: "big", string: { default: "" } }];
        module.spec.config = { big: `"${"a".repeat(1 << 20)}` };
        (module.spec.custom as unknown as Record<string, unknown>).args = Array.from(
          { length: 300 },
          (_, i) => `{{ .config.big }}x${i}`,
        );
        return module;
      })(),
    },
    {
      // Issue 21: sent directly (the CRD refuses it); every error was built, and the process died.
      name: "300,000 wrong-typed spec.helm.migration.pvcs (structure errors)",
      object: (() => {
        const module = helmModule();
        if (module.spec.helm) module.spec.helm.migration = { pvcs: Array(300_000).fill(1) };
        return module;
      })(),
    },
    {
      name: "an UPDATE to 300,000 wrong-typed spec.helm.migration.pvcs (structure errors, four checks)",
      object: (() => {
        const module = helmModule();
        if (module.spec.helm) module.spec.helm.migration = { pvcs: Array(300_000).fill(1) };
        return module;
      })(),
      oldObject: helmModule(),
    },
    {
      name: "an object 5,000 levels deep",
      object: (() => {
        const module = helmModule();
        if (module.spec.helm)
          module.spec.helm.values = [{ raw: deepMarker as unknown as Record<string, unknown> }];
        return module;
      })(),
    },
    {
      name: "UPDATE changing existingRelease of a Module stored before the 53-character limit",
      object: adopted,
      oldObject: stored,
    },
  ];
}
