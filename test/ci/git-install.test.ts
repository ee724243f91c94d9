import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";

/**
 * pre-commit 4.x installs the hook with `npm install -g git+file://…`. npm (pacote's git fetcher)
 * "prepares" a git dependency whose package.json has any of these scripts by running a full
 * `npm install` of it, dev dependencies included, before packing it: hundreds of MB, and a step that
 * failed at random in npm's own extraction (ENOTEMPTY). The package has none of them.
 */
const preparing = ["build", "prepare", "prepack", "preinstall", "install", "postinstall"];

describe("installing from git", () => {
  it("has no script that makes npm prepare the package as a git dependency", () => {
    const { scripts } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
    assert.deepEqual(
      preparing.filter((name) => name in scripts),
      [],
    );
  });
});
