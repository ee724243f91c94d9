// Modules the playground's build (scripts/build-playground.ts) makes: what the page embeds.

declare module "virtual:playground-files" {
  /** File contents by the absolute path the engine reads them at. */
  export const files: Record<string, string>;
}

declare module "virtual:playground-examples" {
  import type { Example } from "./examples.js";
  export const examples: Example[];
}

declare module "virtual:playground-validators" {
  import type { ValidateFunction } from "ajv";
  /** ajv's standalone validators, by validatorKey. */
  export const validators: Record<string, ValidateFunction>;
}
