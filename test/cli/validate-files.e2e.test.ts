import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { dump } from "js-yaml";
import type { Finding } from "../../src/base/finding.js";
import { helmModule } from "../support/modules.js";
import { buildCommand } from "../support/serve-process.js";

const maxRss = new URL("../support/max-rss.mjs", import.meta.url).href;

/**
 * `validate` on what a pull request can add to a tree (issue 41): a link to /dev/zero once grew the
 * process to 2 GB in 6 s, a fifo held it forever, a line of blanks took hours. Each is now a finding
 * naming the file, the rest of the tree is still checked, and `validate` exits 2, in little memory.
 */
describe("validate on a tree holding special files, links and a 1 MB line (issue 41)", () => {
  it("reports each unreadable file by name, checks the others, exits 2 under 256 MiB", (t) => {
    const outside = realpathSync(mkdtempSync(join(tmpdir(), "validate-outside-")));
    writeFileSync(join(outside, "secret.yaml"), "token: do-not-read\n");
    const tree = realpathSync(mkdtempSync(join(tmpdir(), "validate-tree-")));
    mkdirSync(join(tree, "nested"));
    writeFileSync(join(tree, "good.yaml"), dump(helmModule()));
    // A 1 MB line of blanks inside an object (a blank line to YAML): the object is checked all the same.
    writeFileSync(join(tree, "blanks.yaml"), `${dump(helmModule())}${" ".repeat(1 << 20)}\n`);
    symlinkSync("/dev/zero", join(tree, "zero.yaml"));
    // Named on the command line, a link is followed wherever it leads: to a device, not read.
    symlinkSync("/dev/zero", join(outside, "zero.yaml"));
    symlinkSync("loop.yaml", join(tree, "nested", "loop.yaml"));
    symlinkSync(join(outside, "secret.yaml"), join(tree, "out.yaml"));
    symlinkSync("good.yaml", join(tree, "inside.yaml"));
    const fifo = spawnSync("mkfifo", [join(tree, "pipe.yaml")]);
    assert.equal(fifo.status, 0, String(fifo.stderr));

    const peakFile = join(mkdtempSync(join(tmpdir(), "validate-rss-")), "max-rss");
    const run = spawnSync(
      process.execPath,
      [
        "--import",
        maxRss,
        buildCommand(),
        "validate",
        "-f",
        tree,
        "-f",
        join(outside, "zero.yaml"),
        "-o",
        "json",
      ],
      {
        encoding: "utf8",
        env: { ...process.env, MAX_RSS_FILE: peakFile },
        maxBuffer: 64 << 20,
        timeout: 300_000,
      },
    );
    const peakMiB = Number(readFileSync(peakFile, "utf8")) / 1024;
    t.diagnostic(`exit ${run.status}, peak RSS ${peakMiB.toFixed(0)} MiB`);
    assert.equal(run.status, 2, run.stderr);
    const { findings, summary } = JSON.parse(run.stdout) as {
      findings: Finding[];
      summary: { checked: number };
    };
    const unreadable = Object.fromEntries(
      findings.filter((f) => f.rule === "input/Unreadable").map((f) => [f.file, f.message]),
    );
    assert.deepEqual(unreadable, {
      [join(tree, "nested", "loop.yaml")]: "a symbolic link loop: not read",
      [join(tree, "out.yaml")]:
        `a symbolic link to ${join(outside, "secret.yaml")}, outside ${tree}: not read`,
      [join(tree, "pipe.yaml")]: "a named pipe (fifo), not a regular file: not read",
      [join(tree, "zero.yaml")]: `a symbolic link to /dev/zero, outside ${tree}: not read`,
      [join(outside, "zero.yaml")]: "a character device, not a regular file: not read",
    });
    assert.ok(!run.stdout.includes("do-not-read"));
    // good.yaml, the link to it inside the tree, and the object above the long line.
    assert.equal(summary.checked, 3);
    assert.ok(peakMiB < 256, `${peakMiB} MiB`);
  });

  it("reads standard input up to the bound a file has: `-f - < /dev/zero` is a finding, exit 2", (t) => {
    const zero = openSync("/dev/zero", "r");
    const peakFile = join(mkdtempSync(join(tmpdir(), "validate-rss-")), "max-rss");
    const run = spawnSync(
      process.execPath,
      ["--import", maxRss, buildCommand(), "validate", "-f", "-", "-o", "json"],
      {
        encoding: "utf8",
        env: { ...process.env, MAX_RSS_FILE: peakFile },
        stdio: [zero, "pipe", "pipe"],
        timeout: 300_000,
      },
    );
    closeSync(zero);
    const peakMiB = Number(readFileSync(peakFile, "utf8")) / 1024;
    t.diagnostic(`exit ${run.status}, peak RSS ${peakMiB.toFixed(0)} MiB`);
    assert.equal(run.status, 2, run.stderr);
    const findings = (JSON.parse(run.stdout) as { findings: Finding[] }).findings;
    assert.deepEqual(
      findings.map((f) => f.message),
      [`larger than the ${32 * 1024 * 1024} bytes validate reads from one file: not read`],
    );
    assert.ok(peakMiB < 256, `${peakMiB} MiB`);
  });
});
