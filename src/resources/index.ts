import type { ResourceKind } from "../admission/resource-kind.js";
import { moduleKind } from "./module/index.js";
import { moduleTemplateKind } from "./moduletemplate/index.js";

/** Every kind the webhook serves. A new kind is a folder beside module/ and one line here. */
export const resourceKinds: ResourceKind[] = [moduleKind as ResourceKind, moduleTemplateKind as ResourceKind];
