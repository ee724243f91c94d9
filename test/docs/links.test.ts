import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));
const pages = [
  "README.md",
  ...readdirSync(join(root, "docs")).flatMap((name) => (name.endsWith(".md") ? [`docs/${name}`] : [])),
];

/** The text of a page outside fenced code blocks, where a `[x](y)` is a link. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, "");
}

/** GitHub's anchor for a heading: lower case, punctuation but `-` and `_` dropped, spaces to `-`. */
function anchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/**
 * Every anchor of a Markdown page: its headings', a repeated one with GitHub's `-1`, `-2` suffixes, and
 * explicit `<a id="...">` ones (docs/rules.md gives each rule id one).
 */
function anchors(page: string): Set<string> {
  const seen = new Map<string, number>();
  const text = prose(readFileSync(join(root, page), "utf8"));
  const found = new Set([...text.matchAll(/<a (?:id|name)="([^"]+)"/g)].map(([, id = ""]) => id));
  for (const [, heading] of text.matchAll(/^#{1,6} (.+)$/gm)) {
    const base = anchor(heading ?? "");
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.add(count === 0 ? base : `${base}-${count}`);
  }
  return found;
}

interface Link {
  page: string;
  target: string;
  /** The target's path from the project root ("" for a link to a heading of the same page). */
  file: string;
  fragment?: string;
}

function links(page: string): Link[] {
  const text = prose(readFileSync(join(root, page), "utf8"));
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].flatMap(([, target = ""]) => {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return [];
    const [path = "", fragment] = target.split("#");
    const file = path === "" ? page : relative(root, join(root, dirname(page), path));
    return [{ page, target, file, ...(fragment === undefined ? {} : { fragment }) }];
  });
}

/** What is wrong with a link: its file missing, or its heading not on that page. */
function broken(link: Link): string | undefined {
  if (!existsSync(join(root, link.file))) return `${link.page}: ${link.target}: no file ${link.file}`;
  if (link.fragment !== undefined && link.file.endsWith(".md") && !anchors(link.file).has(link.fragment))
    return `${link.page}: ${link.target}: no heading #${link.fragment} in ${link.file}`;
  return undefined;
}

const all = pages.flatMap(links);

describe("the README and docs/", () => {
  it("the README is at most 200 lines", () => {
    const lines = readFileSync(join(root, "README.md"), "utf8").trimEnd().split("\n").length;
    assert.ok(lines <= 200, `README.md has ${lines} lines`);
  });

  it("every relative link reaches an existing file and heading, the generated rule reference's too", () => {
    assert.ok(all.length > 50, `only ${all.length} links found`);
    for (const page of ["docs/rules.md", "docs/adding-a-kind.md"])
      assert.ok(
        all.some((link) => link.file === page && link.page !== page),
        `a link to ${page}`,
      );
    assert.deepEqual(
      all.flatMap((link) => broken(link) ?? []),
      [],
    );
  });

  it("a link to a missing file or heading is found", () => {
    assert.match(
      broken({ page: "README.md", target: "docs/nowhere.md", file: "docs/nowhere.md" }) ?? "",
      /no file/,
    );
    assert.match(
      broken({ page: "README.md", target: "docs/ci.md#nowhere", file: "docs/ci.md", fragment: "nowhere" }) ??
        "",
      /no heading/,
    );
    assert.equal(anchor("Two deployment modes (`forkspacer.mode`)"), "two-deployment-modes-forkspacermode");
    assert.equal(
      anchor("Policy reports: `audit -o policyreport` and `--apply`"),
      "policy-reports-audit--o-policyreport-and---apply",
    );
  });

  it("every path of this repository a page names in backquotes exists", () => {
    const named = pages.flatMap((page) =>
      [
        ...prose(readFileSync(join(root, page), "utf8")).matchAll(
          /`((?:src|test|bench|tools|charts|schemas|examples|docs)\/[^`\s]*)`/g,
        ),
      ]
        .map(([, path = ""]) => ({ page, path: path.replace(/[:#].*$/, "") }))
        .filter(({ path }) => !/[<*{]/.test(path)),
    );
    assert.ok(named.length > 20, `only ${named.length} paths found`);
    assert.deepEqual(
      named.filter(({ path }) => !existsSync(join(root, path))).map(({ page, path }) => `${page}: ${path}`),
      [],
    );
  });
});
