import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { parseManifests } from "../../src/manifests/manifests.js";
import { readDocument } from "../../src/manifests/yaml-readings.js";
import { jsonFindings, validateCli } from "../support/cli.js";
import { corpusUrl, withoutCorpus } from "../support/corpus.js";

const module = (config: string) => `apiVersion: batch.forkspacer.com/v1
kind: Module
metadata:
  name: m
  namespace: default
config:
  - name: Metrics
    alias: metrics
    boolean:
      default: false
spec:
  workspace:
    name: w
  config:
${config}
  helm:
    releaseName: rel
    chart:
      repo:
        url: https://charts.example.com
        chart: c
        version: "1"
`;

const findings = async (args: string[], text: string) =>
  jsonFindings(await validateCli([...args, "-o", "json", "-f", "-"], text)).map((f) => [
    f.severity,
    f.line,
    f.rule,
    f.message,
  ]);

describe("validate --yaml: the YAML reading of the tool that applies the file", () => {
  const text = module("    metrics: yes");
  const warning = [
    "warning",
    15,
    "input/YamlReading",
    'spec.config.metrics: "yes" under YAML 1.2 (kustomize, Flux, kubectl -k), true under YAML 1.1 (kubectl apply -f): quote it to mean one thing',
  ];

  it("reads YAML 1.2 by default (GitOps tools): `yes` is a string, denied for a boolean item, and warned", async () => {
    const got = await findings([], text);
    assert.deepEqual(got[0], warning);
    assert.equal(got.length, 2);
    assert.match(String(got[1]?.[3]), /spec\.config\.metrics: Invalid value: "yes": must be of type boolean/);
  });

  it("reads YAML 1.1 with --yaml kubectl: `yes` is true and admitted, and the same warning", async () => {
    assert.deepEqual(await findings(["--yaml", "kubectl"], text), [warning]);
  });

  it("names a map key the readings read differently (`on:` is `true` for kubectl)", () => {
    const readings = readDocument("a:\n  on: 1\n", "gitops");
    assert.deepEqual(
      readings.differences.map((d) => String(d.field)),
      ["a"],
    );
    assert.match(readings.differences[0]?.message ?? "", /"on" under YAML 1\.2.*"true" under YAML 1\.1/);
  });

  it("warns on nothing where the readings agree: quoted values, prose, every real Module", {
    skip: withoutCorpus,
  }, () => {
    assert.deepEqual(
      readDocument('a: "yes"\nb: turn on metrics\nc: 10\nd: [x, "no"]\n', "gitops").differences,
      [],
    );
    const dir = corpusUrl("forkspacer/manifests/");
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".yaml"))) {
      const manifests = parseManifests(file, readFileSync(new URL(file, dir), "utf8"));
      assert.deepEqual(
        manifests.flatMap((m) => m.readings),
        [],
        file,
      );
    }
  });

  it("refuses an unknown reader", async () => {
    const run = await validateCli(["--yaml", "yaml11", "-f", "-"], text);
    assert.equal(run.status, 2);
    assert.match(
      run.stderr,
      /option '--yaml <reader>' argument 'yaml11' is invalid. Allowed choices are gitops, kubectl/,
    );
  });
});
