import { dump, loadAll } from "js-yaml";
import { parseDocument } from "yaml";
import type { Finding, ResourceRef } from "../base/finding.js";
import { isResourceList } from "../manifests/manifests.js";
import type { BatchResult, Input } from "../offline/validate-batch.js";

/**
 * A result as the KRM Functions Specification defines it (kustomize and kpt show them): what the
 * function found, on which resource, at which field, in which file.
 */
interface KrmResult {
  message: string;
  severity: "error" | "warning" | "info";
  resourceRef?: ResourceRef;
  field?: { path: string };
  file?: { path: string; index?: number };
  tags?: Record<string, string>;
}

type KubeObject = Record<string, unknown> & { metadata?: { annotations?: Record<string, unknown> } };

/**
 * The ResourceList a KRM function answers with: the items unchanged (a validator changes nothing) and
 * `results`, one per finding. Items come from the ResourceList read on stdin, or from every object of
 * the inputs when `--krm` is given files.
 */
export function krmOutput(inputs: Input[], result: BatchResult): string {
  const items = inputs.flatMap((input) => itemsOf(input.text));
  const results = [
    ...result.findings.map((finding) => krmResult(finding, items)),
    // The checks this run could not make: once each, as kpt shows a function's notes.
    ...(result.summary.notChecked ?? []).map(
      (note): KrmResult => ({
        message: `not checked (${note.objects} objects): ${note.reason}`,
        severity: "info",
        tags: { rule: note.check },
      }),
    ),
  ];
  const [only] = inputs;
  if (inputs.length === 1 && only) {
    // The ResourceList as it came, with results added: kpt writes the items back to their files, so
    // their comments and layout must survive byte for byte. A block mapping at the top (what kpt and
    // kustomize send) takes a new last key as appended text; otherwise the document is edited.
    const document = parseDocument(only.text);
    const list = document.toJS() as Record<string, unknown> | null;
    if (isResourceList(list)) {
      if (!("results" in (list ?? {})) && /^kind:[ \t]*ResourceList[ \t]*$/m.test(only.text)) {
        const text = only.text.endsWith("\n") ? only.text : `${only.text}\n`;
        return text + dump({ results }, { noRefs: true, lineWidth: -1 });
      }
      document.set("results", results);
      return document.toString({ lineWidth: 0 });
    }
  }
  return dump(
    { apiVersion: "config.kubernetes.io/v1", kind: "ResourceList", items, results },
    { noRefs: true, lineWidth: -1 },
  );
}

function itemsOf(text: string): KubeObject[] {
  let documents: unknown[];
  try {
    documents = loadAll(text);
  } catch {
    return []; // its finding says why
  }
  return documents.flatMap((document) => {
    if (document === null || typeof document !== "object" || Array.isArray(document)) return [];
    const record = document as Record<string, unknown>;
    const isList = record.kind === "List" || isResourceList(record);
    if (isList && Array.isArray(record.items)) return record.items as KubeObject[];
    return [record as KubeObject];
  });
}

function krmResult(finding: Finding, items: KubeObject[]): KrmResult {
  const ref = finding.resource;
  const item = ref ? items.find((candidate) => sameResource(candidate, ref)) : undefined;
  const annotations = item?.metadata?.annotations ?? {};
  // kustomize and kpt record where each item came from (the internal.* names since kustomize 4.5).
  const path = annotations["internal.config.kubernetes.io/path"] ?? annotations["config.kubernetes.io/path"];
  const index =
    annotations["internal.config.kubernetes.io/index"] ?? annotations["config.kubernetes.io/index"];
  // kpt and kustomize print the field path beside the message: it is not repeated in it.
  const message =
    finding.field && finding.message.startsWith(`${finding.field}: `)
      ? finding.message.slice(finding.field.length + 2)
      : finding.message;
  return {
    message,
    severity: finding.severity,
    ...(ref ? { resourceRef: ref } : {}),
    ...(finding.field ? { field: { path: finding.field } } : {}),
    ...(typeof path === "string"
      ? {
          file: {
            path,
            ...(typeof index === "string" && /^\d+$/.test(index) ? { index: Number(index) } : {}),
          },
        }
      : ref
        ? {}
        : { file: { path: finding.file } }),
    tags: { rule: finding.rule },
  };
}

function sameResource(object: KubeObject, ref: ResourceRef): boolean {
  const metadata = (object.metadata ?? {}) as { name?: unknown; namespace?: unknown };
  return (
    object.apiVersion === ref.apiVersion &&
    object.kind === ref.kind &&
    metadata.name === ref.name &&
    (metadata.namespace ?? undefined) === ref.namespace
  );
}
