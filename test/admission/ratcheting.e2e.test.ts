import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { AdmissionResponse } from "../../src/admission/review.js";
import type { Module } from "../../src/generated/module.js";
import { addonOperatorConfigMapKind } from "../../src/resources/addon-operator-configmap/index.js";
import { createModuleKind } from "../../src/resources/module/index.js";
import { createModuleReleaseMetaKind } from "../../src/resources/modulereleasemeta/index.js";
import { moduleTemplateKind } from "../../src/resources/moduletemplate/index.js";
import { configMap, writeTree } from "../support/addon-modules.js";
import { type LiveServer, startLiveServer } from "../support/live-server.js";
import { kedaReleaseMeta } from "../support/modulereleasemetas.js";
import { helmModule } from "../support/modules.js";
import { kedaTemplate } from "../support/moduletemplates.js";
import { admissionReview, clone } from "../support/reviews.js";

type Kube = { metadata: Record<string, any> } & Record<string, any>;

/**
 * One served kind, a stored object of it that breaks at least two different state rules (as objects
 * stored before the webhook, while it was down, or before a rule was tightened do), and edits.
 */
interface KindCase {
  name: string;
  path: string;
  gvk: { group: string; version: string; kind: string; resource: string };
  stored: () => Kube;
  /** The problems the stored object has, as field paths: each must come back as a warning. */
  storedProblems: string[];
  /** Spec edits a controller makes that keep every problem as it was (Module: spec.hibernated). */
  specEdits: { name: string; edit: (object: Kube) => void }[];
  newProblem: { edit: (object: Kube) => void; field: string };
  /** An old problem made different (a changed invalid value is a new problem). */
  worsened: { edit: (object: Kube) => void; field: string };
  immutable: { edit: (object: Kube) => void; field: string };
}

const brokenModule = (): Kube => {
  const module = helmModule();
  // An explicit option default that is not one of the values, and a multipleOptions value (the
  // operator v0.1.24 refuses every one): stored while the webhook was down, or before a fix.
  const version = module.config?.[0];
  if (version?.option) version.option.default = "1.0";
  module.spec.config = { ...module.spec.config, features: ["logging"] };
  return module as unknown as Kube;
};

const brokenTemplate = (): Kube => {
  const template = kedaTemplate() as unknown as Kube;
  // A name of another shape than <moduleName>-<version>: a changed version meets only the update rule.
  template.metadata.name = "keda-stable";
  template.metadata.annotations = { "operator.kyma-project.io/is-cluster-scoped": "True" };
  template.spec.resources = [
    { name: "rawManifest", link: "https://example.com/a.yaml" },
    { name: "rawManifest", link: "https://example.com/b.yaml" },
  ];
  return template;
};

// Two channels whose <moduleName>-<version> templates are gone (only 1.1.0 and 1.2.0 exist).
const existingVersions = ["1.1.0", "1.2.0"];
const brokenReleaseMeta = (): Kube =>
  kedaReleaseMeta({ regular: "1.2.0", fast: "1.3.0", experimental: "1.5.0" }) as unknown as Kube;

const brokenConfigMap = (): Kube =>
  configMap({
    global: "project: p\nclusterName: c\n",
    someModuleEnabled: "yes",
    someModule: "param1: 5\n",
    guarded: "storageClass: fast\n",
  });

