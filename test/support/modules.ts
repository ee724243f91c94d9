import type { Module } from "../../src/generated/module.js";

/** A valid helm Module touching every config type; tests break one thing at a time. */
export function helmModule(): Module {
  return {
    apiVersion: "batch.forkspacer.com/v1",
    kind: "Module",
    metadata: { name: "redis", namespace: "default" },
    config: [
      { name: "Version", alias: "version", option: { default: "21.2.9", values: ["21.2.9", "21.2.7"] } },
      { name: "Replicas", alias: "replicas", integer: { default: 1, min: 0, max: 5 } },
      { name: "Host", alias: "host", string: { default: "localhost", regex: "^[a-z.]+$" } },
      { name: "Metrics", alias: "metrics", boolean: { default: false } },
      {
        name: "Features",
        alias: "features",
        multipleOptions: { default: ["logging"], values: ["logging", "metrics", "tracing"], min: 1, max: 2 },
      },
    ],
    spec: {
      helm: {
        releaseName: "redis-main",
        chart: {
          repo: { url: "https://charts.bitnami.com/bitnami", chart: "redis", version: "{{.config.version}}" },
        },
        namespace: "default",
        values: [{ raw: { replica: { replicaCount: "{{.config.replicas}}" } } }],
      },
      workspace: { name: "dev-environment", namespace: "default" },
      config: {
        version: "21.2.7",
        replicas: 3,
        host: "redis.local",
        metrics: true,
      },
    },
  };
}

export function customModule(): Module {
  return {
    apiVersion: "batch.forkspacer.com/v1",
    kind: "Module",
    metadata: { name: "custom-app", namespace: "default" },
    spec: {
      custom: { image: "my-registry/custom-app:v1.0.0", permissions: ["workspace"] },
      workspace: { name: "dev-environment" },
    },
  };
}
