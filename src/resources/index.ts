import type { ResourceKind } from "../admission/resource-kind.js";
import { createModuleKind, type ModuleKindDependencies, moduleKind } from "./module/index.js";
import {
  createModuleReleaseMetaKind,
  type ModuleReleaseMetaKindDependencies,
  moduleReleaseMetaKind,
} from "./modulereleasemeta/index.js";
import { moduleTemplateKind } from "./moduletemplate/index.js";
import { createWorkspaceKind, workspaceKind } from "./workspace/index.js";

/** Every kind the webhook serves. A new kind is a folder beside module/ and one line here. */
export const resourceKinds: ResourceKind[] = [
  moduleKind as ResourceKind,
  workspaceKind as ResourceKind,
  moduleTemplateKind as ResourceKind,
  moduleReleaseMetaKind as ResourceKind,
];

/** What kinds may take from outside (a cluster); every field optional: tests and `npm start` pass none. */
export type KindDependencies = ModuleKindDependencies & ModuleReleaseMetaKindDependencies;

/** The served kinds, those that take dependencies rebuilt with them (their lookups from informer caches). */
export function createResourceKinds(dependencies: KindDependencies): ResourceKind[] {
  return resourceKinds.map((kind) => {
    if (kind === (moduleKind as ResourceKind)) return createModuleKind(dependencies) as ResourceKind;
    if (kind === (workspaceKind as ResourceKind)) return createWorkspaceKind(dependencies) as ResourceKind;
    if (kind === (moduleReleaseMetaKind as ResourceKind)) {
      return createModuleReleaseMetaKind(dependencies) as ResourceKind;
    }
    return kind;
  });
}
