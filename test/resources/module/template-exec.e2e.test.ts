import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { dump } from "js-yaml";
import { formatFieldError } from "../../../src/admission/field-errors.js";
import { warningText } from "../../../src/admission/warning.js";
import { limits } from "../../../src/base/limits.js";
import { WorkBudget, WorkBudgetExceeded } from "../../../src/budget/work-budget.js";
import type { Module } from "../../../src/generated/module.js";
import { validateTemplates } from "../../../src/resources/module/template-rules.js";
import { type LiveServer, startLiveServer } from "../../support/live-server.js";
import { customModule, helmModule } from "../../support/modules.js";
import { admissionReview } from "../../support/reviews.js";
import { buildCommand } from "../../support/serve-process.js";

type Helm = NonNullable<Module["spec"]["helm"]>;

/** The fixture's helm Module with one template at spec.helm.values[0].raw.a (a free-form field) or at the chart version (a string field). */
function withTemplate(text: string, where: "raw" | "version" = "raw"): Module {
  const module = helmModule();
  const helm = module.spec.helm as Helm;
  if (where === "raw") helm.values = [{ raw: { a: text } }];
  else if (helm.chart.repo) helm.chart.repo.version = text;
  return module;
}

const found = (module: Module, budget = new WorkBudget()) =>
  validateTemplates(module, budget).errors.map((e) => [formatFieldError(e), e.rule]);

/**
 * Templates Go parses and the operator then fails to execute, with Go's message (as Go's own
 * text/template gives it: test/go/template/differential.e2e.test.ts checks the port against it).
 */
const failures: [string, string, string][] = [
  [
    "index out of range",
    "{{ index (slice .config.host 0 3) 9 }}",
    'template: :1:3: executing "" at <index (slice .config.host 0 3) 9>: error calling index: index out of range: 9',
  ],
  [
    "a field of a number",
    "{{ .config.replicas.count }}",
    `template: :1:10: executing "" at <.config.replicas.count>: can't evaluate field count in type interface {}`,
  ],
  [
    "randBase62 given an int",
    "{{ randBase62 .config.replicas }}",
    'template: :1:21: executing "" at <.config.replicas>: wrong type for value; expected uint; got int',
  ],
  [
    "len of a number",
    "{{ len .config.replicas }}",
    'template: :1:3: executing "" at <len .config.replicas>: error calling len: len of type int',
  ],
  [
    "a template not defined",
    '{{ template "labels" . }}',
    'template: :1:12: executing "" at <{{template "labels" .}}>: template "labels" not defined',
  ],
  [
    "eq on incomparable types",
    '{{ if eq .config.replicas "3" }}x{{ end }}',
    'template: :1:6: executing "" at <eq .config.replicas "3">: error calling eq: incompatible types for comparison',
  ],
  [
    "call on a non-function",
    "{{ call .config.host }}",
    'template: :1:3: executing "" at <call .config.host>: error calling call: non-function .config.host of type string',
  ],
  ["nil is not a command", "{{ nil }}", 'template: :1:3: executing "" at <nil>: nil is not a command'],
];

describe("templates executed as the operator executes them", () => {
  for (const [name, text, message] of failures) {
    it(`denies ${name}, with Go's message`, () => {
      assert.deepEqual(found(withTemplate(text)), [
        [
          `spec.helm.values[0].raw.a: Invalid value: ${JSON.stringify(text)}: ${message}`,
          "module.template-exec",
        ],
      ]);
    });
  }

  it('denies a printf "%d" or a known condition rendered into a string field (the operator\'s re-typing)', () => {
    assert.deepEqual(found(withTemplate('{{ printf "%d" .config.replicas }}', "version")), [
      [
        `spec.helm.chart.repo.version: Invalid value: "{{ printf \\"%d\\" .config.replicas }}": renders "3", a JSON number, which the operator cannot decode into this string field`,
        "module.template-json-type",
      ],
    ]);
    assert.equal(
      found(withTemplate("{{ if .config.metrics }}true{{ else }}false{{ end }}", "version"))[0]?.[1],
      "module.template-json-type",
    );
    // In a free-form field the operator keeps whatever the text decodes to.
    assert.deepEqual(found(withTemplate('{{ printf "%d" .config.replicas }}')), []);
  });

  it("admits templates that execute, with the values spec.config gives (defaults otherwise)", () => {
    for (const text of [
      '{{ printf "%s-%d" .config.host .config.replicas }}',
      "{{ if gt .config.replicas 2 }}big{{ else }}small{{ end }}",
      "{{ with .config.missing }}{{ .nope }}{{ else }}none{{ end }}",
      '{{ define "n" }}{{ . }}{{ end }}{{ template "n" .releaseName }}-{{ len .namespace }}',
      '{{ index .config "host" }}',
    ])
      assert.deepEqual(found(withTemplate(text, "version")), [], text);
  });

  it("renders randBase62 with a value of its shape: certain failures deny, random ones warn", () => {
    assert.deepEqual(found(withTemplate("redis-{{ randBase62 8 }}", "version")), []);
    const oneChar = validateTemplates(withTemplate("{{ randBase62 1 }}", "version"), new WorkBudget());
    assert.deepEqual(oneChar.errors, []);
    assert.ok(
      oneChar.warnings.some((w) => warningText(w).includes("randBase62")),
      JSON.stringify(oneChar.warnings),
    );
    assert.equal(found(withTemplate("{{ index (randBase62 4) 7 }}"))[0]?.[1], "module.template-exec");
  });

  it("decides templates that do not read a value it cannot know (no release name), and a multipleOptions item by its default", () => {
    const module = withTemplate('{{ template "labels" . }}');
    delete (module.spec.helm as Helm).releaseName;
    module.config?.push({
      name: "Zones",
      alias: "zones",
      multipleOptions: { values: ["a"], default: ["a"] },
    });
    module.spec.config = { ...module.spec.config, zones: ["a"] };
    assert.equal(found(module)[0]?.[1], "module.template-exec");
    const reading = (text: string) => {
      const m = withTemplate(text);
      delete (m.spec.helm as Helm).releaseName;
      m.config = module.config;
      m.spec.config = module.spec.config;
      return found(m);
    };
    // The release name is not decided: the operator's value is not known here.
    assert.deepEqual(reading("{{ index .releaseName 99 }}"), []);
    // A multipleOptions item renders its default, a Go []string (the Go oracle's verdict).
    assert.deepEqual(reading("{{ index .config.zones 99 }}"), [
      [
        'spec.helm.values[0].raw.a: Invalid value: "{{ index .config.zones 99 }}": template: :1:3: executing "" at <index .config.zones 99>: error calling index: index out of range: 99',
        "module.template-exec",
      ],
    ]);
  });

  it("executes custom Modules with only config passed", () => {
    const module = customModule();
    (module.spec.custom as { image: string }).image = "{{ .releaseName.x }}";
    assert.deepEqual(validateTemplates(module, new WorkBudget()).errors, []);
    (module.spec.custom as { image: string }).image = "{{ .config.nope.x }}";
    assert.deepEqual(validateTemplates(module, new WorkBudget()).errors, []);
  });

  it("is bounded per object: over the budget, the review runs out of work at that template", () => {
    const module = withTemplate("{{ range 100000000 }}x{{ end }}");
    assert.throws(
      () => found(module, new WorkBudget(1_000_000)),
      (e) =>
        e instanceof WorkBudgetExceeded &&
        e.what === "executing a template" &&
        e.field?.toString() === "spec.helm.values[0].raw.a",
    );
    // The same template many times costs one execution (memoized within the object).
    const many = helmModule();
    (many.spec.helm as Helm).values = Array.from({ length: 300 }, () => ({
      raw: { a: "{{ range 2000 }}{{ $.config.host }}{{ end }}" },
    }));
    const once = new WorkBudget();
    found(withTemplate("{{ range 2000 }}{{ $.config.host }}{{ end }}"), once);
    assert.deepEqual(found(many, new WorkBudget(3 * once.spent)), []);
  });
});

