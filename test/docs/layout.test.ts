import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));
const srcFolders = readdirSync(join(root, "src"), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

/** The folders docs/architecture.md's layout table lists (`| \`src/<folder>/\` | what |`). */
function documentedFolders(): string[] {
  const doc = readFileSync(join(root, "docs/architecture.md"), "utf8");
  return [...doc.matchAll(/^\| `src\/([^`/]+)\/` \|/gm)].map((match) => match[1] as string);
}

/** Where code runs, as a folder's README says it: words a newcomer looks for. */
const threads = /\b(main thread|review worker|worker thread|CLI|browser)\b/;

describe("the layout of src/", () => {
  it("is the layout table of docs/architecture.md: every folder listed once, none extra", () => {
    const documented = documentedFolders();
    assert.deepEqual([...documented].sort(), srcFolders);
    assert.equal(new Set(documented).size, documented.length, "a folder is listed twice");
  });

  it("says in each folder's README.md what runs there and on which thread", () => {
    const missing = srcFolders.flatMap((folder) => {
      const readme = join(root, "src", folder, "README.md");
      if (!existsSync(readme)) return [`src/${folder}/README.md is missing`];
      // The first lines, before any detail: a title, then where the folder's code runs.
      const head = readFileSync(readme, "utf8").split("\n").slice(0, 8).join("\n");
      const runs = /^Runs\b.*$/m.exec(head)?.[0];
      if (runs === undefined) return [`src/${folder}/README.md: no "Runs ..." line among its first lines`];
      return threads.test(runs) ? [] : [`src/${folder}/README.md: "${runs}" names no thread`];
    });
    assert.deepEqual(missing, []);
  });
});
