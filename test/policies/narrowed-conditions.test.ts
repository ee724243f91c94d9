import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import fc from "fast-check";
import { load as loadYaml } from "js-yaml";
import { judgeMutation } from "../../src/admission/handler.js";
import { evaluateCondition, type PolicyRequest } from "../../src/cel/policy-evaluator.js";
import type { GeneratedMutation, WebhookConditions } from "../../src/codegen/native-policies.js";
import { kindOf, type OfflineKind, offlineKinds } from "../../src/offline/kinds.js";
import { type PolicyCase, policyCases } from "../support/policy-cases.js";
import { generatedCases } from "../support/policy-generators.js";
import { decodedCase, schemaRefuses, webhookFindings } from "../support/policy-parity.js";

const chart = new URL("../../charts/module-admission/files/policies/", import.meta.url);
const conditions = loadYaml(
  readFileSync(new URL("webhook-conditions.yaml", chart), "utf8"),
) as WebhookConditions[];
const mutations = loadYaml(readFileSync(new URL("mutating.yaml", chart), "utf8")) as GeneratedMutation[];
const kinds = offlineKinds();

const registration = (kind: OfflineKind) =>
  ({
    Module: "module",
    Workspace: "workspace",
    ModuleTemplate: "moduletemplate",
    ModuleReleaseMeta: "modulereleasemeta",
  })[kind.kind.kind] ?? "";

/** A matchCondition on one request; one that fails to evaluate is a defect (failurePolicy would decide). */
function holds(expression: string, request: PolicyRequest): boolean {
  const result = evaluateCondition(expression, request);
  if (typeof result === "object")
    throw new Error(`a condition does not evaluate: ${result.error}: ${expression}`);
  return result;
}

/**
 * Where the narrowed webhook would not be called although one of its rules (one CEL cannot express)
 * finds something, or its mutation is one no MutatingAdmissionPolicy makes.
 */
async function missed(c: PolicyCase): Promise<string[]> {
  const kind = kindOf(kinds, c.object);
  if (!kind) return [];
  const { object, oldObject } = decodedCase(kind, c);
  // What the schema refuses never reaches a validating webhook; an old object it refuses was never stored.
  const refused =
    schemaRefuses(kind, object, oldObject) ||
    (oldObject !== undefined && schemaRefuses(kind, oldObject, undefined));
  const request: PolicyRequest = {
    operation: c.operation,
    group: kind.kind.group,
    version: kind.kind.version,
    resource: kind.source.crd.names.plural,
    object,
    ...(c.operation === "UPDATE" ? { oldObject } : {}),
  };
  const found: string[] = [];
  const validate = conditions.find(
    (entry) => entry.kind === registration(kind) && entry.webhook === "validate",
  );
  // The rules the API server does not enforce (the schema's gap too), and the policies that give up on
  // a large object: for those the narrowed webhook must be called.
  const declarations = kind.kind.declarations ?? [];
  const webhookOnly = new Set(
    declarations
      .filter((rule) => rule.native.by === "webhook" || (rule.native.by === "schema" && rule.native.callWhen))
      .map((rule) => rule.id),
  );
  const tooLarge = new Set(
    declarations.flatMap((rule) =>
      rule.native.by === "policy" &&
      rule.native.policy.largeWhen &&
      holds(rule.native.policy.largeWhen, request)
        ? [rule.id]
        : [],
    ),
  );
  const called = validate?.when.some((condition) => holds(condition.expression, request)) ?? true;
  if (!refused) {
    for (const [rule] of await webhookFindings(kind, object, oldObject, c.operation)) {
      if ((webhookOnly.has(rule) || tooLarge.has(rule)) && !called)
        found.push(`${rule} found, the narrowed webhook not called`);
    }
  }
  // The mutating webhook: called unless a MutatingAdmissionPolicy makes every change it would.
  const mutate = conditions.find((entry) => entry.kind === registration(kind) && entry.webhook === "mutate");
  if (mutate) {
    const patch = judgeMutation(kind.kind, {
      uid: "narrowed",
      kind: { group: kind.kind.group, version: kind.kind.version, kind: kind.kind.kind },
      resource: {
        group: kind.kind.group,
        version: kind.kind.version,
        resource: kind.source.crd.names.plural,
      },
      operation: c.operation,
      object,
      ...(c.operation === "UPDATE" ? { oldObject } : {}),
    }).patch;
    const mutationCalled = mutate.when.some((condition) => holds(condition.expression, request));
    const byPolicy = mutations
      .filter((m) => m.kind === registration(kind))
      .some((m) =>
        (m.spec.matchConditions as { expression: string }[]).every((mc) => holds(mc.expression, request)),
      );
    if (patch.length > 0 && !mutationCalled && !byPolicy)
      found.push(`the webhook mutates (${JSON.stringify(patch)}); no policy does, and it is not called`);
  }
  return found.map((text) => `${c.name} (${c.operation}): ${text}`);
}

describe("a narrowed webhook is called wherever a rule CEL cannot express finds something", () => {
  it("on every case table, spec example, corpus object and README example", async () => {
    const report: string[] = [];
    for (const c of policyCases()) report.push(...(await missed(c)));
    assert.deepEqual(report, []);
  });

  it("on generated objects of every kind (fast-check)", async () => {
    const result = await fc.check(
      fc.asyncProperty(generatedCases(), async (c) => (await missed(c)).length === 0),
      {
        numRuns: 300,
      },
    );
    const example = result.counterexample?.[0];
    assert.deepEqual(example ? await missed(example) : [], [], `seed ${result.seed}`);
  });
});
