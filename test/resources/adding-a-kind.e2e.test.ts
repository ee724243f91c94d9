import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { webhooksOf } from "../../src/admission/resource-kind.js";
import { createResourceKinds, type KindRegistration, kindRegistrations } from "../../src/resources/index.js";
import { loadSchemaSources } from "../../src/schema/schema-source.js";
import { writeTree } from "../support/addon-modules.js";
import { addonOperator, type Manifest, render } from "../support/chart.js";
import { withoutGo } from "../support/go-tools.js";
import { ratchetGaps } from "../support/ratchet-generators.js";

const root = new URL("../..", import.meta.url).pathname;
const kinds = (name: string) => {
  const registration = kindRegistrations.find((r) => r.name === name);
  // Every kind as serve builds it with every feature on (a modules dir for the ConfigMap).
  return registration?.create({ addonOperator: { "modules-dir": writeTree({}) } }) ?? [];
};

/** Values that turn every kind's webhooks on: each registration's `chart.enabledBy`, set. */
function everyKindOn(registrations: readonly KindRegistration[]): Record<string, any> {
  const values: Record<string, any> = { addonOperator: { modulesVolume: addonOperator.modulesVolume } };
  for (const { chart } of registrations) {
    if (!chart?.enabledBy) continue;
    const path = chart.enabledBy.value.split(".");
    let node = values;
    for (const key of path.slice(0, -1)) node = node[key] ??= {};
    node[path.at(-1) as string] = chart.enabledBy.equals ?? true;
  }
  return values;
}

const webhookPaths = (manifests: Manifest[]): string[] =>
  manifests
    .filter((m) => m.kind.endsWith("WebhookConfiguration"))
    .flatMap((m) =>
      m.webhooks.map((w: { clientConfig: { service: { path: string } } }) => w.clientConfig.service.path),
    );

const sources = loadSchemaSources(join(root, "schemas"));
/** The chart rendered with every kind on, and with the defaults. */
const chart = { everyKindOn: [] as string[], defaults: [] as string[] };

/**
 * What the tests demand of a kind, by the step of docs/adding-a-kind.md ("Adding a kind") that says
 * it: each step's title, as the doc writes it in bold, and its checks of one registration.
 */
type Check = (registration: KindRegistration) => void | Promise<void>;
const steps: Record<string, Check | { withHelm: Check }> = {
  "Schema source": (registration) => {
    for (const kind of kinds(registration.name)) {
      if (kind.group === "") {
        assert.equal(registration.schema, undefined, "a core kind has no schema source");
        continue;
      }
      const source = sources.find((s) => s.name === registration.schema);
      assert.ok(source, `no schemas/${registration.schema}.yaml`);
      assert.deepEqual(
        [kind.group, kind.version, kind.kind],
        [source.crd.group, source.crd.version, source.crd.names.kind],
      );
    }
  },
  Rules: (registration) => {
    assert.ok(existsSync(join(root, "src/resources", registration.name, "index.ts")));
  },
  Registration: (registration) => {
    const built = kinds(registration.name);
    assert.ok(built.length > 0, "create() builds no kind with every feature on");
    for (const kind of built) assert.deepEqual(kind.declarations, registration.rules);
  },
  Chart: {
    withHelm: (registration) => {
      for (const kind of kinds(registration.name)) {
        for (const webhook of webhooksOf(kind)) {
          assert.ok(chart.everyKindOn.includes(webhook.path), `${webhook.path} not in the chart`);
          // Behind its value: off by default unless it is always on.
          const byDefault = chart.defaults.includes(webhook.path);
          assert.equal(byDefault, !registration.chart?.enabledBy, `${webhook.path} served by default`);
        }
      }
    },
  },
  Tests: (registration) => {
    const dir = join(root, "test/resources", registration.name);
    const tests = existsSync(dir) ? readdirSync(dir).filter((file) => file.endsWith(".test.ts")) : [];
    assert.ok(tests.length > 0, `no tests in test/resources/${registration.name}/`);
  },
  "Ratchet generators": async (registration) => {
    assert.deepEqual(await ratchetGaps([registration]), []);
  },
  Docs: (registration) => {
    const doc = readFileSync(join(root, "docs/rules.md"), "utf8");
    assert.ok(doc.includes(`\n## ${registration.title}\n`), `no section ${registration.title}`);
  },
};

/** The bold titles of the numbered steps of a markdown section (`1. **Title**: ...`). */
function listedSteps(markdown: string, heading: string): string[] {
  const start = markdown.indexOf(`\n## ${heading}`);
  assert.ok(start >= 0, `no section "## ${heading}"`);
  const end = markdown.indexOf("\n## ", start + 1);
  const section = markdown.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/^\d+\. \*\*([^*]+)\*\*/gm)].map((match) => match[1] as string);
}

/** What the doc's list and the tests' demands disagree on, one line each. */
function checklistGaps(listed: readonly string[], demanded: readonly string[]): string[] {
  return [
    ...demanded
      .filter((step) => !listed.includes(step))
      .map((step) => `demanded by a test, not listed: ${step}`),
    ...listed.filter((step) => !demanded.includes(step)).map((step) => `listed, checked by no test: ${step}`),
  ];
}

const guide = readFileSync(join(root, "docs/adding-a-kind.md"), "utf8");

describe("docs/adding-a-kind.md lists exactly the steps the tests demand of a kind", () => {
  it("every step of 'Adding a kind' is checked below, and every check is a step", () => {
    assert.deepEqual(checklistGaps(listedSteps(guide, "Adding a kind"), Object.keys(steps)), []);
  });

  it("a step missing from the doc, or listed and checked by none, fails", () => {
    const doc =
      "# Guide\n\n## Adding a kind\n\n1. **Rules**: here.\n2. **Chart art**: there.\n\n## Next\n\n1. **Tests**\n";
    assert.deepEqual(listedSteps(doc, "Adding a kind"), ["Rules", "Chart art"]);
    assert.deepEqual(checklistGaps(listedSteps(doc, "Adding a kind"), ["Rules", "Tests"]), [
      "demanded by a test, not listed: Tests",
      "listed, checked by no test: Chart art",
    ]);
  });
});

/** docs/adding-a-kind.md's checklist, for every registered kind. */
describe("every registered kind has what docs/adding-a-kind.md lists", () => {
  before(async () => {
    if (withoutGo) return;
    chart.everyKindOn = webhookPaths(await render(everyKindOn(kindRegistrations)));
    chart.defaults = webhookPaths(await render({}));
  });

  it("registers each kind once, every kind served built from its registration", () => {
    assert.deepEqual(
      kindRegistrations.map((r) => r.name),
      [...new Set(kindRegistrations.map((r) => r.name))],
    );
    assert.deepEqual(
      createResourceKinds({ addonOperator: { "modules-dir": writeTree({}) } }).map((k) => k.kind),
      kindRegistrations.flatMap((r) => kinds(r.name).map((k) => k.kind)),
    );
  });

  it("the chart serves no webhook that no registered kind has", { skip: withoutGo }, () => {
    const registered = kindRegistrations.flatMap((r) => kinds(r.name).flatMap((k) => webhooksOf(k)));
    for (const path of chart.everyKindOn) {
      assert.ok(
        registered.some((webhook) => webhook.path === path),
        `${path} in the chart, served by no kind`,
      );
    }
  });

  for (const registration of kindRegistrations) {
    describe(registration.title, () => {
      for (const [step, check] of Object.entries(steps)) {
        if (typeof check === "function") it(step, () => check(registration));
        else it(step, { skip: withoutGo }, () => check.withHelm(registration));
      }
    });
  }
});
