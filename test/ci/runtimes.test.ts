import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

/**
 * The runtimes users get (issue 36): GitHub's actions on majors that run on the node24 action runtime
 * (Node 20, the runtime of actions/checkout and actions/setup-node v4, reached end of life in April
 * 2026), upload-sarif v4 (v3 is deprecated), the image on Node 24, and `engines` naming the Node
 * versions CI tests: the machine's and .ci/run's Node 24.
 */
const root = fileURLToPath(new URL("../../", import.meta.url));
const read = (path: string) => readFileSync(join(root, path), "utf8");

/** The first major of each action that runs on node24 (or, for upload-sarif, is not deprecated). */
const currentMajors: Record<string, number> = {
  "actions/checkout": 5,
  "actions/setup-node": 5,
  "github/codeql-action/upload-sarif": 4,
};

describe("runtimes: the action, the recipes, the image, engines", () => {
  const files = ["action.yml", "examples/flux/validate-workflow.yaml", "docs/ci.md"];

  it("every GitHub action used or recommended is on a current major", () => {
    let seen = 0;
    for (const file of files) {
      for (const [, action, major] of read(file).matchAll(/uses: ([\w-]+\/[\w/-]+)@v(\d+)/g)) {
        const least = currentMajors[action as string];
        assert.ok(least !== undefined, `${file}: ${action} is not one this test knows`);
        assert.ok(Number(major) >= least, `${file}: ${action}@v${major}, want v${least} or later`);
        seen++;
      }
    }
    assert.ok(seen >= 6, `only ${seen} uses found`);
  });

  it("the action sets up Node 24", () => {
    assert.match(read("action.yml"), /uses: actions\/setup-node@v\d+\n\s+with:\n\s+node-version: 24\n/);
  });

  it("the image builds and runs on Node 24", () => {
    const stages = [...read("Dockerfile").matchAll(/^FROM (\S+)/gm)].map((match) => match[1]);
    assert.deepEqual(stages, ["node:24-bookworm-slim", "gcr.io/distroless/nodejs24-debian12:nonroot"]);
  });

  it("engines names the Node versions CI tests: this machine's and .ci/run's Node 24", () => {
    const engines = (JSON.parse(read("package.json")) as { engines: { node: string } }).engines.node;
    const ciNode24 = /^node24_version=(\d+)\.(\d+)\.\d+$/m.exec(read(".ci/run"));
    assert.ok(ciNode24, ".ci/run pins node24_version");
    const ranges = engines.split("||").map((range) => range.trim());
    const covers = (major: number, minor: number) =>
      ranges.some((range) => {
        const [, m, n] = /^\^(\d+)\.(\d+)\.\d+$/.exec(range) ?? [];
        return Number(m) === major && Number(n) <= minor;
      });
    assert.ok(covers(Number(ciNode24[1]), Number(ciNode24[2])), `${engines} vs Node ${ciNode24[1]}`);
    const [major, minor] = process.versions.node.split(".").map(Number);
    assert.ok(covers(major as number, minor as number), `${engines} vs this Node ${process.versions.node}`);
  });
});
