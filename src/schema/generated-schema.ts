/**
 * The generated editor schema of a schema source (`schemas/dist/<name>.schema.json`). Resolved from this
 * file, which sits two levels below the project root wherever it runs: src/schema/ (tsx), dist/schema/
 * (tsc) and dist/cli/ (the bundle `npm run compile` makes, where every module's `import.meta.url` is its
 * chunk's). A module deeper or shallower would find another directory in one of them: read through here.
 */
export function generatedSchemaUrl(name: string): URL {
  return new URL(`../../schemas/dist/${name}.schema.json`, import.meta.url);
}

/** A schema source, `schemas/<name>.yaml`, found as `generatedSchemaUrl` finds the generated schema. */
export function schemaSourceUrl(name: string): URL {
  return new URL(`../../schemas/${name}.yaml`, import.meta.url);
}
