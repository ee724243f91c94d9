import type { PatchOperation } from "../admission/json-patch.js";
import { own, setOwn } from "../admission/own-property.js";

const unescapeToken = (token: string) => token.replaceAll("~1", "/").replaceAll("~0", "~");

/**
 * Applies the JSON Patch a mutating webhook answered with, as the API server does before the
 * validating webhooks see the object. Covers the operations `diffToPatch` produces; returns a copy (the object itself for an empty patch).
 */
export function applyPatch(object: unknown, patch: PatchOperation[]): unknown {
  if (patch.length === 0) return object;
  let root = structuredClone(object);
  for (const operation of patch) {
    const tokens = operation.path.split("/").slice(1).map(unescapeToken);
    const last = tokens.pop();
    if (last === undefined) {
      if (operation.op !== "remove") root = structuredClone(operation.value);
      continue;
    }
    let parent = root as Record<string, unknown>;
    for (const token of tokens) parent = own(parent, token) as Record<string, unknown>;
    if (Array.isArray(parent)) {
      const index = last === "-" ? parent.length : Number(last);
      if (operation.op === "add") parent.splice(index, 0, operation.value);
      else if (operation.op === "replace") parent[index] = operation.value;
      else parent.splice(index, 1);
    } else if (operation.op === "remove") {
      delete parent[last];
    } else {
      setOwn(parent, last, structuredClone(operation.value));
    }
  }
  return root;
}
