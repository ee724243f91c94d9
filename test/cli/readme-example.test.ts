import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { validateCli } from "../support/cli.js";

describe("README: Use it in CI", () => {
  it("shows exactly what validate prints for examples/modules, and the exit status it gives", async () => {
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    const section = readme.slice(readme.indexOf("## Use it in CI"));
    const shown =
      /validate -f examples\/modules` prints this\s+and exits (\d)[\s\S]*?```text\n([\s\S]*?)```/.exec(
        section,
      );
    assert.ok(shown, "the README shows the output for examples/modules");
    const root = fileURLToPath(new URL("../../", import.meta.url));
    const run = await validateCli(["-f", join(root, "examples/modules")]);
    assert.equal(run.stdout.replaceAll(root, ""), shown[2]);
    assert.equal(run.status, Number(shown[1]));
  });
});
