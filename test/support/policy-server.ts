import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { request } from "node:https";
import { dump as dumpYaml, load as loadYaml } from "js-yaml";
import type { RuleDeclaration } from "../../src/admission/rule-catalogue.js";
import type { GeneratedMutation, GeneratedPolicy } from "../../src/codegen/native-policies.js";
import { kindOf, type OfflineKind, offlineKinds } from "../../src/offline/kinds.js";
import type { ControlPlane } from "./control-plane.js";
import { eventually } from "./eventually.js";
import { goBinary, policyTypecheckTool } from "./go-tools.js";
import type { PolicyCase } from "./policy-cases.js";
import { decodedCase, disagreements, type RuleFindings, webhookFindings } from "./policy-parity.js";

const root = new URL("../..", import.meta.url).pathname;
const kinds = offlineKinds();
/** The namespace the cases are created in (the rules read no namespace; the chart's policies skip some). */
export const namespace = "parity";

/** The generated CRDs of the chart (files/crds/), as objects. */
export const ourCrds = () =>
  readdirSync(`${root}charts/module-admission/files/crds`).map((file) =>
    loadYaml(readFileSync(`${root}charts/module-admission/files/crds/${file}`, "utf8")),
  );

/** The chart's generated policies and mutations, as files/policies/ holds them. */
export function chartPolicies(): { validating: GeneratedPolicy[]; mutating: GeneratedMutation[] } {
  const read = (name: string) =>
    loadYaml(readFileSync(`${root}charts/module-admission/files/policies/${name}`, "utf8")) as never;
  return { validating: read("validating.yaml"), mutating: read("mutating.yaml") };
}

/** What this test names a policy: the rule id under a prefix (the chart puts its release's name there). */
export const policyPrefix = "native";
export const policyName = (rule: string) => `${policyPrefix}.${rule}`;

/**
 * The policies as objects to apply, each bound with `action` (Warn shows every failed validation of
 * every policy; Deny, as the chart binds error rules, the first of the first denying policy).
 */
export function policyObjects(
  policies: readonly GeneratedPolicy[],
  action: "Deny" | "Warn" | "asDeclared",
  /** Every policy's failurePolicy; by default each as generated (Fail where it sets none). */
  failurePolicy?: "Fail" | "Ignore",
): unknown[] {
  return policies.flatMap((policy) => {
    const name = policyName(policy.rule);
    const bound = action === "asDeclared" ? (policy.action === "deny" ? "Deny" : "Warn") : action;
    return [
      {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "ValidatingAdmissionPolicy",
        metadata: { name },
        spec: { failurePolicy: "Fail", ...policy.spec, ...(failurePolicy ? { failurePolicy } : {}) },
      },
      {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "ValidatingAdmissionPolicyBinding",
        metadata: { name },
        spec: { policyName: name, validationActions: [bound] },
      },
    ];
  });
}

/** MutatingAdmissionPolicies and their bindings, at an API version. */
export function mutationObjects(mutations: readonly GeneratedMutation[], apiVersion: string): unknown[] {
  return mutations.flatMap((mutation) => {
    const name = policyName(mutation.mutation);
    return [
      {
        apiVersion,
        kind: "MutatingAdmissionPolicy",
        metadata: { name },
        spec: { failurePolicy: "Fail", ...mutation.spec },
      },
      { apiVersion, kind: "MutatingAdmissionPolicyBinding", metadata: { name }, spec: { policyName: name } },
    ];
  });
}

/** Applies objects with the control plane's kubectl (server-side validation of every field). */
export async function apply(plane: ControlPlane, objects: readonly unknown[]): Promise<void> {
  const input = objects.map((object) => dumpYaml(object, { lineWidth: -1, noRefs: true })).join("---\n");
  const result = await plane.kubectl(["apply", "--server-side", "--force-conflicts", "-f", "-"], { input });
  if (result.code !== 0) throw new Error(`kubectl apply failed: ${result.stderr}`);
}

/** Applies CRDs and waits until the API server serves them (Established): kubectl apply does not wait. */
export async function applyCrds(plane: ControlPlane, crds: readonly unknown[]): Promise<void> {
  await apply(plane, crds);
  const names = crds.map(
    (crd) => `customresourcedefinition/${(crd as { metadata: { name: string } }).metadata.name}`,
  );
  const wait = await plane.kubectl(["wait", "--for=condition=Established", "--timeout=120s", ...names]);
  if (wait.code !== 0) throw new Error(`kubectl wait failed: ${wait.stderr}`);
}

let sentinels = 0;

/**
 * Applies validating policies and their bindings, then waits until the API server enforces every one.
 * It picks them up asynchronously (an informer per resource, a snapshot rebuilt from both caches), so a
 * request right after the apply may meet only some. A sentinel policy and binding are applied last: each
 * informer delivers its objects in order, so once the sentinel's warning shows, every policy and binding
 * applied before it is in the snapshot too. The sentinel is then deleted (it is nobody's rule).
 */
