import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, it } from "node:test";
import { Ajv } from "ajv";
import { validate } from "../../src/admission/handler.js";
import type { ResourceKind, Verdict } from "../../src/admission/resource-kind.js";
import type { AdmissionRequest } from "../../src/admission/review.js";
import { beginReview } from "../../src/admission/review-context.js";
import { checkRuleIds, parseRuleActions } from "../../src/admission/rule-actions.js";
import { allowedActions, type RuleDeclaration } from "../../src/admission/rule-catalogue.js";
import { FieldPath } from "../../src/base/field-path.js";
import { WorkBudgetExceeded } from "../../src/budget/work-budget.js";
import { ruleHelp } from "../../src/cli/rule-help.js";
import { createResourceKinds, kindRegistrations, ruleCatalogue } from "../../src/resources/index.js";
import { configMap, writeTree } from "../support/addon-modules.js";
import { admissionCases } from "../support/admission-cases.js";
import { kedaReleaseMeta } from "../support/modulereleasemetas.js";
import { customModule, helmModule } from "../support/modules.js";
import { kedaTemplate } from "../support/moduletemplates.js";
import { admissionReview } from "../support/reviews.js";

const root = new URL("../..", import.meta.url).pathname;
const declared: RuleDeclaration[] = ruleCatalogue().flatMap((section) => section.rules);
const declaredIds = new Set(declared.map((rule) => rule.id));

/** Every file below `dir` whose name ends in `ext`. */
function filesUnder(dir: string, ext: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return filesUnder(path, ext);
    return path.endsWith(ext) ? [path] : [];
  });
}

// A modules dir with one module ("enabledModule", values schema with a required field) and one disabled.
const modulesDir = writeTree({
  "001-known/openapi/config-values.yaml": {
    type: "object",
    required: ["replicas"],
    properties: { replicas: { type: "integer" } },
  },
  "001-known/values.yaml": "{}",
});
const kinds = createResourceKinds({ addonOperator: { "modules-dir": modulesDir } });
const kindNamed = (kind: string): ResourceKind => {
  const found = kinds.find((k) => k.kind === kind);
  if (!found) throw new Error(`no kind ${kind}`);
  return found;
};

/** The rule ids of a verdict's errors and warnings. */
const idsOf = (verdict: Verdict) => [
  ...verdict.errors.map((error) => error.rule),
  ...verdict.warnings.map((warning) => (typeof warning === "string" ? undefined : warning.rule)),
];

/** One object's state rules and, with an old object, its update-only rules, as the kind's validator gives them. */
async function emitted(kind: string, object: unknown, oldObject?: unknown): Promise<(string | undefined)[]> {
  const served = kindNamed(kind);
  const group = served.group;
  const review = admissionReview({
    operation: oldObject ? "UPDATE" : "CREATE",
    object,
    oldObject,
    group,
    version: served.version,
    kind,
  });
  const request = review.request as AdmissionRequest;
  const state = await served.validator?.validate(object, beginReview(request));
  const transition = oldObject
    ? await served.validator?.validateTransition?.(oldObject, object, beginReview(request))
    : undefined;
  return [...(state ? idsOf(state) : []), ...(transition ? idsOf(transition) : [])];
}

/**
 * An example for each rule no other test names: what makes the rule speak, so that every declared rule
 * is shown to be emitted by some test.
 */
