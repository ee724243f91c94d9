import type { AdmissionReview, Operation } from "../../src/admission/review.js";
import type { Module } from "../../src/generated/module.js";
import { denialCases } from "./module-cases.js";
import { customModule, helmModule } from "./modules.js";
import { admissionReview, specExamples } from "./reviews.js";

/**
 * One AdmissionReview the end-to-end suite posts, named. The same table drives the parity test, which
 * checks that `module-admission validate` gives the live server's verdict on every case.
 */
export interface AdmissionCase {
  name: string;
  /** The webhook the end-to-end test posts the review to first. */
  webhook: "mutate" | "validate";
  review: AdmissionReview;
}

const review = (operation: Operation, object: unknown, oldObject?: unknown, dryRun = false) =>
  admissionReview({ operation, object, oldObject, dryRun });

const modified = (base: Module, change: (module: Module) => void): Module => {
  change(base);
  return base;
};

function withoutReleaseName(module: Module): Module {
  if (module.spec.helm) delete module.spec.helm.releaseName;
  return module;
}

const badReleaseName = () =>
  modified(helmModule(), (m) => {
    if (m.spec.helm) m.spec.helm.releaseName = "Bad";
  });

/** A Module stored before today's rules: an undeclared config key and an option default of "". */
const storedInvalid = () =>
  modified(helmModule(), (m) => {
    const version = m.config?.[0];
    if (version?.option) version.option.default = "";
    m.spec.config = { ...m.spec.config, extra: "undeclared" };
  });

const deletingWithFinalizer = () =>
  modified(storedInvalid(), (m) => {
    m.metadata = { ...m.metadata, deletionTimestamp: "2026-11-22T05:00:00Z", finalizers: ["cleanup"] };
  });

/** UPDATEs of a stored invalid Module: ratcheting admits what does not add a problem. */
function ratchetingCases(): AdmissionCase[] {
  const update = (name: string, change: (module: Module) => void, old = storedInvalid()): AdmissionCase => ({
    name: `ratcheting: ${name}`,
    webhook: "validate",
    review: review("UPDATE", modified(structuredClone(old), change), old),
  });
  return [
    update("a finalizer added", (m) => {
      m.metadata = { ...m.metadata, finalizers: ["cleanup"] };
    }),
    update(
      "the finalizer removed while deleting",
      (m) => {
        m.metadata = { ...m.metadata, finalizers: [] };
      },
      deletingWithFinalizer(),
    ),
    update("spec.hibernated toggled", (m) => {
      m.spec.hibernated = true;
    }),
    update("a new problem denies", (m) => {
      m.spec.config = { ...m.spec.config, replicas: 7 };
    }),
    update("an old problem with a new value denies", (m) => {
      m.spec.config = { ...m.spec.config, extra: "other" };
    }),
    update(
      "a schema type error left as it was",
      (m) => {
        m.metadata = { ...m.metadata, labels: { team: "payments" } };
        m.spec.config = { ...m.spec.config, replicas: 4 };
      },
      modified(helmModule(), (m) => {
        Object.assign(m.spec, { hibernated: "yes" });
      }),
    ),
    update("the release name changed denies", (m) => {
      if (m.spec.helm) m.spec.helm.releaseName = "redis-other";
    }),
  ];
}

/** Every case, built fresh (each review gets its own uid). */
export function admissionCases(): AdmissionCase[] {
  const examples = specExamples("forkspacer-module-reference.md", "Module").map(
    (example): AdmissionCase => ({
      name: `spec example ${(example.metadata as { name: string }).name}`,
      webhook: "mutate",
      review: review("CREATE", example),
    }),
  );
  const denials = denialCases.map(
    (denial): AdmissionCase => ({
      name: `denied: ${denial.name}`,
      webhook: "validate",
      review: review(denial.operation, structuredClone(denial.object), structuredClone(denial.oldObject)),
    }),
  );
  return [
    ...examples,
    ...denials,
    ...ratchetingCases(),
    { name: "valid helm module", webhook: "validate", review: review("CREATE", helmModule()) },
    { name: "valid custom module", webhook: "validate", review: review("CREATE", customModule()) },
    {
      name: "helm and custom, bad release name, replicas over max",
      webhook: "validate",
      review: review(
        "CREATE",
        modified(helmModule(), (m) => {
          m.spec.custom = { image: "x" };
          if (m.spec.helm) m.spec.helm.releaseName = "Foo";
          m.spec.config = { ...m.spec.config, replicas: 7 };
        }),
      ),
    },
    {
      name: "no release name, namespace starting with a digit and too long",
      webhook: "mutate",
      review: review(
        "CREATE",
        modified(withoutReleaseName(helmModule()), (m) => {
          m.metadata = {
            name: "r",
            namespace: "0123456789-0123456789-0123456789-0123456789-0123456789-012345678",
          };
        }),
      ),
    },
    {
      name: "update that drops the release name",
      webhook: "mutate",
      review: review("UPDATE", withoutReleaseName(helmModule()), helmModule()),
    },
    {
      name: "update that changes the release name",
      webhook: "validate",
      review: review(
        "UPDATE",
        modified(helmModule(), (m) => {
          if (m.spec.helm) m.spec.helm.releaseName = "redis-other";
        }),
        helmModule(),
      ),
    },
    {
      name: "update from helm to custom",
      webhook: "validate",
      review: review(
        "UPDATE",
        modified(customModule(), (m) => {
          m.metadata = helmModule().metadata;
        }),
        helmModule(),
      ),
    },
    {
      name: "delete",
      webhook: "validate",
      review: admissionReview({ operation: "DELETE", oldObject: helmModule() }),
    },
    {
      name: "connect",
      webhook: "validate",
      review: admissionReview({ operation: "CONNECT", oldObject: helmModule() }),
    },
    { name: "bad release name", webhook: "validate", review: review("CREATE", badReleaseName()) },
    {
      name: "bad release name, dry run",
      webhook: "validate",
      review: review("CREATE", badReleaseName(), undefined, true),
    },
    {
      name: "wrong type and a misspelt field",
      webhook: "validate",
      review: review(
        "CREATE",
        modified(helmModule(), (m) => {
          Object.assign(m.spec, { hibernated: "yes", workspce: { name: "typo" } });
        }),
      ),
    },
    {
      name: "two chart sources and an undeclared config key",
      webhook: "validate",
      review: review(
        "CREATE",
        modified(helmModule(), (m) => {
          if (m.spec.helm) m.spec.helm.chart.git = { repo: "https://github.com/org/charts" };
          m.spec.config = { ...m.spec.config, repliacs: 2 };
        }),
      ),
    },
  ];
}

export function admissionCase(name: string): AdmissionCase {
  const found = admissionCases().find((c) => c.name === name);
  if (!found) throw new Error(`no admission case named ${JSON.stringify(name)}`);
  return found;
}
