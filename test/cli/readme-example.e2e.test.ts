import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { resourceKinds } from "../../src/resources/index.js";
import { validateCli } from "../support/cli.js";
import { startLiveServer } from "../support/live-server.js";

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

describe("README: the webhook's sample answer", () => {
  it("is what the server answers for examples/create-invalid-module.json, abridged only where it says ...", async () => {
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    const sample =
      /The webhook denies, with every problem and its rule \(abridged\):\s+```json\n([\s\S]*?)```/.exec(
        readme,
      );
    assert.ok(sample, "the README shows the answer");
    const shown = JSON.parse(sample[1] ?? "");
    const review = JSON.parse(
      readFileSync(new URL("../../examples/create-invalid-module.json", import.meta.url), "utf8"),
    );
    const server = await startLiveServer(resourceKinds);
    try {
      const { json } = await server.post("/validate-batch-forkspacer-com-v1-module", review);
      const { causes: shownCauses, ...shownDetails } = shown.response.status.details;
      const { causes, ...details } = json.response.status.details;
      assert.deepEqual(
        { ...shown.response, status: { ...shown.response.status, details: shownDetails } },
        {
          ...json.response,
          status: { ...json.response.status, details },
        },
      );
      // Each cause shown is one the server sends, with the same keys; "..." stands for what is left out.
      const abridged = (text: string) =>
        new RegExp(
          `^${text
            .split("...")
            .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
            .join(".*")}$`,
        );
      for (const cause of shownCauses as Record<string, string>[]) {
        const sent = (causes as Record<string, string>[]).find((c) => c.field === cause.field);
        assert.ok(sent, `a cause at ${cause.field}`);
        assert.deepEqual(Object.keys(cause).sort(), Object.keys(sent).sort());
        assert.equal(cause.reason, sent.reason);
        assert.match(sent.message ?? "", abridged(cause.message ?? ""));
      }
    } finally {
      await server.close();
    }
  });
});
