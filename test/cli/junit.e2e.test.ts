import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { dump } from "js-yaml";
import { validateXML } from "xmllint-wasm";
import { writeTree } from "../support/addon-modules.js";
import { builtCli } from "../support/built-cli.js";
import { manifestDir } from "../support/cli.js";
import { corpusPath, withoutCorpus } from "../support/corpus.js";
import { helmModule } from "../support/modules.js";

/**
 * `-o junit` of validate and lint-modules, checked with libxml2 (xmllint, compiled to WebAssembly) against
 * test/fixtures/junit.xsd: the Ant/Jenkins JUnit format that Jenkins, GitLab and GitHub's reporters read.
 */
const xsd = readFileSync(new URL("../fixtures/junit.xsd", import.meta.url), "utf8");

/** A helm Module of this name, its spec.helm as a plain record to change. */
function named(name: string) {
  const module = helmModule();
  return {
    ...module,
    metadata: { ...module.metadata, name },
    spec: { ...module.spec, helm: { ...module.spec.helm } as Record<string, unknown> },
  };
}

async function schemaErrors(xml: string): Promise<string[]> {
  const result = await validateXML({ xml: [{ fileName: "report.xml", contents: xml }], schema: [xsd] });
  return result.errors.map((error) => error.rawMessage);
}

/** The test cases of a report, read back: name, classname, and what each holds. */
function testcases(xml: string) {
  const cases = [
    ...xml.matchAll(
      /<testcase name="([^"]*)" classname="([^"]*)" time="[^"]*"(\/>|>([\s\S]*?)<\/testcase>)/g,
    ),
  ];
  return cases.map((match) => ({
    name: match[1],
    classname: match[2],
    body: match[4] ?? "",
  }));
}

