import { readFileSync } from "node:fs";
import { loadAll } from "js-yaml";
import type { AdmissionReview, Operation } from "../../src/admission/review.js";
import { corpusFound, corpusPath } from "./corpus.js";

let counter = 0;

/** An AdmissionReview as the API server sends it for a namespaced custom resource. */
export function admissionReview(options: {
  operation: Operation;
  object?: unknown;
  oldObject?: unknown;
  group?: string;
  version?: string;
  kind?: string;
  resource?: string;
  dryRun?: boolean;
}): AdmissionReview {
  const object = (options.object ?? options.oldObject) as {
    metadata?: { name?: string; namespace?: string };
  };
  const group = options.group ?? "batch.forkspacer.com";
  const version = options.version ?? "v1";
  return {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: `test-${++counter}-${Date.now()}`,
      kind: { group, version, kind: options.kind ?? "Module" },
      resource: { group, version, resource: options.resource ?? "modules" },
      name: object?.metadata?.name,
      namespace: object?.metadata?.namespace ?? "default",
      operation: options.operation,
      userInfo: { username: "kubernetes-admin", groups: ["system:masters", "system:authenticated"] },
      object: options.operation === "DELETE" ? null : options.object,
      oldObject: options.oldObject ?? null,
      dryRun: options.dryRun ?? false,
    },
  };
}

/**
 * Every object of `kind` in the YAML code blocks of a Markdown document of the spec (in the corpus):
 * none without the corpus, and the tests that need them say so with `withoutCorpus`.
 */
export function specExamples(specFile: string, kind: string): Record<string, unknown>[] {
  if (!corpusFound) return [];
  const markdown = readFileSync(corpusPath("spec", specFile), "utf8");
  const blocks = [...markdown.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");
  return blocks
    .flatMap((block) => {
      try {
        return loadAll(block) as unknown[];
      } catch {
        return [];
      }
    })
    .filter((doc): doc is Record<string, unknown> => (doc as { kind?: unknown } | null)?.kind === kind);
}

export const clone = <T>(value: T): T => structuredClone(value);