const examples: { rule: string; kind: string; object: () => unknown; oldObject?: () => unknown }[] = [
  {
    rule: "module.config-schema-warning",
    kind: "Module",
    object: () => {
      const module = helmModule();
      module.config?.push({ name: "Workers", alias: "workers", integer: { default: 0, min: 1, max: 5 } });
      (module.spec.config as Record<string, unknown>).workers = 2;
      return module;
    },
  },
  {
    rule: "module.config-undeclared",
    kind: "Module",
    object: () => {
      const module = helmModule();
      (module.spec.config as Record<string, unknown>).undeclared = 1;
      return module;
    },
  },
  {
    rule: "module.template-warning",
    kind: "Module",
    object: () => {
      const module = customModule();
      (module.spec.custom as { image: string }).image = "registry.example/app:{{ .config.nope }}";
      return module;
    },
  },
  {
    rule: "moduletemplate.unknown-field",
    kind: "ModuleTemplate",
    object: () => ({ ...kedaTemplate(), spec: { ...kedaTemplate().spec, bogus: true } }),
  },
  {
    rule: "moduletemplate.labels",
    kind: "ModuleTemplate",
    object: () => {
      const template = kedaTemplate();
      (template.metadata as { labels: Record<string, string> }).labels["operator.kyma-project.io/beta"] =
        "yes";
      return template;
    },
  },
  {
    rule: "moduletemplate.advice",
    kind: "ModuleTemplate",
    object: () => ({ ...kedaTemplate(), spec: { ...kedaTemplate().spec, channel: "regular" } }),
  },
  {
    rule: "modulereleasemeta.unknown-field",
    kind: "ModuleReleaseMeta",
    object: () => ({ ...kedaReleaseMeta(), spec: { ...kedaReleaseMeta().spec, bogus: true } }),
  },
  {
    rule: "modulereleasemeta.name",
    kind: "ModuleReleaseMeta",
    object: () => ({ ...kedaReleaseMeta(), metadata: { name: "keda-meta", namespace: "kcp-system" } }),
  },
  {
    rule: "modulereleasemeta.unresolvable",
    kind: "ModuleReleaseMeta",
    object: () => {
      const meta = kedaReleaseMeta();
      delete (meta.spec as { ocmComponentName?: string }).ocmComponentName;
      return meta;
    },
  },
  {
    rule: "modulereleasemeta.channel-prerelease",
    kind: "ModuleReleaseMeta",
    object: () => kedaReleaseMeta({ regular: "1.2.0-rc.1" }),
    oldObject: () => kedaReleaseMeta({ regular: "1.2.0-rc.2" }),
  },
  {
    rule: "addon-operator-configmap.unknown-module",
    kind: "ConfigMap",
    object: () => configMap({ nobody: "replicas: 1\n" }),
  },
  {
    rule: "addon-operator-configmap.disabled-module",
    kind: "ConfigMap",
    object: () => configMap({ known: "other: 1\n", knownEnabled: "false" }),
  },
];

