import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { maxSarifResults } from "../../src/cli/audit.js";
import type { Module } from "../../src/generated/module.js";
import { issueCertificates } from "../../src/server/certificates.js";
import { writeKubeconfig } from "../support/kubeconfig-file.js";
import { helmModule } from "../support/modules.js";

const main = new URL("../../src/cli/main.ts", import.meta.url).pathname;

/** A Module with `count` integer settings (at most 5) each set to 9: `count` findings of its own. */
function moduleWithBadSettings(name: string, count: number): Module {
  const module = helmModule();
  module.metadata = { name, namespace: "team" };
  module.config = Array.from({ length: count }, (_, i) => ({
    name: `Setting ${i}`,
    alias: `s${i}`,
    integer: { default: 1, min: 0, max: 5 },
  }));
  module.spec.config = Object.fromEntries(Array.from({ length: count }, (_, i) => [`s${i}`, 9]));
  return module;
}

// Issue 21: `audit -o sarif` held every finding of a cluster until the end; a SARIF log is one
// document, so it keeps the first maxSarifResults and counts the rest in one last result.
describe("audit -o sarif is bounded (issue 21)", { timeout: 120_000 }, () => {
  let server: Server;
  let kubeconfig: string;
  let pagesServed = 0;
  // 120 Modules of 90 findings each, in pages of 40: 10,800 findings, 800 past the bound.
  const perModule = 90;
  const modules = Array.from({ length: 120 }, (_, i) => moduleWithBadSettings(`m${i}`, perModule));
  const answer = (req: IncomingMessage, res: ServerResponse) => {
    const query = new URL(req.url ?? "/", "https://x").searchParams;
    const from = Number(query.get("continue") ?? "0");
    const limit = Number(query.get("limit") ?? "500");
    const items = modules.slice(from, from + limit);
    const next = from + limit < modules.length ? String(from + limit) : undefined;
    pagesServed++;
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ kind: "ModuleList", items, metadata: next ? { continue: next } : {} }));
  };
  before(async () => {
    const certs = await issueCertificates(["localhost"]);
    server = createServer({ cert: certs.cert, key: certs.key }, answer);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    kubeconfig = writeKubeconfig({ url, caCert: certs.caCert });
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  /** `audit -o <output>` as users run it. */
  const audit = (output: string) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(
        process.execPath,
        ["--import", "tsx", main, "audit", "--kubeconfig", kubeconfig, "--kind", "Module", "-A"].concat([
          "--chunk-size",
          "40",
          "-o",
          output,
        ]),
        { stdio: ["ignore", "pipe", "pipe"] },
      );
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk) => {
        stdout += chunk;
      });
      child.stderr.on("data", (chunk) => {
        stderr += chunk;
      });
      child.on("exit", (status) => resolve({ status, stdout, stderr }));
    });

  it(`lists the first ${maxSarifResults} results and counts the rest in one more`, async () => {
    // Every finding, from the unbounded JSON output: the SARIF must list its first ones and count the rest.
    const all = await audit("json");
    assert.equal(all.status, 1, all.stderr);
    assert.equal(pagesServed, 3);
    const findings = JSON.parse(all.stdout).findings as { message: string }[];
    assert.ok(findings.length >= modules.length * perModule, `${findings.length} findings`);
    const run = await audit("sarif");
    assert.equal(run.status, 1, run.stderr);
    const results = JSON.parse(run.stdout).runs[0].results as { ruleId: string; message: { text: string } }[];
    assert.equal(results.length, maxSarifResults + 1);
    assert.match(results[0]?.message.text ?? "", /spec\.config\.s0: Invalid value: 9/);
    // In order (SARIF's text names the object first).
    const differ = results
      .slice(0, maxSarifResults)
      .filter((result, i) => !result.message.text.endsWith(findings[i]?.message ?? "\u0000"));
    assert.deepEqual(differ, []);
    const last = results.at(-1);
    assert.equal(last?.ruleId, "audit/results-omitted");
    assert.equal(
      last?.message.text,
      `${findings.length - maxSarifResults} more findings not listed: SARIF output holds at most ${maxSarifResults} (use -o json for all)`,
    );
  });
});
