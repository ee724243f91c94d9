import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { Ajv } from "ajv";
import { loadAll } from "js-yaml";
import { buildEditorSchema } from "../../src/codegen/editor-schema.js";
import { schemasDir } from "../../src/offline/kinds.js";
import { loadSchemaSources } from "../../src/schema/schema-source.js";
import { checkerOptions } from "../../src/validation/structure.js";
import { corpusPath, withoutCorpus } from "../support/corpus.js";
import { customModule, helmModule } from "../support/modules.js";

/**
 * The structure checkers compile without Ajv's meta-schema check (`checkerOptions.validateSchema`, left
 * out for start-up): this holds every schema they are given, the project's generated ones, to it here.
 */
const metaSchema = new Ajv({ strict: false });

function metaSchemaErrors(schema: object): string {
  return metaSchema.validateSchema(schema) ? "" : metaSchema.errorsText(metaSchema.errors);
}

describe("the schemas the structure checkers compile", () => {
  it("are valid draft-07 JSON Schemas, as built and as committed", () => {
    const sources = loadSchemaSources(schemasDir);
    assert.ok(sources.length >= 4, `schema sources in ${schemasDir}`);
    for (const source of sources) assert.equal(metaSchemaErrors(buildEditorSchema(source)), "", source.name);
    const dist = join(schemasDir, "dist");
    const committed = readdirSync(dist).filter((name) => name.endsWith(".schema.json"));
    assert.ok(committed.length >= 4, `schemas in ${dist}`);
    for (const name of committed)
      assert.equal(metaSchemaErrors(JSON.parse(readFileSync(join(dist, name), "utf8"))), "", name);
  });

  it("the meta-schema check refuses a broken schema (the check above can fail)", () => {
    assert.match(metaSchemaErrors({ type: "object", properties: { a: { type: 5 } } }), /type/);
    assert.match(metaSchemaErrors({ required: "name" }), /required/);
  });

  it("compiled with the checkers' options, judge as the meta-schema-checked, optimized compile does", {
    skip: withoutCorpus,
  }, () => {
    const schema = JSON.parse(readFileSync(join(schemasDir, "dist/module.schema.json"), "utf8")) as object;
    const fast = new Ajv({ ...checkerOptions, allErrors: true, verbose: true }).compile(schema);
    const checked = new Ajv({ strict: false, allErrors: true, verbose: true }).compile(schema);
    const manifests = corpusPath("forkspacer/manifests");
    const documents = readdirSync(manifests)
      .filter((name) => name.endsWith(".yaml"))
      .flatMap((name) => loadAll(readFileSync(join(manifests, name), "utf8")));
    const modules = documents.filter((doc) => (doc as { kind?: unknown } | null)?.kind === "Module");
    assert.ok(modules.length >= 10, `Modules in ${manifests}`);
    // Each with the errors a typo, a wrong type and a missing field give.
    const broken = modules.map((doc) => ({ ...(doc as object), spec: 7, extra: { x: [1] } }));
    const unnamed = modules.map((doc) => ({ ...(doc as object), metadata: { name: 3 }, apiVersion: null }));
    for (const value of [...modules, ...broken, ...unnamed, helmModule(), customModule(), null, [], {}]) {
      assert.equal(fast(value), checked(value), JSON.stringify(value));
      assert.deepEqual(fast.errors ?? null, checked.errors ?? null, JSON.stringify(value));
    }
  });
});
