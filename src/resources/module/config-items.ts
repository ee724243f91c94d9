import type { ConfigItem } from "../../generated/module.js";

export const configTypes = ["string", "integer", "boolean", "option", "multipleOptions"] as const;
export type ConfigTypeName = (typeof configTypes)[number];

export type ConfigTypeSpec = NonNullable<ConfigItem[ConfigTypeName]>;

/** The type sections a config item sets (exactly one, when the item is valid). */
export function typesOf(item: ConfigItem): ConfigTypeName[] {
  return configTypes.filter((type) => item[type] !== undefined);
}

/** Absent `editable` means editable: the spec's own examples set values for items that omit it. */
export function isEditable(spec: ConfigTypeSpec): boolean {
  return spec.editable !== false;
}

/** The order in which a value's checks pick an item's type (the operator's GetValidatedConfig's). */
export const valueTypeOrder = ["integer", "boolean", "string", "option", "multipleOptions"] as const;

/**
 * CEL for a value of an item's first type (`item` is the item's CEL): `has(item.string) ? … : …`, with
 * `otherwise` for an item without a type. The first type in `order`: `configTypes` for the item's
 * required and editable flags, `valueTypeOrder` for the checks of its value, as the webhook has them.
 */
export function firstTypeCel(
  item: string,
  value: (spec: string) => string,
  otherwise: string,
  order: readonly ConfigTypeName[] = configTypes,
): string {
  return order.reduceRight(
    (rest, type) => `(has(${item}.${type}) ? ${value(`${item}.${type}`)} : ${rest})`,
    otherwise,
  );
}

/**
 * A config schema longer than the native policies are sure to judge within the API server's runtime cost
 * limit: a rule comparing items with items (repeated aliases, an item's index on UPDATE) costs the square
 * of the length. Measured on kube-apiserver 1.37.2: 128 items with every item invalid, and 200 valid ones,
 * ran out; 64 never did (test/policies/control-plane.e2e.test.ts). Beyond, a policy admits (its error is
 * ignored) and a narrowed webhook is called.
 */
export const largeConfig = "has(object.config) && object.config.size() > 64";
