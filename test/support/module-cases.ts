import type { Module } from "../../src/generated/module.js";
import { customModule, helmModule } from "./modules.js";

/** A Module the validating webhook must deny, and the field paths its causes must name. */
export interface DenialCase {
  name: string;
  operation: "CREATE" | "UPDATE";
  object: Module;
  oldObject?: Module;
  fields: string[];
}

const edit = (base: () => Module, change: (module: Module) => void): Module => {
  const module = base();
  change(module);
  return module;
};
const helm = (module: Module) => {
  if (!module.spec.helm) throw new Error("not a helm Module");
  return module.spec.helm;
};

/** One case per rule of the core issue's section 3. */
export const denialCases: DenialCase[] = [
  {
    name: "neither helm nor custom",
    operation: "CREATE",
    object: edit(customModule, (m) => delete m.spec.custom),
    fields: ["spec"],
  },
  {
    name: "both helm and custom",
    operation: "CREATE",
    object: edit(helmModule, (m) => {
      m.spec.custom = { image: "x" };
    }),
    fields: ["spec.custom"],
  },
  {
    name: "no chart source",
    operation: "CREATE",
    object: edit(helmModule, (m) => {
      helm(m).chart = {};
    }),
    fields: ["spec.helm.chart"],
  },
  {
    name: "two chart sources",
    operation: "CREATE",
    object: edit(helmModule, (m) => {
      helm(m).chart.configMap = { name: "chart" };
    }),
    fields: ["spec.helm.chart.configMap"],
  },
  {
    name: "release name not DNS-1035",
    operation: "CREATE",
    object: edit(helmModule, (m) => {
      helm(m).releaseName = "Redis";
    }),
    fields: ["spec.helm.releaseName"],
  },
  {
    name: "release name over 53 characters",
    operation: "CREATE",
    object: edit(helmModule, (m) => {
      helm(m).releaseName = "r".repeat(54);
    }),
    fields: ["spec.helm.releaseName"],
  },
  {
    name: "release name changed",
    operation: "UPDATE",
    oldObject: helmModule(),
    object: edit(helmModule, (m) => {
      helm(m).releaseName = "redis-two";
    }),
    fields: ["spec.helm.releaseName"],
  },
  {
    name: "existing release changed",
    operation: "UPDATE",
    oldObject: edit(helmModule, (m) => {
      helm(m).existingRelease = { name: "redis" };
    }),
    object: edit(helmModule, (m) => {
      helm(m).existingRelease = { name: "valkey" };
    }),
    fields: ["spec.helm.existingRelease"],
  },
  {
    name: "helm switched to custom",
    operation: "UPDATE",
    oldObject: helmModule(),
    object: edit(customModule, (m) => {
      m.metadata = helmModule().metadata;
    }),
    fields: ["spec.config", "spec.helm", "spec.custom"],
  },
  {
    name: "custom switched to helm",
    operation: "UPDATE",
    oldObject: customModule(),
    object: edit(helmModule, (m) => {
      m.metadata = customModule().metadata;
    }),
    fields: ["spec.config", "spec.helm", "spec.custom"],
  },
  {
    name: "duplicate alias",
    operation: "CREATE",
    object: edit(helmModule, (m) => {
      m.config![3]!.alias = "host";
    }),
    fields: ["config[3].alias", "spec.config.host"],
  },
  {
    name: "item without a type",
    operation: "CREATE",
    object: edit(helmModule, (m) => {
      delete m.config![3]!.boolean;
    }),
    fields: ["config[3]"],
  },
  {
    name: "item with two types",
    operation: "CREATE",
    object: edit(helmModule, (m) => {
      m.config![3]!.string = {};
    }),
    fields: ["config[3].boolean"],
  },
  {
    name: "option default not in values",
    operation: "CREATE",
    object: edit(helmModule, (m) => {
      m.config![0]!.option!.default = "1.0";
    }),
    fields: ["config[0].option.default"],
  },
  {
    name: "integer default out of range",
    operation: "CREATE",
    object: edit(helmModule, (m) => {
      m.config![1]!.integer!.default = 6;
    }),
    fields: ["config[1].integer.default"],
  },
  {
    name: "string default not matching regex",
    operation: "CREATE",
    object: edit(helmModule, (m) => {
      m.config![2]!.string!.default = "LOCAL";
    }),
    fields: ["config[2].string.default"],
  },
  {
    name: "multipleOptions default count above max",
    operation: "CREATE",
    object: edit(helmModule, (m) => {
      m.config![4]!.multipleOptions!.default = ["logging", "metrics", "tracing"];
    }),
    fields: ["config[4].multipleOptions.default"],
  },
  {
    name: "min above max",
    operation: "CREATE",
    object: edit(helmModule, (m) => {
      m.config![1]!.integer!.min = 9;
    }),
    fields: ["config[1].integer.min", "config[1].integer.default", "spec.config.replicas"],
  },
  {
    name: "regex not RE2",
    operation: "CREATE",
    object: edit(helmModule, (m) => {
      m.config![2]!.string!.regex = "^(?!x)";
    }),
    fields: ["config[2].string.regex"],
  },
  {
    name: "required key missing despite a default",
    operation: "CREATE",
    object: edit(helmModule, (m) => {
      m.config![1]!.integer!.required = true;
      delete m.spec.config!.replicas;
    }),
    fields: ["spec.config.replicas"],
  },
  {
    name: "non-editable key set to its default",
    operation: "CREATE",
    object: edit(helmModule, (m) => {
      m.config![1]!.integer!.editable = false;
      m.spec.config!.replicas = 1;
    }),
    fields: ["spec.config.replicas"],
  },
  {
    name: "integer given as a fraction",
    operation: "CREATE",
    object: edit(helmModule, (m) => {
      m.spec.config!.replicas = 3.5;
    }),
    fields: ["spec.config.replicas"],
  },
  {
    name: "integer given as a string",
    operation: "CREATE",
    object: edit(helmModule, (m) => {
      m.spec.config!.replicas = "3";
    }),
    fields: ["spec.config.replicas"],
  },
  {
    name: "integer above max",
    operation: "CREATE",
    object: edit(helmModule, (m) => {
      m.spec.config!.replicas = 7;
    }),
    fields: ["spec.config.replicas"],
  },
  {
    name: "string not matching regex",
    operation: "CREATE",
    object: edit(helmModule, (m) => {
      m.spec.config!.host = "HOST";
    }),
    fields: ["spec.config.host"],
  },
  {
    name: "option not in values",
    operation: "CREATE",
    object: edit(helmModule, (m) => {
      m.spec.config!.version = "9.x";
    }),
    fields: ["spec.config.version"],
  },
  {
    name: "a multipleOptions value (the operator refuses every one)",
    operation: "CREATE",
    object: edit(helmModule, (m) => {
      m.spec.config!.features = ["logging"];
    }),
    fields: ["spec.config.features"],
  },
  {
    name: "an empty custom image",
    operation: "CREATE",
    object: edit(customModule, (m) => {
      m.spec.custom!.image = "";
    }),
    fields: ["spec.custom.image"],
  },
  {
    name: "workspace changed",
    operation: "UPDATE",
    oldObject: helmModule(),
    object: edit(helmModule, (m) => {
      m.spec.workspace = { name: "staging", namespace: "default" };
    }),
    fields: ["spec.workspace"],
  },
  {
    name: "config values changed",
    operation: "UPDATE",
    oldObject: helmModule(),
    object: edit(helmModule, (m) => {
      m.spec.config!.replicas = 4;
    }),
    fields: ["spec.config"],
  },
  {
    name: "helm namespace changed",
    operation: "UPDATE",
    oldObject: helmModule(),
    object: edit(helmModule, (m) => {
      helm(m).namespace = "cache";
    }),
    fields: ["spec.helm.namespace"],
  },
  {
    name: "helm outputs changed",
    operation: "UPDATE",
    oldObject: helmModule(),
    object: edit(helmModule, (m) => {
      helm(m).outputs = [{ name: "host", value: { host: "redis.local" } }];
    }),
    fields: ["spec.helm.outputs"],
  },
  {
    name: "custom image changed",
    operation: "UPDATE",
    oldObject: customModule(),
    object: edit(customModule, (m) => {
      m.spec.custom!.image = "my-registry/custom-app:v2.0.0";
    }),
    fields: ["spec.custom.image"],
  },
  {
    name: "a template calls a function the operator does not have",
    operation: "CREATE",
    object: edit(helmModule, (m) => {
      helm(m).values = [{ raw: { readReplicas: "{{ sub .config.replicas 1 }}" } }];
    }),
    fields: ["spec.helm.values[0].raw.readReplicas"],
  },
  {
    name: "a template Go cannot parse",
    operation: "CREATE",
    object: edit(helmModule, (m) => {
      helm(m).namespace = "{{ if .config.metrics }}metrics";
    }),
    fields: ["spec.helm.namespace"],
  },
  {
    name: "a template that renders a JSON number into a string field",
    operation: "CREATE",
    object: edit(helmModule, (m) => {
      helm(m).chart.repo!.version = "{{ .config.replicas }}";
    }),
    fields: ["spec.helm.chart.repo.version"],
  },
];
