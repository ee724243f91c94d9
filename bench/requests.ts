import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import type { AdmissionReview } from "../src/admission/review.js";
import { corpusUrl } from "../test/support/corpus.js";

/**
 * A realistic helm Module of about 4 KB: six config items covering every config type, values for each,
 * labels and annotations as GitOps tools write them, and helm values that use the config.
 */
function helmModule(withReleaseName: boolean) {
  return {
    apiVersion: "batch.forkspacer.com/v1",
    kind: "Module",
    metadata: {
      name: "redis-cache",
      namespace: "team-payments",
      labels: {
        "app.kubernetes.io/name": "redis",
        "app.kubernetes.io/part-of": "payments",
        "app.kubernetes.io/managed-by": "argocd",
      },
      managedFields: [
        {
          manager: "argocd-controller",
          operation: "Apply",
          apiVersion: "batch.forkspacer.com/v1",
          time: "2026-11-21T10:00:00Z",
          fieldsType: "FieldsV1",
          fieldsV1: {
            "f:metadata": { "f:labels": { "f:app.kubernetes.io/name": {} } },
            "f:spec": { "f:helm": {}, "f:config": {} },
          },
        },
      ],
      annotations: {
        "argocd.argoproj.io/sync-wave": "2",
        "kubectl.kubernetes.io/last-applied-configuration":
          '{"apiVersion":"batch.forkspacer.com/v1","kind":"Module","metadata":{"name":"redis-cache","namespace":"team-payments"},"spec":{"workspace":{"name":"dev-environment"}}}',
      },
    },
    config: [
      {
        name: "Chart version",
        alias: "version",
        option: { default: "21.2.9", values: ["21.2.9", "21.2.7", "20.1.0"] },
      },
      { name: "Replicas", alias: "replicas", integer: { default: 1, min: 0, max: 5 } },
      { name: "Host name", alias: "host", string: { default: "localhost", regex: "^[a-z][a-z0-9.-]*$" } },
      { name: "Metrics", alias: "metrics", boolean: { default: false } },
      // Not multipleOptions: the operator v0.1.24 refuses every value of one, and so do we.
      {
        name: "Log level",
        alias: "logLevel",
        option: { default: "info", values: ["debug", "info", "warn"] },
      },
      {
        name: "Memory (MiB)",
        alias: "memory",
        integer: { default: 256, min: 64, max: 8192, required: true },
      },
    ],
    spec: {
      helm: {
        ...(withReleaseName ? { releaseName: "redis-cache-main" } : {}),
        chart: {
          repo: { url: "https://charts.bitnami.com/bitnami", chart: "redis", version: "{{.config.version}}" },
        },
        namespace: "team-payments",
        values: [
          {
            raw: {
              architecture: "replication",
              auth: { enabled: true, existingSecret: "redis-auth", existingSecretPasswordKey: "password" },
              replica: {
                replicaCount: "{{.config.replicas}}",
                resources: {
                  requests: { memory: "{{.config.memory}}Mi", cpu: "100m" },
                  limits: { memory: "1Gi" },
                },
                persistence: { enabled: true, size: "8Gi", storageClass: "standard" },
              },
              master: {
                resources: { requests: { memory: "{{.config.memory}}Mi", cpu: "250m" } },
                persistence: { enabled: true, size: "8Gi" },
                service: { type: "ClusterIP", ports: { redis: 6379 } },
              },
              metrics: {
                enabled: "{{.config.metrics}}",
                serviceMonitor: { enabled: false, interval: "30s" },
              },
              commonLabels: { team: "payments", environment: "development", "cost-center": "cc-4711" },
              networkPolicy: {
                enabled: true,
                allowExternal: false,
                extraIngress: [{ ports: [{ port: 6379 }] }],
              },
              tolerations: [{ key: "dedicated", operator: "Equal", value: "cache", effect: "NoSchedule" }],
              affinity: {
                podAntiAffinity: {
                  preferredDuringSchedulingIgnoredDuringExecution: [
                    {
                      weight: 100,
                      podAffinityTerm: {
                        topologyKey: "kubernetes.io/hostname",
                        labelSelector: {
                          matchLabels: {
                            "app.kubernetes.io/name": "redis",
                            "app.kubernetes.io/instance": "redis-cache",
                          },
                        },
                      },
                    },
                  ],
                },
              },
              extraEnvVars: [
                { name: "REDIS_IO_THREADS", value: "2" },
                { name: "REDIS_IO_THREADS_DO_READS", value: "yes" },
                { name: "REDIS_MAXMEMORY_POLICY", value: "allkeys-lru" },
              ],
              podAnnotations: { "prometheus.io/scrape": "true", "prometheus.io/port": "9121" },
              sentinel: { enabled: false, quorum: 2, downAfterMilliseconds: 60000, failoverTimeout: 180000 },
            },
          },
        ],
      },
      workspace: { name: "dev-environment", namespace: "team-payments" },
      config: {
        version: "21.2.7",
        replicas: 3,
        host: "redis.payments.svc",
        metrics: true,
        logLevel: "warn",
        memory: 512,
      },
    },
  };
}

