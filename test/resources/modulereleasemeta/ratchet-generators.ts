import { kedaReleaseMeta } from "../../support/modulereleasemetas.js";
import {
  type Kube,
  type RatchetGenerators,
  updateOnly,
  type Violation,
  v,
} from "../../support/ratchet-generators.js";

const existingTemplates = new Set(["keda-1.1.0", "keda-1.2.0", "keda-1.3.0"]);
const releaseMetaBase = (): Kube => kedaReleaseMeta({ regular: "1.2.0", fast: "1.3.0", beta: "1.2.0" });

const releaseMetaViolations: Violation[] = [
  // A channel name shorter than today's schema allows.
  {
    ...v("modulereleasemeta.schema", "channel2Name", (m) => {
      m.spec.channels[2].channel = "be";
    }),
    alsoOwnsWhenNew: ["channel2Version"],
  },
  // The first channel: the rules read the list without it, and name the others where they are.
  {
    ...v("modulereleasemeta.schema", "channel0Name", (m) => {
      m.spec.channels[0].channel = "re";
    }),
    alsoOwnsWhenNew: ["channel0"],
  },
  v("modulereleasemeta.template-exists", "channel1", (m) => {
    m.spec.channels[1].version = "1.9.0";
  }),
  // A version lifecycle-manager's semver library cannot parse (its template cannot exist either).
  v("modulereleasemeta.version", "channel1", (m) => {
    m.spec.channels[1].version = "1.3.18446744073709551616";
  }),
  updateOnly("modulereleasemeta.channel-downgrade", "channel0", (m) => {
    m.spec.channels[0].version = "1.1.0";
  }),
  // The channel whose name breaks the schema moved down: still read, still refused.
  updateOnly("modulereleasemeta.channel-downgrade", "channel2Version", (m) => {
    m.spec.channels[2].version = "1.1.0";
  }),
];

export const ratchetGenerators: RatchetGenerators = {
  dependencies: { moduleTemplateExists: (_namespace, name) => existingTemplates.has(name) },
  cases: [{ name: "ModuleReleaseMeta", base: releaseMetaBase, violations: releaseMetaViolations }],
};