describe("-o junit: Ant/Jenkins JUnit XML, valid against the XSD kept in test/fixtures", () => {
  it("the XSD refuses what the readers would not take (it is not vacuous)", async () => {
    const good = `<?xml version="1.0"?><testsuites tests="1" failures="1" errors="0"><testsuite name="a" tests="1" failures="1" errors="0"><testcase name="x" classname="a" time="0"><failure type="t" message="m">m</failure></testcase></testsuite></testsuites>`;
    assert.deepEqual(await schemaErrors(good), []);
    const twoFailures = good.replace("</failure>", "</failure><failure type='t'>again</failure>");
    const noClassname = good.replace(' classname="a"', "");
    const badCount = good.replace(
      'tests="1" failures="1" errors="0"><testcase',
      'tests="one" failures="1" errors="0"><testcase',
    );
    for (const bad of [twoFailures, noClassname, badCount]) {
      assert.notDeepEqual(await schemaErrors(bad), [], bad);
    }
  });

  it("validate: a case per object (passed, failed, skipped) and per unreadable input, escaped, valid", async () => {
    const denied = named("bad");
    denied.spec.helm.releaseName = "Not_A_Label";
    const warned = named("warned");
    warned.spec.helm.relaseName = "typo";
    const dir = manifestDir({
      'modules <&"\u0001>.yaml': [named("good"), denied, warned],
      "other.yaml": [{ apiVersion: "v1", kind: "Service", metadata: { name: "svc" } }],
      "broken.yaml": "a: [\n",
    });
    const run = builtCli(["validate", "-o", "junit", dir]);
    assert.equal(run.status, 2, run.stderr);
    assert.deepEqual(await schemaErrors(run.stdout), []);
    const cases = testcases(run.stdout);
    const byName = (name: string) => cases.find((c) => c.name === name);
    assert.equal(cases.length, 5);
    assert.equal(byName("Module default/good")?.body, "");
    assert.match(
      byName("Module default/bad")?.body ?? "",
      /<failure message="[^"]*spec\.helm\.releaseName[^"]*DNS-1035/,
    );
    assert.match(
      byName("Module default/warned")?.body ?? "",
      /<system-out>[^<]*unknown field &quot;|<system-out>[^<]*unknown field "/,
    );
    assert.match(byName("Service svc")?.body ?? "", /<skipped message="no schema for v1 Service"\/>/);
    assert.match(
      cases.find((c) => c.name?.endsWith("broken.yaml"))?.body ?? "",
      /<error message="[^"]+" type="input\/Unreadable">/,
    );
    // The file name's markup characters escaped, its control character replaced (XML 1.0 cannot hold it).
    assert.ok(byName("Module default/good")?.classname?.endsWith("modules &lt;&amp;&quot;\uFFFD&gt;.yaml"));
    assert.match(
      run.stdout,
      /<testsuites name="module-admission validate" tests="5" failures="1" errors="1" skipped="1"/,
    );
  });

  it("validate: a clean run is one passing case per object, exit 0", async () => {
    const dir = manifestDir({ "m.yaml": [named("a"), named("b")] });
    const run = builtCli(["validate", "-o", "junit", dir]);
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(await schemaErrors(run.stdout), []);
    assert.deepEqual(
      testcases(run.stdout).map((c) => [c.name, c.body]),
      [
        ["Module default/a", ""],
        ["Module default/b", ""],
      ],
    );
  });

  it("lint-modules: a case per module and one for the modules dir, failures with their messages", async () => {
    const dir = writeTree({
      "values.yaml": "simpleModule: {a: 1}\n",
      "001-simple-module/openapi/config-values.yaml": dump({
        type: "object",
        properties: { a: { type: "string" } },
      }),
      "002-Bad/Chart.yaml": "name: x\n",
    });
    const run = builtCli(["lint-modules", "-o", "junit", dir]);
    assert.equal(run.status, 1, run.stderr);
    assert.deepEqual(await schemaErrors(run.stdout), []);
    const cases = testcases(run.stdout);
    assert.deepEqual(
      cases.map((c) => c.name),
      ["modules dir", "module simple-module (001-simple-module)", "module Bad (002-Bad)"],
    );
    assert.match(
      cases[2]?.body ?? "",
      /<failure message="module name &quot;Bad&quot; must be kebab-case[^"]*" type="ModuleName">/,
    );
  });

  it("lint-modules on deckhouse v1.76.8 (read in place): valid, a case per module", {
    skip: withoutCorpus,
  }, async () => {
    const dir = corpusPath("addon-operator/deckhouse-v1.76.8/modules");
    const run = builtCli(["lint-modules", "-o", "junit", dir]);
    assert.ok(run.status === 0 || run.status === 1, run.stderr);
    assert.deepEqual(await schemaErrors(run.stdout), []);
    const json = JSON.parse(builtCli(["lint-modules", "-o", "json", dir]).stdout);
    assert.equal(testcases(run.stdout).length, json.summary.modules + 1);
  });
});

describe("lint-modules says what it checked", () => {
  it("a summary line in text, and a summary in JSON and SARIF", () => {
    const dir = writeTree({
      "001-simple-module/values.yaml": { simpleModule: { a: 1 } },
      "002-Bad/Chart.yaml": "name: x\n",
    });
    const clean = writeTree({ "001-simple-module/values.yaml": { simpleModule: { a: 1 } } });
    const text = builtCli(["lint-modules", clean]);
    assert.deepEqual(
      [text.status, text.stdout],
      [0, `1 module in ${clean}: 0 with errors, 0 with warnings only; 0 errors, 0 warnings\n`],
    );
    const failing = builtCli(["lint-modules", dir]);
    assert.equal(failing.status, 1);
    assert.match(
      failing.stdout,
      new RegExp(`\\n2 modules in ${dir}: 1 with errors, 0 with warnings only; 1 error, 0 warnings\\n$`),
    );
    const json = JSON.parse(builtCli(["lint-modules", "-o", "json", dir]).stdout);
    assert.deepEqual(json.summary, { modules: 2, failed: 1, warned: 0, errors: 1, warnings: 0 });
    const sarif = JSON.parse(builtCli(["lint-modules", "-o", "sarif", dir]).stdout);
    assert.deepEqual(sarif.runs[0].properties.summary, json.summary);
  });
});
