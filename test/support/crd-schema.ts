import { Ajv, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import type { KubeObject } from "./fake-kube-objects.js";

const ajv = new Ajv({ strict: false, allErrors: true });
addFormats.default(ajv);
// OpenAPI's integer formats, which the API server checks as integers.
ajv.addFormat("int32", true);
ajv.addFormat("int64", true);
const compiled = new WeakMap<object, ValidateFunction>();

/**
 * An object's problems against the openAPIV3Schema of its version in a CRD (types, enums, required),
 * as the API server validates a custom resource; `path: message` each. Undefined when the CRD does not
 * serve that version.
 */
export function crdSchemaProblems(crd: KubeObject, version: string, object: unknown): string[] | undefined {
  const served = (
    crd.spec.versions as { name: string; served: boolean; schema?: { openAPIV3Schema?: object } }[]
  ).find((v) => v.name === version && v.served);
  if (!served) return undefined;
  const schema = served.schema?.openAPIV3Schema;
  if (!schema) return [];
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  if (validate(object)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || "/"}: ${e.message}`);
}
