import { configMap, writeTree } from "../../support/addon-modules.js";
import {
  type Kube,
  type RatchetGenerators,
  updateOnly,
  type Violation,
  v,
} from "../../support/ratchet-generators.js";

const modulesDir = writeTree({
  "001-mod-a/openapi/config-values.yaml": { type: "object", properties: { param: { type: "string" } } },
  "002-mod-b/openapi/config-values.yaml": { type: "object", properties: { size: { type: "integer" } } },
  "003-mod-c/openapi/config-values.yaml": { type: "object", properties: {} },
  "004-guarded/openapi/config-values.yaml": {
    type: "object",
    properties: {
      storageClass: {
        type: "string",
        "x-deckhouse-validations": [{ expression: "self == oldSelf", message: "storageClass is immutable" }],
      },
    },
  },
  "openapi/config-values.yaml": {
    type: "object",
    properties: { project: { type: "string" }, clusterName: { type: "string" } },
  },
});

const configMapBase = (): Kube =>
  configMap({
    global: "project: p\nclusterName: c\n",
    modA: "param: x\n",
    modAEnabled: "true",
    modB: "size: 3\n",
    modBEnabled: "true",
    modCEnabled: "true",
    guarded: "storageClass: fast\n",
    guardedEnabled: "true",
  });

const configMapViolations: Violation[] = [
  v("addon-operator-configmap.data-string", "number", (c) => {
    c.data.modCMaintenance = 5;
  }),
  v("addon-operator-configmap.global-values", "global", (c) => {
    c.data.global = "project: [p\n";
  }),
  v("addon-operator-configmap.enabled-flag", "modCEnabled", (c) => {
    c.data.modCEnabled = "yes";
  }),
  v("addon-operator-configmap.maintenance-mode", "modBMaintenance", (c) => {
    c.data.modBMaintenance = "Paused";
  }),
  v("addon-operator-configmap.section-key", "badKey", (c) => {
    c.data.CertManager = "a: 1\n";
  }),
  v("addon-operator-configmap.module-values", "modA", (c) => {
    c.data.modA = "param: 5\n";
  }),
  v("addon-operator-configmap.module-values", "modB", (c) => {
    c.data.modB = "size: big\n";
  }),
  updateOnly("addon-operator-configmap.values-transition", "guarded", (c) => {
    c.data.guarded = "storageClass: slow\n";
  }),
];

export const ratchetGenerators: RatchetGenerators = {
  // serve's flags: the modules dir, and the ConfigMap addon-operator reads (its default).
  dependencies: {
    addonOperator: { "modules-dir": modulesDir, "addon-configmap": "addon-operator/addon-operator" },
  },
  cases: [
    {
      name: "ConfigMap/addon-operator",
      base: configMapBase,
      violations: configMapViolations,
      whileInvalid:
        /^addon-operator ignores the whole ConfigMap until data\.\w+ is fixed: none of this change takes effect$/,
    },
  ],
};
