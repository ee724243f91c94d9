import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Ajv } from "ajv";
import fc from "fast-check";
import type { ValidationRule } from "../../src/cel/crd-validator.js";
import { crdRuleValidator } from "../../src/cel/crd-validator.js";
import { editorConstraints } from "../../src/codegen/editor-rules.js";
import { buildEditorDispatchSchema, buildEditorSchema } from "../../src/codegen/editor-schema.js";
import { schemasDir } from "../../src/offline/kinds.js";
import {
  inlineRefs,
  type JsonSchema,
  loadSchemaSources,
  mapSchemaNodes,
  type SchemaSource,
} from "../../src/schema/schema-source.js";

/**
 * The editor schema's translation of CEL rules against the CEL rules themselves, evaluated as the API
 * server does on CREATE (crd-validator): for every rule of every schema source that the translation
 * takes, the JSON Schema accepts exactly the values the rule accepts, over every combination of set
 * fields (object rules) and over generated strings (string rules), and reports the rule's own message.
 */

const sources = loadSchemaSources(schemasDir);
// As an editor reads the schema (ECMAScript `u` regular expressions); the editor keywords are not ajv's.
const ajv = new Ajv({ strict: false, allErrors: true });

interface RuleNode {
  where: string;
  node: JsonSchema;
  rule: ValidationRule;
}

/** Every node of every source with one rule at a time, nested rules stripped. */
function ruleNodes(): RuleNode[] {
  const found: RuleNode[] = [];
  for (const source of sources) {
    mapSchemaNodes(inlineRefs(source.schema), (node) => {
      for (const rule of (node["x-kubernetes-validations"] ?? []) as ValidationRule[]) {
        const alone = mapSchemaNodes(node, (child) => {
          const { "x-kubernetes-validations": _, ...rest } = child;
          return rest;
        });
        found.push({
          where: `${source.name}: ${rule.rule.slice(0, 60)}`,
          node: { ...alone, "x-kubernetes-validations": [rule] },
          rule,
        });
      }
      return node;
    });
  }
  return found;
}

/** The rule's verdict on CREATE, as the API server gives it: the error messages at the value. */
function celMessages(node: JsonSchema, value: unknown): string[] {
  const schema = { type: "object", properties: { v: node } };
  return crdRuleValidator(schema)({ v: value }).errors.map((error) => error.detail ?? "");
}

/** The editor fragments' verdict: whether the value passes, and the messages it would show. */
function editorVerdict(constraints: JsonSchema[], value: unknown): { valid: boolean; messages: string[] } {
  const messages: string[] = [];
  let valid = true;
  for (const constraint of constraints) {
    if (ajv.validate(constraint, value)) continue;
    valid = false;
    const then = constraint.then as JsonSchema | undefined;
    messages.push(String(then?.errorMessage ?? ""));
  }
  return { valid, messages };
}

const translated = ruleNodes()
  .map((entry) => ({ ...entry, constraints: editorConstraints(entry.node) }))
  .filter((entry) => entry.constraints.length > 0);

