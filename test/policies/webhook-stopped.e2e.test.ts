import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { loadAll } from "js-yaml";
import { kindOf, offlineKinds } from "../../src/offline/kinds.js";
import { type Manifest, render } from "../support/chart.js";
import { localWebhookConfigurations, startLocalServe } from "../support/chart-webhooks.js";
import { useControlPlane } from "../support/control-plane.js";
import { eventually } from "../support/eventually.js";
import { withoutGo } from "../support/go-tools.js";
import { decodedCase, nativeRules, webhookFindings } from "../support/policy-parity.js";
import { api, apply, applyCrds, ourCrds, serverFindings } from "../support/policy-server.js";

const root = new URL("../..", import.meta.url).pathname;
const kinds = offlineKinds();

/** The README's examples: the AdmissionReviews' objects and the manifests of examples/modules. */
function readmeExamples(): { name: string; object: Record<string, unknown> }[] {
  const reviews = [
    "create-invalid-module.json",
    "create-invalid-moduletemplate.json",
    "create-helm-module.json",
  ].map((file) => ({
    name: `examples/${file}`,
    object: JSON.parse(readFileSync(`${root}examples/${file}`, "utf8")).request.object as Record<
      string,
      unknown
    >,
  }));
  const manifests = readdirSync(`${root}examples/modules`).flatMap((file) =>
    (loadAll(readFileSync(`${root}examples/modules/${file}`, "utf8")) as Record<string, unknown>[]).map(
      (object) => ({
        name: `examples/modules/${file}`,
        object,
      }),
    ),
  );
  return [...reviews, ...manifests].map(({ name, object }) => {
    const copy = structuredClone(object);
    const metadata = { ...(copy.metadata as Record<string, unknown>) };
    for (const key of ["uid", "creationTimestamp", "resourceVersion"]) delete metadata[key];
    return { name, object: { ...copy, metadata } };
  });
}

const collection = (object: Record<string, unknown>) => {
  const [group, version] = String(object.apiVersion).split("/");
  const plural = String(object.kind) === "Module" ? "modules" : `${String(object.kind).toLowerCase()}s`;
  const ns = String((object.metadata as { namespace?: string }).namespace ?? "default");
  return `/apis/${group}/${version}/namespaces/${ns}/${plural}`;
};

/**
 * The chart with nativePolicies beside its webhooks, the webhook stopped (webhook.failurePolicy Ignore, as
 * docs/native-policies.md advises for this mode): the API server alone must still deny every violation
 * of a rule CEL can express in the README's examples, as the webhook would.
 */
