import { readFileSync } from "node:fs";

/** The package's version, from package.json beside src/ and dist/ (both one level below the root). */
export const toolVersion: string = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }
).version;