describe("the rule catalogue", () => {
  it("declares each rule once, under its kind's prefix, with every field the docs show", () => {
    const seen = new Set<string>();
    for (const section of ruleCatalogue()) {
      const registration = kindRegistrations.find((r) => r.title === section.title);
      const prefix = registration?.name ?? "webhook";
      for (const rule of section.rules) {
        assert.ok(!seen.has(rule.id), `${rule.id} declared twice`);
        seen.add(rule.id);
        assert.ok(rule.id.startsWith(`${prefix}.`), `${rule.id} is not under ${prefix}.`);
        assert.match(rule.id, /^[a-z0-9]+(-[a-z0-9]+)*\.[a-z0-9]+(-[a-z0-9]+)*$/);
        for (const field of ["summary", "realSystem", "upstream"] as const) {
          assert.ok(rule[field].length > 0, `${rule.id}: no ${field}`);
        }
      }
    }
    assert.ok(seen.size >= 79, `${seen.size} rules`);
  });

  it("each Kyma rule that follows lifecycle-manager cites its file and line at the commit docs/kyma.md was read at", () => {
    const kyma = ruleCatalogue()
      .flatMap((section) => section.rules)
      .filter((rule) => /^(moduletemplate|modulereleasemeta)\./.test(rule.id))
      .filter((rule) => rule.upstream.includes("lifecycle-manager"));
    assert.ok(kyma.length >= 12, `${kyma.length} Kyma rules`);
    for (const rule of kyma)
      assert.match(rule.upstream, /^kyma-project\/lifecycle-manager@c5b83f1 \S+(\.go:\d+|\.yaml;)/, rule.id);
  });

  it("is what serve --rule-action accepts: every id, each with its allowed actions, and nothing else", () => {
    for (const rule of declared) {
      if (rule.fixed) {
        assert.throws(() => checkRuleIds(parseRuleActions([`${rule.id}=warn`]), kinds), /no rule/);
        continue;
      }
      for (const action of ["deny", "warn", "off"] as const) {
        const check = () => checkRuleIds(parseRuleActions([`${rule.id}=${action}`]), kinds);
        if (allowedActions(rule).includes(action)) assert.doesNotThrow(check, rule.id);
        else assert.throws(check, /only warns/, rule.id);
      }
    }
    assert.throws(() => checkRuleIds(parseRuleActions(["module.relase-name=warn"]), kinds), /no rule/);
  });

  it("gives the chart's values schema its ruleActions: a misspelt id or a warning rule set to deny fails", () => {
    const schema = JSON.parse(readFileSync(join(root, "charts/module-admission/values.schema.json"), "utf8"));
    const ruleActions = new Ajv({ strict: false }).compile(schema.properties.ruleActions);
    assert.ok(ruleActions({ "module.workspace-exists": "warn", "module.chart-version-unset": "off" }));
    assert.ok(!ruleActions({ "module.relase-name": "warn" }));
    assert.ok(!ruleActions({ "module.unknown-field": "deny" }));
    assert.ok(!ruleActions({ "webhook.work-budget": "warn" }));
    assert.deepEqual(
      Object.keys(schema.properties.ruleActions.properties).sort(),
      declared
        .filter((rule) => !rule.fixed)
        .map((rule) => rule.id)
        .sort(),
    );
  });

  it("gives docs/rules.md an anchor and an entry for every rule", () => {
    const doc = readFileSync(join(root, "docs/rules.md"), "utf8");
    for (const rule of declared) {
      assert.ok(doc.includes(`<a id="${rule.id}"></a>`), `${rule.id}: no anchor`);
      assert.ok(doc.includes(`### \`${rule.id}\``), `${rule.id}: no entry`);
    }
  });

  it("gives SARIF its rule metadata: descriptions from the declaration, helpUri into docs/rules.md", () => {
    const help = ruleHelp("validating-webhook/module.release-name");
    assert.match(help.short, /^spec\.helm\.releaseName not a DNS-1035 label/);
    assert.match(help.full, /Stricter than the real system: Helm refuses names over 53 characters/);
    assert.match(help.help, /--rule-action module\.release-name=warn\|off/);
    assert.equal(
      help.uri,
      "https://github.com/forkspacer/module-admission/blob/main/docs/rules.md#module.release-name",
    );
    assert.match(ruleHelp("validating-webhook/module.unknown-field").help, /=off\. Upstream/);
    assert.equal(ruleHelp("input/Unreadable").uri, undefined);
  });

  it("names, in the sources of the kinds and the protocol layer, no rule id it does not declare", () => {
    const literal =
      /["`](module|workspace|moduletemplate|modulereleasemeta|webhook)\.([a-z0-9]+(-[a-z0-9]+)*)["`]/g;
    const configMapRule = /rule\("([a-z-]+)"\)/g;
    // A mutation's id (`module.release-name-default`) is declared beside its defaulter.
    const mutationIds = new Set(
      ruleCatalogue().flatMap((section) => (section.mutations ?? []).map((m) => m.id)),
    );
    const sources = [
      ...filesUnder(join(root, "src/resources"), ".ts"),
      ...filesUnder(join(root, "src/admission"), ".ts"),
    ];
    for (const file of sources) {
      const text = readFileSync(file, "utf8");
      for (const match of text.matchAll(literal)) {
        const id = `${match[1]}.${match[2]}`;
        assert.ok(
          declaredIds.has(id) || mutationIds.has(id),
          `${relative(root, file)} names ${id}, which no rule declares`,
        );
      }
      for (const match of text.matchAll(configMapRule)) {
        const id = `addon-operator-configmap.${match[1]}`;
        assert.ok(declaredIds.has(id), `${relative(root, file)} names ${id}, which no rule declares`);
      }
    }
  });

  it("declares every rule the suites' cases find", async () => {
    for (const { name, review } of admissionCases()) {
      const request = review.request as AdmissionRequest;
      if (!request.object) continue;
      const ids = await emitted(request.kind.kind, request.object, request.oldObject ?? undefined);
      for (const id of ids) {
        if (id !== undefined) assert.ok(declaredIds.has(id), `${name}: ${id} is not declared`);
      }
    }
  });

  for (const example of examples) {
    it(`shows ${example.rule} speaking`, async () => {
      const ids = await emitted(example.kind, example.object(), example.oldObject?.());
      assert.ok(ids.includes(example.rule), `${example.rule} not among ${JSON.stringify(ids)}`);
      for (const id of ids) if (id !== undefined) assert.ok(declaredIds.has(id), `${id} is not declared`);
    });
  }

  it("denies a required check that runs out of work with webhook.work-budget", async () => {
    const kind: ResourceKind = {
      group: "batch.forkspacer.com",
      version: "v1",
      kind: "Module",
      validator: {
        validate: () => {
          throw new WorkBudgetExceeded("judging this object", 1, FieldPath.root("spec"));
        },
      },
    };
    const review = admissionReview({ operation: "CREATE", object: customModule() });
    const response = await validate(kind, review.request as AdmissionRequest);
    assert.equal(response.allowed, false);
    assert.match(JSON.stringify(response.status), /webhook\.work-budget/);
  });

  it("has a test for every rule it declares: each id is named in a test file", () => {
    const tests = filesUnder(join(root, "test"), ".ts")
      .map((file) => readFileSync(file, "utf8"))
      .join("\n");
    for (const rule of declared) {
      // The id whole: `moduletemplate.schema` is not named by `moduletemplate.schema.json`.
      const named = new RegExp(`${rule.id.replaceAll(".", "\\.")}(?![a-z0-9.-])`);
      assert.match(tests, named, `${rule.id}: no test names it`);
    }
  });
});
