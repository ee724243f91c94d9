import { fileURLToPath } from "node:url";
import type { ResourceKind } from "../admission/resource-kind.js";
import { CustomResourceStrategy } from "../apiextensions/custom-resource.js";
import type { WorkBudget } from "../budget/work-budget.js";
import { buildCrd, storedVersionSchema } from "../codegen/crd.js";
import { buildEditorSchema } from "../codegen/editor-schema.js";
import { type KindDependencies, type KindRegistration, kindRegistrations } from "../resources/index.js";
import { type JsonSchema, loadSchemaSources, type SchemaSource } from "../schema/schema-source.js";
import { type StructureVerdict, structureChecker } from "../validation/structure.js";

/** A registered kind with its schema source: everything needed to give the cluster's verdict offline. */
export interface OfflineKind {
  kind: ResourceKind;
  source: SchemaSource;
  /** The CRD's openAPIV3Schema, generated from the source exactly as the chart's CRD is. */
  crdSchema: JsonSchema;
  /**
   * The schema's types and formats, from the same text as the kind's own structure gate: the two share
   * compiled code and verdicts, so an object is checked once (the gate then reads the verdict).
   */
  checkStructure: (object: unknown, budget: WorkBudget) => StructureVerdict;
  /** The API server's decoding and validation of the kind's custom resources, from the CRD's schema. */
  server: CustomResourceStrategy;
}

// The same path from src/ (tsx) and dist/ (compiled): both sit one level below the project root.
export const schemasDir = fileURLToPath(new URL("../../schemas/", import.meta.url));

/**
 * Every registered kind that has a schema source, with the source its registration names
 * (`KindRegistration.schema`), built with `dependencies` (lookups; none by default). A registration
 * without a schema (ConfigMap/addon-operator, a core kind) is judged elsewhere (addon-operator.ts). A
 * schema that does not exist, or whose CRD is of another group or kind than the kind built, is an
 * error: an offline verdict silently without a kind would pass every object of it.
 */
export function offlineKinds(
  dependencies: KindDependencies = {},
  registrations: readonly KindRegistration[] = kindRegistrations,
  dir = schemasDir,
): OfflineKind[] {
  const sources = new Map(loadSchemaSources(dir).map((source) => [source.name, source]));
  return registrations.flatMap((registration) => {
    if (registration.schema === undefined) return [];
    const source = sources.get(registration.schema);
    if (!source) {
      throw new Error(
        `kind ${registration.title}: its schema source ${registration.schema}.yaml is not in ${dir}`,
      );
    }
    return registration.create(dependencies).map((kind) => offlineKind(kind, source));
  });
}

function offlineKind(kind: ResourceKind, source: SchemaSource): OfflineKind {
  const { group, names } = source.crd;
  if (group !== kind.group || names.kind !== kind.kind) {
    throw new Error(
      `kind ${kind.group}/${kind.kind}: its registration names schema ${source.name}, a CRD of ${group}/${names.kind}`,
    );
  }
  // Built the first time an object of the kind is judged: a run on Modules alone (a pre-commit hook on
  // one file) never generates the other kinds' CRDs, editor schemas and API-server strategies.
  let built: Pick<OfflineKind, "crdSchema" | "checkStructure" | "server"> | undefined;
  const build = () => {
    if (built) return built;
    const crdSchema = storedVersionSchema(buildCrd(source));
    built = {
      crdSchema,
      checkStructure: structureChecker(buildEditorSchema(source)),
      server: new CustomResourceStrategy({
        openAPIV3Schema: crdSchema,
        kind: kind.kind,
        version: kind.version,
        namespaced: source.crd.scope === "Namespaced",
      }),
    };
    return built;
  };
  return {
    kind,
    source,
    get crdSchema() {
      return build().crdSchema;
    },
    get checkStructure() {
      return build().checkStructure;
    },
    get server() {
      return build().server;
    },
  };
}

/** The kind an object is, by its apiVersion and kind; undefined when no registered kind matches. */
export function kindOf(kinds: OfflineKind[], object: unknown): OfflineKind | undefined {
  const { apiVersion, kind } = (object ?? {}) as { apiVersion?: unknown; kind?: unknown };
  return kinds.find((k) => apiVersion === `${k.kind.group}/${k.kind.version}` && kind === k.kind.kind);
}

/**
 * Why an object that no kind matches still looks meant for one: its group is one this tool serves and
 * its kind one of ours at a version the CRD does not serve (`v1beta1`), or a near miss of one (`Modules`,
 * `module`, `Modul`); or its group is a near miss of a served one and its kind one of ours. Such an object would be refused by the API server (no
 * such resource) or never reach the webhook, so passing it silently would hide a typo. The core group
 * ("", ConfigMap) is no group of ours to claim: every `v1` object is in it.
 */
export function nearMissOf(kinds: OfflineKind[], object: unknown): string | undefined {
  const { apiVersion, kind } = (object ?? {}) as { apiVersion?: unknown; kind?: unknown };
  if (typeof apiVersion !== "string" || typeof kind !== "string") return undefined;
  const slash = apiVersion.lastIndexOf("/");
  const group = slash < 0 ? "" : apiVersion.slice(0, slash);
  const served = kinds.filter((k) => k.kind.group !== "");
  const known = (of: OfflineKind[]) =>
    of.map((k) => `${k.kind.group}/${k.kind.version} ${k.kind.kind}`).join(", ");
  const sameGroup = served.filter((k) => k.kind.group === group);
  // One of our kinds in another case, plural, singular, or a character or two off (`Modul`).
  const looksLike = (k: OfflineKind) =>
    [k.kind.kind, k.source.crd.names.plural, k.source.crd.names.singular].some(
      (name) => editDistance(name.toLowerCase(), kind.toLowerCase()) <= (name.length > 4 ? 2 : 0),
    );
  // Other kinds of a served group (Kyma's Kyma, Manifest, Watcher in operator.kyma-project.io) are
  // someone else's: skipped, as any kind without a schema.
  const meant = sameGroup.find(looksLike);
  if (meant) {
    const versions = sameGroup.map((k) => `${k.kind.version} ${k.kind.kind}`).join(", ");
    const hint = `; did you mean ${meant.kind.group}/${meant.kind.version} ${meant.kind.kind}?`;
    return `${apiVersion} ${kind} is not served: ${group} serves ${versions}${hint}`;
  }
  const nearGroup = served.filter(
    (k) => group !== "" && editDistance(k.kind.group, group) <= 2 && looksLike(k),
  );
  if (nearGroup.length === 0) return undefined;
  return `${apiVersion} ${kind} is not served: no group ${group}; did you mean ${known(nearGroup)}?`;
}

/** Levenshtein distance, for names a character or two apart. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
