import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { causeType, formatFieldError } from "../../src/admission/field-errors.js";
import { CustomResourceStrategy } from "../../src/apiextensions/custom-resource.js";
import type { JsonSchema } from "../../src/schema/schema-source.js";
import { kubectlApply } from "../support/chart-webhooks.js";
import { useControlPlane } from "../support/control-plane.js";
import { withoutGo } from "../support/go-tools.js";
import { type ApiClient, apiClient } from "./api-client.js";
import { fromAnswer } from "./verdicts.js";

/**
 * Issue 31's CEL differences, on a CRD of the test's own whose rules call what the project's CRDs do
 * not: Kubernetes' CEL libraries (the lists library, isURL, sets.*, find, url(), quantity(), ip()),
 * `format: date-time` values, a rule whose text names oldSelf only in a string. Each probe object goes
 * to the real kube-apiserver (dry-run create) and through `validate`'s custom resource strategy: where
 * `validate` evaluates a rule, the same verdict and message; where it cannot, it says "not evaluated
 * offline" and never a verdict (the server's error for that rule is the only one allowed to differ).
 */
const group = "probe.module-admission.dev";

const rules: { rule: string; message: string }[] = [
  { rule: "!has(self.url) || isURL(self.url)", message: "R1 isURL" },
  { rule: "!has(self.ints) || self.ints.isSorted()", message: "R2 isSorted" },
  { rule: "!has(self.ints) || self.ints.sum() < 100", message: "R3 sum" },
  { rule: "!has(self.ints) || size(self.ints) == 0 || self.ints.min() >= 0", message: "R4 min" },
  { rule: "!has(self.ints) || size(self.ints) == 0 || self.ints.max() <= 50", message: "R5 max" },
  { rule: "!has(self.ints) || self.ints.indexOf(3) != 0", message: "R6 indexOf" },
  { rule: "!has(self.ints) || self.ints.lastIndexOf(3) != 1", message: "R7 lastIndexOf" },
  { rule: "!has(self.a) || !has(self.b) || sets.contains(self.a, self.b)", message: "R8 sets.contains" },
  { rule: "!has(self.a) || !has(self.b) || !sets.equivalent(self.a, self.b)", message: "R9 sets.equivalent" },
  { rule: "!has(self.a) || !sets.intersects(self.a, ['forbidden'])", message: "R10 sets.intersects" },
  { rule: "!has(self.text) || self.text.find('[0-9]+') != '42'", message: "R11 find" },
  {
    rule: "!has(self.url) || !isURL(self.url) || url(self.url).getHost() != 'evil.example.com'",
    message: "R12 url()",
  },
  { rule: "!has(self.when) || self.when < timestamp('2030-01-01T00:00:00Z')", message: "R13 date-time" },
  { rule: "!has(self.qty) || quantity(self.qty).isLessThan(quantity('1Gi'))", message: "R14 quantity()" },
  { rule: "!has(self.ip) || ip(self.ip).family() == 4", message: "R15 ip()" },
  // The text names oldSelf only inside a string: no transition rule, so it runs on CREATE.
  { rule: "!has(self.text) || self.text != 'oldSelf'", message: "R16 oldSelf in a string" },
];

const schema: JsonSchema = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      properties: {
        url: { type: "string", maxLength: 256 },
        ints: { type: "array", maxItems: 10, items: { type: "integer" } },
        a: { type: "array", maxItems: 10, items: { type: "string", maxLength: 16 } },
        b: { type: "array", maxItems: 10, items: { type: "string", maxLength: 16 } },
        text: { type: "string", maxLength: 64 },
        when: { type: "string", format: "date-time" },
        qty: { type: "string", maxLength: 32 },
        ip: { type: "string", maxLength: 64 },
      },
      "x-kubernetes-validations": rules,
    },
  },
};

const crd = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: `celprobes.${group}` },
  spec: {
    group,
    scope: "Namespaced",
    names: { plural: "celprobes", singular: "celprobe", kind: "CelProbe", listKind: "CelProbeList" },
    versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: schema } }],
  },
};

