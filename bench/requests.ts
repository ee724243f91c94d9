import type { AdmissionReview } from "../src/admission/review.js";

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
      {
        name: "Features",
        alias: "features",
        multipleOptions: {
          default: ["logging"],
          values: ["logging", "metrics", "tracing", "audit"],
          min: 1,
          max: 3,
        },
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
        features: ["logging", "tracing"],
        memory: 512,
      },
    },
  };
}

function review(object: unknown, oldObject: unknown = null): AdmissionReview {
  return {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: "705ab4f5-6393-11e8-b7cc-42010a800003",
      kind: { group: "batch.forkspacer.com", version: "v1", kind: "Module" },
      resource: { group: "batch.forkspacer.com", version: "v1", resource: "modules" },
      name: "redis-cache",
      namespace: "team-payments",
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
export const validateBody = JSON.stringify(review(helmModule(true)));
/** The mutate request: a Module without a release name, so the webhook generates one and patches. */
export const mutateBody = JSON.stringify(review(helmModule(false)));

/**
 * The update request: a stored Module with a problem (an undeclared config key) gets spec.hibernated
 * toggled. Ratcheting admits it, so every rule runs twice: on the new object and on the old one.
 */
export const updateBody = (() => {
  const stored = helmModule(true);
  Object.assign(stored.spec.config, { retired: true });
  const hibernated = structuredClone(stored);
  Object.assign(hibernated.spec, { hibernated: true });
  return JSON.stringify(review(hibernated, stored));
})();