const cases: KindCase[] = [
  {
    name: "Module",
    path: "/validate-batch-forkspacer-com-v1-module",
    gvk: { group: "batch.forkspacer.com", version: "v1", kind: "Module", resource: "modules" },
    stored: brokenModule,
    storedProblems: ["config[0].option.default", "spec.config.features"],
    specEdits: [
      { name: "spec.hibernated toggled on", edit: (m) => Object.assign(m.spec, { hibernated: true }) },
      {
        name: "spec.hibernated toggled off",
        edit: (m) => Object.assign(m.spec, { hibernated: false }),
      },
    ],
    // spec.config is immutable (as in the operator): new problems come from the config schema.
    newProblem: {
      edit: (m) => Object.assign(m.config[1].integer, { default: 9 }),
      field: "config[1].integer.default",
    },
    worsened: {
      edit: (m) => Object.assign(m.config[0].option, { default: "2.0" }),
      field: "config[0].option.default",
    },
    immutable: {
      edit: (m) => Object.assign(m.spec.helm, { releaseName: "redis-other" }),
      field: "spec.helm.releaseName",
    },
  },
  {
    name: "ModuleTemplate",
    path: "/validate-operator-kyma-project-io-v1beta2-moduletemplate",
    gvk: {
      group: "operator.kyma-project.io",
      version: "v1beta2",
      kind: "ModuleTemplate",
      resource: "moduletemplates",
    },
    stored: brokenTemplate,
    storedProblems: [
      "metadata.annotations[operator.kyma-project.io/is-cluster-scoped]",
      "spec.resources[1].name",
    ],
    specEdits: [{ name: "spec.mandatory changed", edit: (t) => Object.assign(t.spec, { mandatory: true }) }],
    newProblem: {
      edit: (t) => t.spec.info.icons.push({ name: "module-icon", link: "https://example.com/other.svg" }),
      field: "spec.info.icons[1].name",
    },
    worsened: {
      // With a spec change: an update of metadata alone is admitted whatever it does to labels.
      edit: (t) => {
        Object.assign(t.metadata.annotations, { "operator.kyma-project.io/is-cluster-scoped": "TRUE" });
        t.spec.mandatory = true;
      },
      field: "metadata.annotations[operator.kyma-project.io/is-cluster-scoped]",
    },
    immutable: { edit: (t) => Object.assign(t.spec, { version: "1.1.0" }), field: "spec.version" },
  },
  {
    name: "ModuleReleaseMeta",
    path: "/validate-operator-kyma-project-io-v1beta2-modulereleasemeta",
    gvk: {
      group: "operator.kyma-project.io",
      version: "v1beta2",
      kind: "ModuleReleaseMeta",
      resource: "modulereleasemetas",
    },
    stored: brokenReleaseMeta,
    storedProblems: ["spec.channels[1].version", "spec.channels[2].version"],
    specEdits: [
      {
        name: "spec.ocmComponentName changed",
        edit: (m) => Object.assign(m.spec, { ocmComponentName: "kyma-project.io/module/keda-manager" }),
      },
    ],
    newProblem: {
      edit: (m) => m.spec.channels.push({ channel: "preview", version: "9.9.9" }),
      field: "spec.channels[3].version",
    },
    worsened: {
      edit: (m) => Object.assign(m.spec.channels[1], { version: "1.4.0" }),
      field: "spec.channels[1].version",
    },
    // A channel moved down is refused whatever its template (lifecycle-manager does not downgrade).
    immutable: {
      edit: (m) => Object.assign(m.spec.channels[0], { version: "1.1.0" }),
      field: "spec.channels[0].version",
    },
  },
  {
    name: "ConfigMap/addon-operator",
    path: "/validate-addon-operator-configmap",
    gvk: { group: "", version: "v1", kind: "ConfigMap", resource: "configmaps" },
    stored: brokenConfigMap,
    storedProblems: ["data.someModuleEnabled", "data.someModule.param1"],
    specEdits: [
      {
        name: "another module's section changed",
        edit: (c) => Object.assign(c.data, { guardedEnabled: "true" }),
      },
    ],
    newProblem: {
      edit: (c) => Object.assign(c.data, { someModuleMaintenance: "Paused" }),
      field: "data.someModuleMaintenance",
    },
    worsened: {
      edit: (c) => Object.assign(c.data, { someModuleEnabled: "no" }),
      field: "data.someModuleEnabled",
    },
    immutable: {
      edit: (c) => Object.assign(c.data, { guarded: "storageClass: slow\n" }),
      field: "data.guarded.storageClass",
    },
  },
];

const edited = (object: Kube, edit: (object: Kube) => void): Kube => {
  const copy = clone(object);
  edit(copy);
  return copy;
};