describe("the output check is bounded per object, not per template (issue 21, finding 2)", () => {
  /** A custom Module whose config holds a 1 MB string starting a JSON string (a full scan to decide). */
  const big = (templates: string[]): Module => {
    const module = customModule();
    module.config = [{ name: "Big", alias: "big", string: { default: "" } }];
    module.spec.config = { big: `"${"a".repeat(1 << 20)}` };
    (module.spec.custom as unknown as Record<string, unknown>).args = templates;
    return module;
  };

  it("300 templates printing the same 1 MB value with different comments cost one check", () => {
    const templates = Array.from({ length: 300 }, (_, i) => `{{ .config.big }}{{/* ${i} */}}`);
    assert.deepEqual(validateTemplates(big(templates), new WorkBudget(5_000_000)).errors, []);
  });

  it("300 that each print it differently run out of budget at the first template it cannot pay for", () => {
    const templates = Array.from({ length: 300 }, (_, i) => `{{ .config.big }}x${i}`);
    assert.throws(
      () => found(big(templates), new WorkBudget(2_500_000)),
      (e) =>
        e instanceof WorkBudgetExceeded &&
        e.what === "checking this template's output" &&
        e.allowance === "2500000 units per review" &&
        /^spec\.custom\.args\[\d\]$/.test(e.field?.toString() ?? ""),
    );
  });

  it("and with the whole budget, the output they render passes the review's cap on rendered text", () => {
    const templates = Array.from({ length: 300 }, (_, i) => `{{ .config.big }}x${i}`);
    assert.throws(
      () => found(big(templates), new WorkBudget()),
      (e) =>
        e instanceof WorkBudgetExceeded &&
        e.allowance === `${limits.renderedChars} characters of template output per review` &&
        // Each prints 1 MiB and a few characters: the third passes 3 MiB.
        e.field?.toString() === "spec.custom.args[2]",
    );
  });
});

describe("a template the operator would fail to execute, end to end", () => {
  const text = "{{ index (slice .config.host 0 3) 9 }}";
  const goMessage = "error calling index: index out of range: 9";
  let server: LiveServer;
  before(async () => {
    server = await startLiveServer();
  });
  after(() => server.close());

  it("is denied through the live server with Go's message", async () => {
    const object = withTemplate(text);
    const reply = await server.post(
      "/validate-batch-forkspacer-com-v1-module",
      admissionReview({ operation: "CREATE", object }),
    );
    assert.equal(reply.json.response.allowed, false);
    assert.ok(reply.json.response.status.message.includes(goMessage), reply.json.response.status.message);
  });

  it("is denied by the built CLI's validate (npm run compile first)", () => {
    const dir = mkdtempSync(join(tmpdir(), "template-exec-"));
    const file = join(dir, "module.yaml");
    writeFileSync(file, dump(withTemplate(text)));
    let output = "";
    let status = 0;
    try {
      output = execFileSync(process.execPath, [buildCommand(), "validate", "-f", file], { encoding: "utf8" });
    } catch (e) {
      const failed = e as { status: number; stdout: string };
      status = failed.status;
      output = failed.stdout;
    }
    assert.notEqual(status, 0, output);
    assert.ok(output.includes(goMessage), output);
  });
});
