import type { ResourceKind } from "../admission/resource-kind.js";
import {
  type MutationDeclaration,
  protocolRules,
  type RuleDeclaration,
} from "../admission/rule-catalogue.js";
import type { ChartServing } from "../codegen/chart-webhooks.js";
import { type AddonOperatorFlags, addonOperatorKinds } from "./addon-operator-configmap/index.js";
import { configMapRules } from "./addon-operator-configmap/sections.js";
import { moduleMutations } from "./module/defaults.js";
import { createModuleKind, type ModuleKindDependencies, moduleKind } from "./module/index.js";
import {
  createModuleReleaseMetaKind,
  type ModuleReleaseMetaKindDependencies,
  moduleReleaseMetaKind,
} from "./modulereleasemeta/index.js";
import { moduleTemplateKind } from "./moduletemplate/index.js";
import { workspaceMutations } from "./workspace/defaults.js";
import { createWorkspaceKind, workspaceKind } from "./workspace/index.js";

/** What kinds may take from outside; every field optional: tests and `npm start` pass none. */
export type KindDependencies = ModuleKindDependencies &
  ModuleReleaseMetaKindDependencies & {
    /** `serve`'s addon-operator flags: without a modules dir, ConfigMap/addon-operator is not served. */
    addonOperator?: AddonOperatorFlags;
  };

/**
 * A kind module-admission knows, registered the same way for every kind: its name (the docs' section,
 * `schemas/<schema>.yaml` when it has a schema source), its rules (known without building it) and how
 * it is built from what a process has (cluster lookups, flags); `create` gives none when it is not served.
 */
export interface KindRegistration {
  title: string;
  /** Its folder (`src/resources/<name>/`, `test/resources/<name>/`) and the prefix of its rule ids. */
  name: string;
  /** Its schema source, `schemas/<schema>.yaml`; a core kind (ConfigMap) has none. */
  schema?: string;
  rules: readonly RuleDeclaration[];
  /** Its mutations (the mutating webhook's defaults), declared beside its defaulter. */
  mutations?: readonly MutationDeclaration[];
  create(dependencies: KindDependencies): ResourceKind[];
  /**
   * How the chart serves it: `npm run generate` writes its webhook entries (name, path, resource) into
   * the chart (`files/webhooks.yaml`); this says which value turns them and its policies on, if any.
   */
  chart?: ChartServing;
}

const declared = (kind: { declarations?: readonly RuleDeclaration[] }) => kind.declarations ?? [];

/** Every kind. A new kind is a folder beside module/ and one entry here (docs/adding-a-kind.md). */
export const kindRegistrations: readonly KindRegistration[] = [
  {
    title: "Module",
    name: "module",
    schema: "module",
    rules: declared(moduleKind),
    mutations: moduleMutations,
    create: (dependencies) => [createModuleKind(dependencies)],
  },
  {
    title: "Workspace",
    name: "workspace",
    schema: "workspace",
    rules: declared(workspaceKind),
    mutations: workspaceMutations,
    create: (dependencies) => [createWorkspaceKind(dependencies)],
    // replace: the operator's own Workspace webhooks are switched off; ours serve their paths.
    chart: { enabledBy: { value: "forkspacer.mode", equals: "replace" } },
  },
  {
    title: "ModuleTemplate",
    name: "moduletemplate",
    schema: "moduletemplate",
    rules: declared(moduleTemplateKind),
    create: () => [moduleTemplateKind],
    chart: { enabledBy: { value: "kyma.webhook.enabled" } },
  },
  {
    title: "ModuleReleaseMeta",
    name: "modulereleasemeta",
    schema: "modulereleasemeta",
    rules: declared(moduleReleaseMetaKind),
    create: (dependencies) => [createModuleReleaseMetaKind(dependencies)],
    chart: { enabledBy: { value: "kyma.webhook.enabled" } },
  },
  {
    title: "ConfigMap/addon-operator",
    name: "addon-operator-configmap",
    rules: configMapRules,
    create: (dependencies) => addonOperatorKinds(dependencies.addonOperator ?? {}),
    // Called for the one ConfigMap addon-operator reads.
    chart: { enabledBy: { value: "addonOperator.enabled" }, object: "addonOperator.configMap" },
  },
];

/** The served kinds, built with their dependencies (lookups from informer caches, addon-operator flags). */
export function createResourceKinds(dependencies: KindDependencies): ResourceKind[] {
  return kindRegistrations.flatMap((registration) => registration.create(dependencies));
}

/** The kinds served without dependencies: what `validate`, `audit` and the tests judge with. */
export const resourceKinds: ResourceKind[] = createResourceKinds({});

/** Every rule, in the order of the docs: the protocol layer's, then each kind's. */
export function ruleCatalogue(): {
  title: string;
  rules: readonly RuleDeclaration[];
  mutations?: readonly MutationDeclaration[];
}[] {
  return [
    { title: "Every kind (the protocol layer)", rules: protocolRules },
    ...kindRegistrations.map(({ title, rules, mutations }) => ({
      title,
      rules,
      ...(mutations ? { mutations } : {}),
    })),
  ];
}