const deleting = (object: Kube): Kube =>
  edited(object, (o) => {
    o.metadata.deletionTimestamp = "2026-11-22T05:00:00Z";
    o.metadata.finalizers = ["example.com/cleanup"];
  });

describe("ratcheting on UPDATE through the live server, for every served kind", () => {
  let server: LiveServer;
  before(async () => {
    const modulesDir = writeTree({
      // Enabled by the static values: addon-operator validates only an enabled module's section.
      "values.yaml": "someModuleEnabled: true\nguardedEnabled: true\n",
      "001-some-module/openapi/config-values.yaml": {
        type: "object",
        properties: { param1: { type: "string" } },
      },
      "002-guarded/openapi/config-values.yaml": {
        type: "object",
        properties: {
          storageClass: {
            type: "string",
            "x-deckhouse-validations": [
              { expression: "self == oldSelf", message: "storageClass is immutable" },
            ],
          },
        },
      },
    });
    const configMapKind = addonOperatorConfigMapKind({
      modulesDir,
      configMap: { namespace: "addon-operator", name: "addon-operator" },
    });
    server = await startLiveServer([
      createModuleKind(),
      moduleTemplateKind,
      createModuleReleaseMetaKind({
        moduleTemplateExists: (_namespace, name) => existingVersions.some((v) => name === `keda-${v}`),
      }),
      configMapKind,
    ]);
  });
  after(() => server.close());

  for (const kind of cases) {
    const post = async (object: Kube | undefined, oldObject?: Kube): Promise<AdmissionResponse> => {
      const body = admissionReview({
        operation: oldObject ? "UPDATE" : "CREATE",
        object,
        oldObject,
        ...kind.gvk,
      });
      const reply = await server.post(kind.path, body);
      assert.equal(reply.status, 200);
      return reply.json.response;
    };
    const causeFields = (response: AdmissionResponse) =>
      (response.status?.details?.causes ?? []).map((cause) => cause.field);
    const assertAdmittedWithOldProblems = (response: AdmissionResponse) => {
      assert.equal(response.allowed, true, JSON.stringify(response.status));
      const ratcheted = (response.warnings ?? []).filter((w) =>
        w.startsWith("already invalid before this update: "),
      );
      for (const field of kind.storedProblems) {
        assert.ok(
          ratcheted.some((w) => w.startsWith(`already invalid before this update: ${field}: `)),
          `${field} in ${JSON.stringify(response.warnings)}`,
        );
      }
      assert.equal(ratcheted.length, kind.storedProblems.length, JSON.stringify(response.warnings));
      for (const warning of response.warnings ?? []) assert.ok(warning.length <= 120, warning);
    };

    describe(kind.name, () => {
      it("the stored object is one that today's rules deny on CREATE, for each of its problems", async () => {
        const created = await post(kind.stored());
        assert.equal(created.allowed, false);
        assert.deepEqual(causeFields(created).sort(), [...kind.storedProblems].sort());
      });

      it("a finalizer added is admitted, with the old problems as warnings", async () => {
        const stored = kind.stored();
        const update = edited(stored, (o) => {
          o.metadata.finalizers = ["example.com/cleanup"];
        });
        assertAdmittedWithOldProblems(await post(update, stored));
      });

      it("a finalizer removed while deletionTimestamp is set is admitted", async () => {
        const stored = deleting(kind.stored());
        const update = edited(stored, (o) => {
          o.metadata.finalizers = [];
        });
        assertAdmittedWithOldProblems(await post(update, stored));
      });

      it("a label changed is admitted", async () => {
        const stored = kind.stored();
        const update = edited(stored, (o) => {
          o.metadata.labels = { ...o.metadata.labels, team: "platform" };
        });
        assertAdmittedWithOldProblems(await post(update, stored));
      });

      for (const { name, edit } of kind.specEdits) {
        it(`${name}: admitted, the problems being unchanged`, async () => {
          const stored = kind.stored();
          assertAdmittedWithOldProblems(await post(edited(stored, edit), stored));
        });
      }

      it("an update that adds a new problem is denied, naming only the new problem", async () => {
        const stored = kind.stored();
        const response = await post(edited(stored, kind.newProblem.edit), stored);
        assert.equal(response.allowed, false);
        assert.equal(response.status?.code, 422);
        assert.deepEqual(causeFields(response), [kind.newProblem.field]);
        assert.ok(
          !response.status?.message.includes(kind.storedProblems[0] ?? "-"),
          response.status?.message,
        );
        // The old problems are still shown, as warnings.
        assert.equal(
          (response.warnings ?? []).filter((w) => w.startsWith("already invalid before this update: "))
            .length,
          kind.storedProblems.length,
        );
      });

      it("an old problem given a different invalid value is a new problem", async () => {
        const stored = kind.stored();
        const response = await post(edited(stored, kind.worsened.edit), stored);
        assert.equal(response.allowed, false);
        assert.deepEqual(causeFields(response), [kind.worsened.field]);
      });

      it("an immutable field changed is denied (update-only rules are never ratcheted)", async () => {
        const stored = kind.stored();
        const response = await post(edited(stored, kind.immutable.edit), stored);
        assert.equal(response.allowed, false);
        assert.deepEqual(causeFields(response), [kind.immutable.field]);
      });

      it("an immutable field changed is denied also while the object is being deleted", async () => {
        const stored = deleting(kind.stored());
        const response = await post(edited(stored, kind.immutable.edit), stored);
        assert.equal(response.allowed, false);
        assert.deepEqual(causeFields(response), [kind.immutable.field]);
      });
    });
  }
});

