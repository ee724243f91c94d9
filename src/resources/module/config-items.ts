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
