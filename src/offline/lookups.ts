import type { RuleId } from "../admission/rule-catalogue.js";
import type { KindDependencies } from "../resources/index.js";

/**
 * The checks `serve` makes by looking objects up in the cluster (from its informer caches), which
 * `validate` can make only against objects it is given: `--cluster-objects` files, and the input's own.
 */
interface Lookup {
  /** The webhook rule the lookup serves. */
  rule: RuleId;
  kind: string;
  /** What is checked, and what `--cluster-objects` must hold for it. */
  check: string;
  needs: string;
  /** Whether serve would look something up for this object (CREATE only where the rule is). */
  applies(object: Record<string, unknown>, operation: "CREATE" | "UPDATE"): boolean;
}

const specOf = (object: Record<string, unknown>) => (object.spec ?? {}) as Record<string, unknown>;

export const lookups: readonly Lookup[] = [
  {
    rule: "module.workspace-exists",
    kind: "Module",
    check: "spec.workspace names a Workspace that exists",
    needs: "the Workspaces",
    applies: (object, operation) => operation === "CREATE" && specOf(object).workspace !== undefined,
  },
  {
    rule: "workspace.from",
    kind: "Workspace",
    check: "spec.from names a Workspace that exists",
    needs: "the Workspaces",
    applies: (object, operation) => operation === "CREATE" && specOf(object).from !== undefined,
  },
  {
    rule: "modulereleasemeta.template-exists",
    kind: "ModuleReleaseMeta",
    check: "each assigned version has its ModuleTemplate <moduleName>-<version>",
    needs: "the ModuleTemplates",
    applies: (object) => Array.isArray(specOf(object).channels) || specOf(object).mandatory !== undefined,
  },
];

/**
 * Without `--cluster-objects`, the input's own objects answer the lookups they can (a Workspace applied
 * with its Modules exists once they are applied together); a lookup they cannot answer passes, as
 * nothing is known of the cluster, and `takeUnanswered` tells (and forgets) that one was made.
 */
export function lookupsFromInput(objects: readonly Identified[]): {
  dependencies: KindDependencies;
  takeUnanswered(): boolean;
} {
  const known = lookupsFromObjects(objects);
  let unanswered = false;
  const orUnanswered =
    (exists: (namespace: string, name: string) => boolean) => (namespace: string, name: string) => {
      if (!exists(namespace, name)) unanswered = true;
      return true;
    };
  return {
    dependencies: {
      workspaceExists: orUnanswered(known.workspaceExists ?? (() => false)),
      moduleTemplateExists: orUnanswered(known.moduleTemplateExists ?? (() => false)),
    },
    takeUnanswered() {
      const made = unanswered;
      unanswered = false;
      return made;
    },
  };
}

/** A check this run could not make: named once, with how many objects it concerns. */
export interface NotChecked {
  /** The rule id (`module.workspace-exists`), or what was not judged (`ConfigMap/addon-operator`). */
  check: string;
  objects: number;
  /** Why, and how to have it made: one sentence. */
  reason: string;
}

/** A lookup's note: what was not checked and which flag makes it. */
export function lookupNotMade(lookup: Lookup): Omit<NotChecked, "objects"> {
  return {
    check: lookup.rule,
    reason: `${lookup.kind} ${lookup.check}: a cluster lookup; give ${lookup.needs} with --cluster-objects FILE|DIR`,
  };
}

type Identified = Record<string, unknown> & { metadata?: { name?: unknown; namespace?: unknown } };

/**
 * The kinds' lookups, answered from these objects (Workspaces, ModuleTemplates; a manifest
 * without a namespace is in `default`, as kubectl applies it without -n).
 */
export function lookupsFromObjects(objects: readonly Identified[]): KindDependencies {
  const names = (group: string, kind: string) =>
    new Set(
      objects
        .filter((object) => String(object.apiVersion).startsWith(`${group}/`) && object.kind === kind)
        .map(
          (object) => `${String(object.metadata?.namespace ?? "default")}/${String(object.metadata?.name)}`,
        ),
    );
  const workspaces = names("batch.forkspacer.com", "Workspace");
  const templates = names("operator.kyma-project.io", "ModuleTemplate");
  return {
    workspaceExists: (namespace, name) => workspaces.has(`${namespace}/${name}`),
    moduleTemplateExists: (namespace, name) => templates.has(`${namespace}/${name}`),
  };
}