describe("the README's examples with the webhook stopped: the native policies alone deny", {
  skip: withoutGo,
}, () => {
  const plane = useControlPlane();
  const values = {
    nativePolicies: { enabled: true },
    kyma: { webhook: { enabled: true } },
    webhook: { failurePolicy: "Ignore" },
  };
  const served137 = [
    "--kube-version",
    "1.37.2",
    "--api-versions",
    "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy",
    "--api-versions",
    "admissionregistration.k8s.io/v1/MutatingAdmissionPolicy",
  ];
  let policies: Manifest[] = [];

  it("installs our CRDs, the chart's policies and its webhooks, and stops the webhook", async () => {
    await applyCrds(plane(), ourCrds());
    const namespaces = new Set(
      readmeExamples().map((e) =>
        String((e.object.metadata as { namespace?: string }).namespace ?? "default"),
      ),
    );
    await apply(
      plane(),
      [...namespaces].map((name) => ({ apiVersion: "v1", kind: "Namespace", metadata: { name } })),
    );
    policies = (await render(values, served137)).filter((m) => m.kind.includes("AdmissionPolicy"));
    await apply(plane(), policies);
    const serve = await startLocalServe(plane());
    await apply(plane(), await localWebhookConfigurations(serve, values));
    await serve.stop();
  });

  for (const example of readmeExamples()) {
    it(`${example.name}: denied by the policies for a native rule the webhook denies, or admitted`, async () => {
      const kind = kindOf(kinds, example.object);
      assert.ok(kind, `a kind of ours: ${example.name}`);
      const { object } = decodedCase(kind, {
        name: example.name,
        operation: "CREATE",
        object: example.object,
      });
      const native = new Set(
        nativeRules(kind)
          .filter((rule) => rule.severity === "error")
          .map((rule) => rule.id),
      );
      const webhook = await webhookFindings(kind, object, undefined, "CREATE");
      const expected = [...webhook.keys()].filter((rule) => native.has(rule)).sort();
      // The API server picks new policies up asynchronously: the first answers may not have them yet.
      let found: string[] = [];
      await eventually(
        `${example.name}: the API server answers with the policies`,
        async () => {
          const answer = await api(
            plane(),
            "POST",
            `${collection(example.object)}?dryRun=All`,
            example.object,
          );
          found = [...serverFindings(answer).findings.keys()].filter((rule) => native.has(rule));
          return expected.length === 0 ? answer.status < 300 : answer.status >= 400 && found.length > 0;
        },
        60_000,
      );
      // A denial names the first rule that denied: one the webhook denies too.
      for (const rule of found)
        assert.ok(expected.includes(rule), `${rule} denied, which the webhook does not`);
    });
  }

  it("every native rule the webhook denies in them, the policies find too (bound Warn: each shows)", async () => {
    const bindings = policies.filter((m) => m.kind === "ValidatingAdmissionPolicyBinding");
    await apply(
      plane(),
      bindings.map((binding) => ({ ...binding, spec: { ...binding.spec, validationActions: ["Warn"] } })),
    );
    const report: string[] = [];
    for (const example of readmeExamples()) {
      const kind = kindOf(kinds, example.object);
      if (!kind) continue;
      const { object } = decodedCase(kind, {
        name: example.name,
        operation: "CREATE",
        object: example.object,
      });
      const native = new Set(nativeRules(kind).map((rule) => rule.id));
      const webhook = await webhookFindings(kind, object, undefined, "CREATE");
      const expected = [...webhook.keys()].filter((rule) => native.has(rule)).sort();
      // The CRD's own rules refuse before any policy runs: their fields are taken out, one round at a
      // time, so that the policies get to judge the rest (a user fixing what the API server said).
      const found = new Set<string>();
      let judged = structuredClone(example.object);
      await eventually(
        `${example.name}: the API server warns as the policies, now bound Warn`,
        async () => {
          found.clear();
          judged = structuredClone(example.object);
          for (let round = 0; round < 4; round++) {
            const answer = await api(plane(), "POST", `${collection(judged)}?dryRun=All`, judged);
            const seen = serverFindings(answer);
            for (const rule of seen.findings.keys()) if (native.has(rule)) found.add(rule);
            if (answer.status < 300) break;
            const causes = (
              (answer.body.details as { causes?: { field?: string }[] } | undefined)?.causes ?? []
            ).map((cause) => cause.field ?? "");
            for (const field of causes) withoutField(judged, field);
          }
          return JSON.stringify([...found].sort()) === JSON.stringify(expected);
        },
        60_000,
      ).catch(() => {});
      if (JSON.stringify([...found].sort()) !== JSON.stringify(expected))
        report.push(
          `${example.name}: webhook ${expected.join(", ")}; policies ${[...found].sort().join(", ")}`,
        );
    }
    assert.deepEqual(report, []);
  });
});

/** Deletes the field at a path like `spec.helm.releaseName` (a list index as [n]). */
function withoutField(object: Record<string, unknown>, field: string): void {
  const steps = field.split(/\.|\[|\]/).filter((step) => step !== "");
  const last = steps.pop();
  let at: unknown = object;
  for (const step of steps) at = (at as Record<string, unknown> | undefined)?.[step];
  if (last !== undefined && at !== null && typeof at === "object")
    delete (at as Record<string, unknown>)[last];
}
