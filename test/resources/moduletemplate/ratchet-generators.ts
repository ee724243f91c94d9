import { kedaTemplate } from "../../support/moduletemplates.js";
import {
  type Kube,
  type RatchetGenerators,
  updateOnly,
  type Violation,
  v,
} from "../../support/ratchet-generators.js";

const templateViolations: Violation[] = [
  // A channel value Kyma's older CRD allowed.
  v("moduletemplate.schema", "channel", (t) => {
    t.spec.channel = "Fast-Track";
  }),
  v("moduletemplate.cluster-scoped", "annotations", (t) => {
    t.metadata.annotations = { "operator.kyma-project.io/is-cluster-scoped": "True" };
  }),
  v("moduletemplate.name-matches-spec", "name", (t) => {
    t.metadata.name = "keda-1.3.0";
  }),
  v("moduletemplate.data-api-version", "dataApiVersion", (t) => {
    t.spec.data.apiVersion = "";
  }),
  v("moduletemplate.data-kind", "dataKind", (t) => {
    t.spec.data.kind = "Keda Operator";
  }),
  v("moduletemplate.link", "link", (t) => {
    t.spec.resources[0].link = "ftp://example.com/keda-manager.yaml";
  }),
  v("moduletemplate.unique-name", "icons", (t) => {
    t.spec.info.icons.push({ name: "module-icon", link: "https://example.com/other.svg" });
  }),
  updateOnly("moduletemplate.immutable-identity", "version", (t) => {
    t.spec.version = "1.1.0";
  }),
];

export const ratchetGenerators: RatchetGenerators = {
  dependencies: {},
  cases: [{ name: "ModuleTemplate", base: () => kedaTemplate() as Kube, violations: templateViolations }],
};
