import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

/**
 * `npm test` runs test files in parallel (test/support/run-tests.ts), and two clones' suites may
 * run side by side on one machine: a test file must not take what another file or clone could take at
 * the same moment. Ports are always the system's choice (port 0), temporary folders unique (mkdtemp),
 * and dist/ only rebundled (atomic writes), never recompiled in place. This reads every file under
 * test/ (test files and their support) for the fixed forms.
 */
const testDir = fileURLToPath(new URL(".", import.meta.url));
const thisFile = fileURLToPath(import.meta.url);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "fixtures" ? [] : sourceFiles(path);
    return entry.name.endsWith(".ts") && path !== thisFile ? [path] : [];
  });
}

/** A line binds nothing when it only compares text (an assertion on rendered or parsed flags). */
const comparesText = /\bassert\b/;

/**
 * Lines that match `pattern` and not `exempt`, as `file:line: text`, in every file but those `owners` name
 * (the one place that guards a shared thing, with why).
 */
function offending(pattern: RegExp, exempt: RegExp, owners: Record<string, string> = {}): string[] {
  return sourceFiles(testDir)
    .filter((file) => !(relative(testDir, file) in owners))
    .flatMap((file) =>
      readFileSync(file, "utf8")
        .split("\n")
        .flatMap((line, index) =>
          pattern.test(line) && !exempt.test(line)
            ? [`${relative(testDir, file)}:${index + 1}: ${line.trim()}`]
            : [],
        ),
    );
}

const quote = "[\"'`]";
const fixedPort = new RegExp(
  [
    // server.listen(8443, ...)
    String.raw`\.listen\(\s*[1-9]`,
    // ["--metrics-port", "8080"]
    `${quote}--(?:[a-z]+-)*port${quote}\\s*,\\s*${quote}?[1-9]`,
    // --secure-port=6443
    "--(?:[a-z]+-)*port=[1-9]",
    // --metrics-bind-address 127.0.0.1:9090, --listen-client-urls=http://127.0.0.1:2379
    `--(?:[a-z]+-)*(?:address|urls?)${quote}?\\s*[,=]\\s*${quote}?[^"'\`\\s]*:[1-9]\\d*(?:${quote}|\\s|,|$)`,
  ].join("|"),
);
/** A path under the temporary directory that is not made unique by mkdtemp on the same line. */
const fixedTemporary = /join\(\s*tmpdir\(\)\s*,|["'`]\/tmp\//;
const madeUnique = /mkdtemp|\bassert\b/;
const compilesInPlace = /compileProject\(|typescript\/bin\/tsc/;

describe("test files are safe to run in parallel", () => {
  it("bind no fixed port: listen(0) and --port 0, never a number another file could hold", () => {
    assert.deepEqual(offending(fixedPort, comparesText), []);
  });

  it("make temporary folders with mkdtemp, never a fixed name under the temporary directory", () => {
    assert.deepEqual(
      offending(fixedTemporary, madeUnique, {
        [join("support", "chromium.ts")]:
          "@sparticuz/chromium unpacks into a fixed folder there: the browser's launcher does it under a lock",
      }),
      [],
    );
  });

  it("never recompile dist/ in place (compileProject is the benchmarks'; tests use buildCommand's bundle)", () => {
    assert.deepEqual(
      offending(compilesInPlace, /^\s*(\*|\/\/)/, {
        [join("support", "serve-process.ts")]: "defines compileProject for the benchmarks",
      }),
      [],
    );
  });

  it("the checks catch the fixed forms", () => {
    for (const line of [
      `server.listen(8443, "127.0.0.1")`,
      `["serve", "--port", "8443"]`,
      `args.push("--metrics-port", "8080")`,
      `"--secure-port=6443"`,
      `["--metrics-bind-address", "127.0.0.1:9090"]`,
      "`--listen-client-urls=http://127.0.0.1:2379`",
    ])
      assert.ok(fixedPort.test(line), line);
    for (const line of [
      `server.listen(0, "127.0.0.1")`,
      `["--port", "0", "--metrics-port", "0"]`,
      "--etcd-servers=http://127.0.0.1:0",
      `["--metrics-bind-address", "[::1]:0"]`,
    ])
      assert.ok(!fixedPort.test(line), line);
    assert.ok(fixedTemporary.test(`writeFileSync(join(tmpdir(), "cache.json"), text)`));
    assert.ok(!madeUnique.test(`writeFileSync(join(tmpdir(), "cache.json"), text)`));
    assert.ok(madeUnique.test(`mkdtempSync(join(tmpdir(), "serve-"))`));
  });
});
