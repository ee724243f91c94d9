import type { ModuleTemplate, ModuleTemplateSpec } from "../../src/generated/moduletemplate.js";

/** A template whose spec is there (Kyma's CRD does not require one). */
export type TemplateWithSpec = ModuleTemplate & { spec: ModuleTemplateSpec };

import { admissionReview } from "./reviews.js";

/** A minimal OCM component descriptor, as modulectl writes one (shape only: the webhook keeps it opaque). */
const descriptor = {
  component: { name: "kyma-project.io/module/keda", version: "1.2.0", provider: "kyma-project.io" },
  meta: { schemaVersion: "v2" },
};

/** A valid ModuleTemplate setting every field of the spec but the deprecated ones; tests break one thing. */
export function kedaTemplate(): TemplateWithSpec {
  return {
    apiVersion: "operator.kyma-project.io/v1beta2",
    kind: "ModuleTemplate",
    metadata: {
      name: "keda-1.2.0",
      namespace: "kcp-system",
      labels: { "operator.kyma-project.io/module-name": "keda", "operator.kyma-project.io/beta": "false" },
    },
    spec: {
      moduleName: "keda",
      version: "1.2.0",
      mandatory: false,
      requiresDowntime: false,
      data: {
        apiVersion: "operator.kyma-project.io/v1alpha1",
        kind: "Keda",
        metadata: { name: "default" },
        spec: { resources: { operator: { limits: { cpu: "800m" } } } },
      },
      descriptor,
      info: {
        repository: "https://github.com/kyma-project/keda-manager",
        documentation: "https://kyma-project.io/#/keda-manager/user/README",
        icons: [{ name: "module-icon", link: "https://example.com/keda.svg" }],
      },
      resources: [{ name: "rawManifest", link: "https://example.com/keda-manager.yaml" }],
      associatedResources: [{ group: "keda.sh", version: "v1alpha1", kind: "ScaledObject" }],
      manager: {
        group: "apps",
        version: "v1",
        kind: "Deployment",
        namespace: "kyma-system",
        name: "keda-manager",
      },
    },
  };
}

/**
 * The examples of the spec (001, the ModuleTemplate reference), indentation restored. Most are partial
 * (a spec fragment); each is placed in a template with only the descriptor every template needs.
 */
export function specExampleTemplates(): { title: string; template: TemplateWithSpec }[] {
  const around = (name: string, spec: Partial<ModuleTemplateSpec>): TemplateWithSpec => ({
    apiVersion: "operator.kyma-project.io/v1beta2",
    kind: "ModuleTemplate",
    metadata: { name, namespace: "kcp-system" },
    spec: { descriptor, ...spec },
  });
  return [
    { title: "channel", template: around("moduletemplate-sample", { channel: "regular" }) },
    {
      title: "data",
      template: around("keda-data", {
        data: {
          apiVersion: "operator.kyma-project.io/v1alpha1",
          kind: "Keda",
          metadata: { name: "keda-sample" },
          spec: {
            resources: {
              operator: {
                limits: { cpu: "800m", memory: "200Mi" },
                requests: { cpu: "300m", memory: "150Mi" },
              },
            },
          },
        },
      }),
    },
    {
      title: "info",
      template: around("info", {
        info: {
          repository: "https://github.com/example/repo",
          documentation: "https://docs.example.com",
          icons: [{ name: "example-icon", link: "https://example.com/icon.png" }],
        },
      }),
    },
    {
      title: "manager: a Deployment",
      template: around("manager-deployment", {
        manager: {
          group: "apps",
          version: "v1",
          kind: "Deployment",
          namespace: "kyma-system",
          name: "keda-manager",
        },
      }),
    },
    {
      title: "manager: a CustomResourceDefinition, no namespace",
      template: around("manager-crd", {
        manager: {
          group: "apiextensions.k8s.io",
          version: "v1",
          kind: "CustomResourceDefinition",
          name: "kedas.operator.kyma-project.io",
        },
      }),
    },
    {
      title: "customStateCheck: health mapped to states",
      template: around("state-health", {
        customStateCheck: [
          { jsonPath: "status.health", value: "green", mappedState: "Ready" },
          { jsonPath: "status.health", value: "red", mappedState: "Error" },
        ],
      }),
    },
    {
      title: "customStateCheck: two fields for Ready",
      template: around("state-fields", {
        customStateCheck: [
          { jsonPath: "module.state.field1", value: "value1", mappedState: "Ready" },
          { jsonPath: "module.state.field2", value: "value2", mappedState: "Ready" },
        ],
      }),
    },
    {
      title: "sync label",
      template: {
        ...around("unsynced", {}),
        metadata: { name: "unsynced", labels: { "operator.kyma-project.io/sync": "false" } },
      },
    },
  ];
}

/** An AdmissionReview for a ModuleTemplate, as the API server sends it. */
export function templateReview(options: {
  operation: "CREATE" | "UPDATE";
  object: unknown;
  oldObject?: unknown;
}) {
  return admissionReview({
    ...options,
    group: "operator.kyma-project.io",
    version: "v1beta2",
    kind: "ModuleTemplate",
    resource: "moduletemplates",
  });
}