export async function applyPolicies(plane: ControlPlane, objects: readonly unknown[]): Promise<void> {
  const name = `${policyPrefix}.sentinel-${++sentinels}`;
  const sentinel = [
    {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicy",
      metadata: { name },
      spec: {
        failurePolicy: "Fail",
        matchConstraints: {
          resourceRules: [
            { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] },
          ],
          objectSelector: { matchLabels: { sentinel: name } },
        },
        validations: [{ expression: "false", message: name }],
      },
    },
    {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicyBinding",
      metadata: { name },
      spec: { policyName: name, validationActions: ["Warn"] },
    },
  ];
  await apply(plane, [...objects, ...sentinel]);
  const probe = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "sentinel", labels: { sentinel: name } },
  };
  await eventually(
    `the policies are in force (${name} warns)`,
    async () =>
      (
        await api(plane, "POST", `/api/v1/namespaces/${namespace}/configmaps?dryRun=All`, probe)
      ).warnings.some((warning) => warning.endsWith(`: ${name}`)),
    60_000,
  );
  const deleted = await plane.kubectl([
    "delete",
    `validatingadmissionpolicybinding/${name}`,
    `validatingadmissionpolicy/${name}`,
  ]);
  if (deleted.code !== 0) throw new Error(`kubectl delete failed: ${deleted.stderr}`);
}

/** An API server's answer: status, body, and each Warning header's text. */
export interface ApiAnswer {
  status: number;
  body: Record<string, unknown>;
  warnings: string[];
}

/** One request to the API server, with the admin credentials of the test's kubeconfig. */
export function api(plane: ControlPlane, method: string, path: string, body?: unknown): Promise<ApiAnswer> {
  const config = plane.kubeConfig();
  const url = new URL(path, plane.url);
  return new Promise((resolve, reject) => {
    const options: Record<string, unknown> = {
      method,
      hostname: url.hostname,
      port: url.port,
      path: `${url.pathname}${url.search}`,
      headers: { "content-type": "application/json", accept: "application/json" },
    };
    config
      .applyToHTTPSOptions(options as never)
      .then(() => {
        const req = request(options, (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8");
            const warnings: string[] = [];
            for (let i = 0; i < res.rawHeaders.length; i += 2) {
              if (res.rawHeaders[i]?.toLowerCase() !== "warning") continue;
              // `299 - "text"`, the text's quotes and backslashes escaped.
              const value = res.rawHeaders[i + 1] ?? "";
              const quoted = /^\d{3} \S+ "((?:[^"\\]|\\.)*)"/.exec(value)?.[1];
              warnings.push(quoted === undefined ? value : quoted.replace(/\\(.)/g, "$1"));
            }
            resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : {}, warnings });
          });
        });
        req.on("error", reject);
        if (body !== undefined) req.write(JSON.stringify(body));
        req.end();
      })
      .catch(reject);
  });
}

/** `Validation failed for ValidatingAdmissionPolicy 'native.x' with binding 'native.x': <message>`. */
const policyWarning =
  /^Validation failed for ValidatingAdmissionPolicy '([^']+)' with binding '[^']+': (.*)$/s;
const ruleTag = /\(rule ([^)]+)\)$/;

/**
 * What the API server's answer says rule by rule: a 422's causes that name a rule (the CRD's CEL rules),
 * the Warn-bound policies' warnings, and a Deny-bound policy's denial; with the field each names (a
 * cause's field; the start of a policy's message). Also whether the schema refused the object (causes
 * that name no rule): then no rule of ours was asked.
 */
export function serverFindings(answer: ApiAnswer): {
  findings: RuleFindings;
  schemaRefused: boolean;
  policiesRan: boolean;
} {
  const findings: RuleFindings = new Map();
  const add = (rule: string, field: string) => findings.set(rule, [...(findings.get(rule) ?? []), field]);
  let schemaRefused = false;
  const status = answer.body as {
    kind?: string;
    message?: string;
    details?: { causes?: { field?: string; message?: string }[] };
  };
  const denial = /ValidatingAdmissionPolicy '([^']+)' with binding '[^']+' denied request: (.*)$/s.exec(
    status.message ?? "",
  );
  if (answer.status >= 400 && denial) {
    const message = denial[2] ?? "";
    add(ruleTag.exec(message)?.[1] ?? (denial[1] ?? "").replace(`${policyPrefix}.`, ""), fieldOf(message));
  } else if (answer.status >= 400) {
    for (const cause of status.details?.causes ?? []) {
      const rule = ruleTag.exec(cause.message ?? "")?.[1];
      if (rule) add(rule, cause.field ?? "");
      else schemaRefused = true;
    }
    if ((status.details?.causes ?? []).length === 0) schemaRefused = true;
  }
  for (const warning of answer.warnings) {
    const match = policyWarning.exec(warning);
    if (!match) continue;
    const message = match[2] ?? "";
    const rule = ruleTag.exec(message)?.[1] ?? (match[1] ?? "").replace(`${policyPrefix}.`, "");
    add(rule, /resulted in error/.test(message) ? `<error: ${message}>` : fieldOf(message));
  }
  // Validating admission policies run only for an object the schema and the CRD's rules accepted.
  return { findings, schemaRefused, policiesRan: answer.status < 400 || denial !== null };
}

