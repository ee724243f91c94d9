import { runDeckhouseValidations } from "./deckhouse-validations.js";
import { closeSchema, type Schema } from "./schema.js";
import { type Violation, validateValues } from "./validate.js";
import { effectiveValues } from "./values.js";

/**
 * addon-operator's verdict on one values section: the schema closed, the user's values laid over the
 * schema's defaults, `x-deckhouse-validations` first (when one fails, only those are reported, as
 * addon-operator does), then the schema keywords. `oldValues` is the section before an UPDATE.
 */
export function checkValues(
  values: unknown,
  oldValues: unknown,
  schema: Schema,
  rootName: string,
): Violation[] {
  const closed = closedSchema(schema);
  const effective = effectiveValues(values, closed);
  const oldEffective = oldValues === undefined ? undefined : effectiveValues(oldValues, closed);
  const celViolations = runDeckhouseValidations(effective, oldEffective, closed, rootName);
  if (celViolations.length > 0) return celViolations;
  return validateValues(effective, closed, rootName);
}

/**
 * Closing a schema walks all of it: done once per schema object (the webhook's schema store keeps its
 * schemas until their files change), not on every review. Schemas are never changed after loading.
 */
const closedSchemas = new WeakMap<Schema, Schema>();
function closedSchema(schema: Schema): Schema {
  let closed = closedSchemas.get(schema);
  if (!closed) {
    closed = closeSchema(schema);
    closedSchemas.set(schema, closed);
  }
  return closed;
}