describe("editor schema: CEL rules as JSON Schema", () => {
  it("takes the rules an editor can check (the three a bad Module breaks among them)", () => {
    const taken = translated.map((entry) => /\(rule ([a-z.-]+)\)/.exec(entry.rule.message ?? "")?.[1]);
    for (const rule of ["module.release-name", "module.source", "module.chart-source"]) {
      assert.ok(taken.includes(rule), `${rule} not translated`);
    }
    // Transition rules (oldSelf without optionalOldSelf) never are: they do not run on CREATE.
    assert.ok(
      translated.every((entry) => entry.rule.optionalOldSelf || !entry.rule.rule.includes("oldSelf")),
    );
  });

  it("an object rule: the same verdict and message as CEL for every combination of set fields", () => {
    let combinations = 0;
    for (const entry of translated.filter((e) => e.node.type === "object")) {
      const properties = entry.node.properties as Record<string, JsonSchema>;
      const fields = Object.keys(properties).filter((field) => entry.rule.rule.includes(`self.${field}`));
      for (let set = 0; set < 1 << fields.length; set++) {
        const value = Object.fromEntries(
          fields
            .filter((_, i) => (set >> i) & 1)
            .map((field) => [field, properties[field]?.type === "string" ? "a" : {}]),
        );
        const cel = celMessages(entry.node, value);
        const editor = editorVerdict(entry.constraints, value);
        assert.equal(editor.valid, cel.length === 0, `${entry.where} on ${JSON.stringify(value)}`);
        assert.deepEqual(editor.messages, cel, `${entry.where} on ${JSON.stringify(value)}`);
        combinations++;
      }
    }
    assert.ok(combinations >= 16, `only ${combinations} combinations checked`);
  });

  it("a string rule: the same verdict as CEL on generated strings", () => {
    const strings = translated.filter((e) => e.node.type === "string");
    assert.ok(strings.length >= 2);
    const alphabet = fc.constantFrom(..."az09-._A \t\u00a0\u2003é".split(""));
    const value = fc.oneof(
      fc.string({ unit: alphabet, maxLength: 60 }),
      fc.constantFrom("", "a", "a-b", "-a", "a-", "1a", "a.b", "a".repeat(53), "a".repeat(54)),
    );
    for (const entry of strings) {
      // The node's own keywords (maxLength) besides the rule: compared on values the node admits.
      const schema = { ...entry.constraints[0] };
      fc.assert(
        fc.property(value, (text) => {
          const cel = celMessages(entry.node, text).length === 0;
          assert.equal(ajv.validate(schema, text), cel, `${entry.where} on ${JSON.stringify(text)}`);
        }),
        { numRuns: 400 },
      );
    }
  });

  it("the structure gate's schema (schemas/dist) takes none of them: its CEL rules run as CEL", () => {
    for (const source of sources) {
      const text = JSON.stringify(buildEditorSchema(source));
      assert.ok(!/patternErrorMessage|errorMessage|"if"/.test(text), source.name);
    }
    const editor = JSON.stringify(
      buildEditorSchema(sources.find((s) => s.name === "module") as SchemaSource, { celRules: true }),
    );
    assert.ok(editor.includes('"pattern":"^[a-z]([-a-z0-9]*[a-z0-9])?$"'));
  });
});

describe("editor schema: the kinds a served group serves", () => {
  const dispatch = ajv.compile(buildEditorDispatchSchema(sources, { celRules: true }));
  const object = (apiVersion: string, kind: string) => ({ apiVersion, kind, metadata: { name: "x" } });

  it("flags a kind its group does not serve, and one of ours at a version not served", () => {
    for (const [apiVersion, kind] of [
      ["batch.forkspacer.com/v1", "Modul"],
      ["batch.forkspacer.com/v1", "module"],
      ["operator.kyma-project.io/v1beta2", "ModuleTemplat"],
      ["batch.forkspacer.com/v2", "Module"],
      ["operator.kyma-project.io/v1beta1", "ModuleTemplate"],
    ]) {
      assert.equal(dispatch(object(apiVersion as string, kind as string)), false, `${apiVersion} ${kind}`);
    }
  });

  it("leaves alone the group's other products' kinds, other groups, and other versions of theirs", () => {
    for (const [apiVersion, kind] of [
      ["operator.kyma-project.io/v1beta2", "Kyma"],
      ["operator.kyma-project.io/v1beta2", "Manifest"],
      ["operator.kyma-project.io/v1beta2", "Watcher"],
      ["operator.kyma-project.io/v1beta1", "Kyma"],
      ["apps/v1", "Deployment"],
      ["v1", "ConfigMap"],
      ["kustomize.config.k8s.io/v1beta1", "Kustomization"],
    ]) {
      assert.equal(dispatch(object(apiVersion as string, kind as string)), true, `${apiVersion} ${kind}`);
    }
  });

  it("the structure gate's dispatch schema has no such rule", () => {
    const { $id: _, ...structure } = buildEditorDispatchSchema(sources);
    const plain = ajv.compile(structure);
    assert.equal(plain(object("batch.forkspacer.com/v1", "Modul")), true);
  });
});
