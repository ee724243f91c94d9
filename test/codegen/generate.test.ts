import assert from "node:assert/strict";
import { cpSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { generateAll, staleFiles } from "../../src/codegen/generate.js";

const root = new URL("../..", import.meta.url).pathname;

describe("npm run generate", () => {
  it("is deterministic: two runs give byte-identical files", async () => {
    const first = await generateAll(root);
    const second = await generateAll(root);
    assert.deepEqual(second, first);
    assert.ok(
      first.some(
        (file) => file.path === "charts/module-admission/files/crds/modules.batch.forkspacer.com.yaml",
      ),
    );
    assert.ok(first.some((file) => file.path === "src/generated/module.ts"));
    assert.ok(first.some((file) => file.path === "schemas/dist/module.schema.json"));
  });

  it("matches the committed generated files (drift check)", async () => {
    assert.deepEqual(staleFiles(root, await generateAll(root)), []);
  });

  it("notices when a schema source changes and the generated files do not", async () => {
    const copy = mkdtempSync(join(tmpdir(), "module-admission-drift-"));
    for (const dir of ["schemas", "src/generated", "charts"])
      cpSync(join(root, dir), join(copy, dir), { recursive: true });
    const files = await generateAll(copy);
    assert.deepEqual(staleFiles(copy, files), []);
    const source = join(copy, "schemas/module.yaml");
    const { readFileSync } = await import("node:fs");
    writeFileSync(
      source,
      readFileSync(source, "utf8").replace("The Workspace's name.", "The name of the Workspace."),
    );
    const stale = staleFiles(copy, await generateAll(copy));
    assert.deepEqual(stale.sort(), [
      "charts/module-admission/files/crds/modules.batch.forkspacer.com.yaml",
      "schemas/dist/module-admission.schema.json",
      "schemas/dist/module.schema.json",
      "schemas/editor/module-admission.schema.json",
      "schemas/editor/module.schema.json",
      "src/generated/module.ts",
    ]);
  });
});
