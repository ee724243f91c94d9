import type { FieldError } from "../admission/field-errors.js";
import type { JsonSchema } from "../codegen/schema-source.js";
import { embeddedResourceErrors } from "./embedded-object-meta.js";
import { listSetAndMapErrors } from "./list-type.js";

/**
 * The checks the API server's custom resource strategy runs beside the schema's keywords and before
 * the CEL rules: embedded resources' TypeMeta and ObjectMeta (on UPDATE as on CREATE), then list-type
 * `set`/`map` uniqueness, which on UPDATE it enforces only when the old object had no such problem.
 */
export function customResourceChecker(
  openAPIV3Schema: JsonSchema,
): (object: unknown, oldObject?: unknown) => FieldError[] {
  return (object, oldObject) => {
    const errors = embeddedResourceErrors(openAPIV3Schema, object);
    const ratcheted = oldObject !== undefined && listSetAndMapErrors(openAPIV3Schema, oldObject).length > 0;
    if (!ratcheted) errors.push(...listSetAndMapErrors(openAPIV3Schema, object));
    return errors;
  };
}
