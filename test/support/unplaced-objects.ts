import { kedaReleaseMeta } from "./modulereleasemetas.js";
import { helmModule } from "./modules.js";
import { kedaTemplate } from "./moduletemplates.js";
import { workspace } from "./workspaces.js";

type Json = Record<string, unknown> & { metadata: Record<string, unknown> };

/**
 * One valid object of every namespaced kind (Workspace, Module, ModuleTemplate, ModuleReleaseMeta) as
 * a GitOps repository holds them, with no namespace in the file (kustomize or Argo sets it), and the
 * same objects updated (a label added).
 */
export function unplacedObjects(): { objects: Json[]; labelled: Json[] } {
  const module = helmModule();
  module.spec.workspace = { name: "dev-environment" };
  const objects = [workspace(), module, kedaTemplate(), kedaReleaseMeta()].map((object) => {
    const copy = structuredClone(object) as Json;
    delete copy.metadata.namespace;
    return copy;
  });
  const labelled = objects.map((object) => ({
    ...object,
    metadata: { ...object.metadata, labels: { ...(object.metadata.labels as object), team: "platform" } },
  }));
  return { objects, labelled };
}