interface Target {
  group: string;
  version: string;
  kind: string;
  resource: string;
}

const moduleTarget = { group: "batch.forkspacer.com", version: "v1", kind: "Module", resource: "modules" };

function review(
  target: Target,
  object: { metadata?: { name?: string; namespace?: string }; [field: string]: unknown },
  oldObject: unknown = null,
): AdmissionReview {
  const { resource, ...kind } = target;
  return {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: "705ab4f5-6393-11e8-b7cc-42010a800003",
      kind,
      resource: { group: target.group, version: target.version, resource },
      name: object.metadata?.name,
      namespace: object.metadata?.namespace,
      operation: oldObject ? "UPDATE" : "CREATE",
      userInfo: {
        username: "system:serviceaccount:argocd:argocd-application-controller",
        groups: ["system:serviceaccounts", "system:serviceaccounts:argocd", "system:authenticated"],
      },
      object,
      oldObject,
      dryRun: false,
    },
  };
}

/** The validate request: a valid Module that every rule looks at. */
export const validateBody = JSON.stringify(review(moduleTarget, helmModule(true)));
/** The mutate request: a Module without a release name, so the webhook generates one and patches. */
export const mutateBody = JSON.stringify(review(moduleTarget, helmModule(false)));

/**
 * The update request: a stored Module with a problem (a config value that is not whole) gets spec.hibernated
 * toggled. Ratcheting admits it, so every rule runs twice: on the new object and on the old one (two
 * verdicts), then the transition rules.
 */
export const updateBody = (() => {
  const stored = helmModule(true);
  // A memory that is not a whole number: the operator would truncate it silently; we deny it.
  Object.assign(stored.spec.config, { memory: 512.5 });
  const hibernated = structuredClone(stored);
  Object.assign(hibernated.spec, { hibernated: true });
  return JSON.stringify(review(moduleTarget, hibernated, stored));
})();

/**
 * A DELETE of the same Module: the API server sends the stored object as oldObject and no object, and no
 * rule runs. What module-admission costs beyond the floor here is its HTTP and protocol layer alone.
 */
export const deleteBody = (() => {
  const deletion = review(moduleTarget, helmModule(true));
  if (deletion.request) {
    deletion.request.operation = "DELETE";
    deletion.request.oldObject = deletion.request.object;
    deletion.request.object = null;
  }
  return JSON.stringify(deletion);
})();

/** Real data from the corpus (../shared, or MODULE_ADMISSION_CORPUS), read in place. */
const shared = corpusUrl("./");

/** A real ModuleTemplate (Kyma's community docker-registry module), on CREATE. */
export const moduleTemplateBody = (() => {
  const template = parse(
    readFileSync(
      new URL("kyma/moduletemplates/community-modules--docker-registry-0.9.0.yaml", shared),
      "utf8",
    ),
  );
  template.metadata.namespace = "kcp-system";
  return JSON.stringify(
    review(
      {
        group: "operator.kyma-project.io",
        version: "v1beta2",
        kind: "ModuleTemplate",
        resource: "moduletemplates",
      },
      template,
    ),
  );
})();

/** deckhouse v1.43.1's modules and global hooks: the tree `serve --modules-dir` reads for the ConfigMap path. */
export const deckhouseDir = fileURLToPath(new URL("addon-operator/deckhouse-v1.43.1/", shared));

/**
 * ConfigMap/addon-operator as a deckhouse cluster keeps it: global settings, modules switched on and off,
 * and sections for modules with schemas of every size.
 */
export const configMapBody = JSON.stringify(
  review(
    { group: "", version: "v1", kind: "ConfigMap", resource: "configmaps" },
    {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "addon-operator", namespace: "addon-operator" },
      data: {
        global:
          "storageClass: standard\nmodules:\n  publicDomainTemplate: '%s.example.com'\n  https:\n    mode: CertManager\n",
        certManagerEnabled: "true",
        userAuthn: "publishAPI:\n  enable: true\n",
        prometheus: "retentionDays: 30\nlongtermRetentionDays: 365\n",
        ingressNginxEnabled: "true",
        descheduler: "removePodsViolatingNodeAffinity: true\n",
        dashboardEnabled: "false",
        logShipperEnabled: "true",
        chronyEnabled: "true",
        chrony: "ntpServers:\n  - pool.ntp.org\n  - ntp.ubuntu.com\n",
      },
    },
  ),
);