/** Spec values that make each rule pass and fail (and a few that only some functions accept). */
const specs: Record<string, unknown>[] = [
  {},
  { url: "https://example.com/a" },
  { url: "not a url" },
  { url: "/only/a/path" },
  { url: "https://example.com/a%zz" },
  { url: "https://evil.example.com/x" },
  { ints: [] },
  { ints: [1, 2, 3] },
  { ints: [3, 2, 1] },
  { ints: [3, 3] },
  { ints: [-1, 5] },
  { ints: [10, 60] },
  { ints: [40, 50, 60] },
  { a: ["x", "y"], b: ["x"] },
  { a: ["x"], b: ["x", "z"] },
  { a: ["x", "y"], b: ["y", "x"] },
  { a: ["forbidden"] },
  { text: "abc 42 def" },
  { text: "abc 421" },
  { text: "no digits" },
  { text: "oldSelf" },
  { when: "2025-06-01T00:00:00Z" },
  { when: "2031-06-01T00:00:00Z" },
  { qty: "512Mi" },
  { qty: "2Gi" },
  { ip: "10.0.0.1" },
  { ip: "::1" },
  { url: "ftp://x", ints: [5, 1], a: ["forbidden"], b: ["q"], text: "42" },
];

describe("validate's CEL evaluator and kube-apiserver 1.37: Kubernetes' CEL libraries (issue 31)", {
  skip: withoutGo,
}, () => {
  const plane = useControlPlane();
  let api: ApiClient;
  const strategy = new CustomResourceStrategy({
    openAPIV3Schema: schema,
    kind: "CelProbe",
    version: "v1",
    namespaced: true,
  });

  before(async () => {
    await kubectlApply(plane(), [crd]);
    const wait = await plane().kubectl([
      "wait",
      "--for=condition=Established",
      "--timeout=120s",
      `customresourcedefinition/${crd.metadata.name}`,
    ]);
    if (wait.code !== 0) throw new Error(`kubectl wait: ${wait.stderr}`);
    api = apiClient(plane().kubeconfigPath);
    plane().defer(() => api.close());
  });

  it("the same verdict and messages where validate evaluates a rule; 'not evaluated offline' where it cannot, never a verdict", async (t) => {
    const found: string[] = [];
    let evaluated = 0;
    const unevaluated = new Map<string, number>();
    for (const [i, spec] of specs.entries()) {
      const object = {
        apiVersion: `${group}/v1`,
        kind: "CelProbe",
        metadata: { name: `probe-${i}`, namespace: "default" },
        spec,
      };
      const answer = await api.request(
        "POST",
        "/apis/probe.module-admission.dev/v1/namespaces/default/celprobes",
        object,
        {
          dryRun: "All",
        },
      );
      const server = fromAnswer(answer);
      const offline = strategy.validate(object);
      const notEvaluated = offline.warnings.filter((warning) => warning.notEvaluated);
      // The rules validate could not run: the server's errors for them are the only ones not compared.
      const skipped = rules.filter((rule) =>
        notEvaluated.some((w) => w.message.includes(JSON.stringify(rule.rule))),
      );
      for (const rule of skipped) unevaluated.set(rule.message, (unevaluated.get(rule.message) ?? 0) + 1);
      const serverCauses = server.causes.filter(
        (cause) => !skipped.some((rule) => cause.endsWith(rule.message)),
      );
      const offlineCauses = offline.errors.map(
        ({ error }) => `${causeType(error)} | ${formatFieldError(error)}`,
      );
      evaluated += rules.length - skipped.length;
      const sorted = (list: string[]) => [...list].sort();
      if (JSON.stringify(sorted(serverCauses)) !== JSON.stringify(sorted(offlineCauses)))
        found.push(
          `${JSON.stringify(spec)}: server ${JSON.stringify(server.causes)}, validate ${JSON.stringify(offlineCauses)}`,
        );
      if (server.refused !== undefined) found.push(`${JSON.stringify(spec)}: refused ${server.refused}`);
      const otherWarnings = offline.warnings.filter((warning) => !warning.notEvaluated).map((w) => w.message);
      if (JSON.stringify(sorted(server.warnings)) !== JSON.stringify(sorted(otherWarnings)))
        found.push(
          `${JSON.stringify(spec)}: warnings: server ${JSON.stringify(server.warnings)}, validate ${JSON.stringify(otherWarnings)}`,
        );
    }
    t.diagnostic(
      `${specs.length} objects × ${rules.length} rules: ${evaluated} rule evaluations compared; not evaluated offline: ${JSON.stringify(Object.fromEntries(unevaluated))}`,
    );
    assert.deepEqual(found, []);
    // Not vacuous: validate evaluates the libraries it binds.
    for (const bound of ["R1", "R2", "R3", "R4", "R5", "R6", "R7", "R8", "R9", "R10", "R11", "R16"])
      assert.ok(![...unevaluated.keys()].some((m) => m.startsWith(`${bound} `)), `${bound} was evaluated`);
  });
});