describe("a Module whose Workspace is gone", () => {
  let server: LiveServer;
  const path = "/validate-batch-forkspacer-com-v1-module";
  before(async () => {
    const kind = createModuleKind({ workspaceExists: (namespace) => namespace === "live" });
    server = await startLiveServer([kind]);
  });
  after(() => server.close());
  const post = async (object: Module, oldObject?: Module): Promise<AdmissionResponse> =>
    (
      await server.post(
        path,
        admissionReview({ operation: oldObject ? "UPDATE" : "CREATE", object, oldObject }),
      )
    ).json.response;

  it("can still be updated and deleted; a reference to another missing Workspace is denied", async () => {
    const stored = helmModule();
    assert.equal((await post(stored)).allowed, false, "the Workspace does not exist");
    const finalizerRemoved = deleting(stored as unknown as Kube) as unknown as Module;
    const removed = clone(finalizerRemoved);
    Object.assign(removed.metadata ?? {}, { finalizers: [] });
    assert.equal((await post(removed, finalizerRemoved)).allowed, true);
    const hibernated = clone(stored);
    hibernated.spec.hibernated = true;
    const response = await post(hibernated, stored);
    assert.equal(response.allowed, true);
    assert.deepEqual(response.warnings, [
      'already invalid before this update: spec.workspace: Not found: "default/dev-environment"',
    ]);
    // spec.workspace is immutable, as in the operator's webhook: a move is denied for that alone
    // when the new Workspace exists, and for both reasons when it does not.
    const moved = clone(stored);
    moved.spec.workspace = { name: "elsewhere", namespace: "default" };
    assert.deepEqual(
      (await post(moved, stored)).status?.details?.causes?.map((cause) => `${cause.field}: ${cause.message}`),
      [
        'spec.workspace: Not found: "default/elsewhere" (rule module.workspace-exists)',
        'spec.workspace: Invalid value: {"name":"elsewhere","namespace":"default"}: field is immutable (rule module.workspace-immutable)',
      ],
    );
    const fixed = clone(stored);
    fixed.spec.workspace = { name: "dev-environment", namespace: "live" };
    assert.deepEqual(
      (await post(fixed, stored)).status?.details?.causes?.map((cause) => `${cause.field}: ${cause.message}`),
      [
        'spec.workspace: Invalid value: {"name":"dev-environment","namespace":"live"}: field is immutable (rule module.workspace-immutable)',
      ],
    );
  });
});
