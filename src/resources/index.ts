import type { ResourceKind } from "../admission/resource-kind.js";
import { createModuleKind, type ModuleKindDependencies } from "./module/index.js";

/** What kinds may need from outside (a cluster); every field optional, so tests and `npm start` need none. */
export type KindDependencies = ModuleKindDependencies;

/** Every kind the webhook serves. A new kind is a folder beside module/ and one line here. */
export function createResourceKinds(dependencies: KindDependencies = {}): ResourceKind[] {
  return [createModuleKind(dependencies) as ResourceKind];
}

export const resourceKinds: ResourceKind[] = createResourceKinds();