/** The field a generated policy message starts with. */
function fieldOf(message: string): string {
  return /^([A-Za-z0-9_.\-[\]/]+?): /.exec(message)?.[1] ?? "";
}

/**
 * The type check kube-controller-manager writes into each ValidatingAdmissionPolicy's status, for every
 * policy installed (test/policy-typecheck: the same TypeChecker; the tests run no controller manager).
 */
export function typeCheckWarnings(plane: ControlPlane): Record<string, unknown[] | null> {
  const out = execFileSync(goBinary(policyTypecheckTool, "policy-typecheck"), [plane.kubeconfigPath], {
    encoding: "utf8",
  });
  return JSON.parse(out) as Record<string, unknown[] | null>;
}

const collection = (kind: OfflineKind) =>
  `/apis/${kind.kind.group}/${kind.kind.version}/namespaces/${namespace}/${kind.source.crd.names.plural}`;

/** A case's object in the test's namespace (the rules read no namespace; the chart excludes some). */
export function placed(object: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(object);
  const metadata: Record<string, unknown> = {
    ...((copy.metadata ?? {}) as Record<string, unknown>),
    namespace,
  };
  for (const key of ["uid", "resourceVersion", "creationTimestamp", "managedFields"]) delete metadata[key];
  copy.metadata = metadata;
  return copy;
}

/** The outcome of one case through the real API server, beside the webhook's verdict on the same objects. */
interface Outcome {
  skipped?: string;
  server?: RuleFindings;
  webhook?: RuleFindings;
  /** Whether the validating policies ran (the schema and the CRD's rules accepted the object). */
  policiesRan?: boolean;
}

export async function throughServer(plane: ControlPlane, kind: OfflineKind, c: PolicyCase): Promise<Outcome> {
  const object = placed(c.object);
  const name = (object.metadata as { name?: unknown }).name;
  if (typeof name !== "string" || name === "") return { skipped: "no name" };
  const local = decodedCase(kind, {
    ...c,
    object,
    ...(c.oldObject ? { oldObject: placed(c.oldObject) } : {}),
  });
  if (c.operation === "CREATE") {
    const answer = await api(plane, "POST", `${collection(kind)}?dryRun=All`, object);
    const seen = serverFindings(answer);
    if (seen.schemaRefused) return { skipped: "refused by the schema" };
    // The object as the policies saw it (defaulted by the API server), where it was admitted.
    const judged = answer.status < 300 ? answer.body : local.object;
    return {
      server: seen.findings,
      webhook: await webhookFindings(kind, judged, undefined, "CREATE"),
      policiesRan: seen.policiesRan,
    };
  }
  const old = placed(c.oldObject ?? {});
  (old.metadata as Record<string, unknown>).name = name;
  const stored = await api(plane, "POST", collection(kind), old);
  if (stored.status >= 300) return { skipped: "the old object is refused" };
  try {
    const metadata = stored.body.metadata as { resourceVersion: string };
    (object.metadata as Record<string, unknown>).resourceVersion = metadata.resourceVersion;
    const answer = await api(plane, "PUT", `${collection(kind)}/${name}?dryRun=All`, object);
    const seen = serverFindings(answer);
    if (seen.schemaRefused) return { skipped: "refused by the schema" };
    const judged =
      answer.status < 300 ? answer.body : { ...(local.object as object), metadata: stored.body.metadata };
    return {
      server: seen.findings,
      webhook: await webhookFindings(kind, judged, stored.body, "UPDATE"),
      policiesRan: seen.policiesRan,
    };
  } finally {
    await api(plane, "DELETE", `${collection(kind)}/${name}`);
  }
}

/**
 * Runs cases through the server and compares, rule by rule, with the webhook: the rules the cluster
 * enforces (`enforced`), where its answer shows them (policy rules only when the policies ran).
 */
export async function compareAll(
  plane: ControlPlane,
  cases: Iterable<PolicyCase>,
  enforced: (kind: OfflineKind) => RuleDeclaration[],
): Promise<{ compared: number; skipped: number; report: string[]; fired: Map<string, number> }> {
  const report: string[] = [];
  const fired = new Map<string, number>();
  let compared = 0;
  let skipped = 0;
  for (const c of cases) {
    const kind = kindOf(kinds, c.object);
    if (!kind) continue;
    const outcome = await throughServer(plane, kind, c);
    if (outcome.skipped || !outcome.server || !outcome.webhook) {
      skipped++;
      continue;
    }
    compared++;
    const rules = enforced(kind).filter((rule) => outcome.policiesRan || rule.native.by === "crd");
    for (const [rule] of outcome.server) fired.set(rule, (fired.get(rule) ?? 0) + 1);
    for (const d of disagreements(rules, outcome.webhook, outcome.server))
      report.push(`${c.name} (${c.operation}): ${JSON.stringify(d)}`);
  }
  return { compared, skipped, report, fired };
}
