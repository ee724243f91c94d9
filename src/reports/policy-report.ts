import { writeJson } from "../base/exact-json.js";
import type { Problem } from "../offline/admit.js";

/**
 * Audit results as policy reports, the Kubernetes-native place where policy engines put them and
 * where Policy Reporter and Kyverno's tooling read them: `wgpolicyk8s.io/v1alpha2` PolicyReport (one
 * per namespace) and ClusterPolicyReport (cluster-scoped objects), what Kyverno writes by default; or
 * their successor `openreports.io/v1alpha1` Report and ClusterReport. One result per object, rule and
 * outcome: several fields a rule finds on one object are one result, their messages joined. A rule
 * that applied but was not judged (the object failed its schema first, the review ran out of work, a
 * lookup audit cannot make) is a `skip` result with the reason, as Kyverno reports one; rules that
 * passed are not listed (a report lists what to fix, and what was not looked at).
 */
export type ReportApi = "wgpolicyk8s" | "openreports";
export const reportApis: readonly ReportApi[] = ["wgpolicyk8s", "openreports"];

export const reportPolicy = "module-admission";
/** Every report this tool writes carries this name and label: how `--apply` finds its stale ones. */
export const reportName = "module-admission";
export const managedByLabel = { "app.kubernetes.io/managed-by": "module-admission" } as const;

export interface ReportType {
  group: string;
  version: string;
  kind: string;
  plural: string;
}

export function reportType(api: ReportApi, namespaced: boolean): ReportType {
  if (api === "openreports") {
    return namespaced
      ? { group: "openreports.io", version: "v1alpha1", kind: "Report", plural: "reports" }
      : { group: "openreports.io", version: "v1alpha1", kind: "ClusterReport", plural: "clusterreports" };
  }
  return namespaced
    ? { group: "wgpolicyk8s.io", version: "v1alpha2", kind: "PolicyReport", plural: "policyreports" }
    : {
        group: "wgpolicyk8s.io",
        version: "v1alpha2",
        kind: "ClusterPolicyReport",
        plural: "clusterpolicyreports",
      };
}

/** One audited object and what today's rules say of it. */
export interface AuditedObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; uid?: string };
  errors: Problem[];
  warnings: Problem[];
  /** Rules that applied to it and were not judged, each with why. */
  skipped?: { rule: string; message: string }[];
}

export interface ReportResult {
  source: string;
  policy: string;
  rule: string;
  category?: string;
  result: "fail" | "warn" | "skip";
  severity?: "high" | "medium";
  scored: boolean;
  message: string;
  properties?: Record<string, string>;
  resources?: { apiVersion: string; kind: string; name: string; namespace?: string; uid?: string }[];
  timestamp: { seconds: number; nanos: number };
}

/**
 * A report is one object, and the API server refuses objects over about 1.5 MiB (etcd's request
 * limit): results past this many bytes of JSON are not listed, and one `skip` result says how many
 * and where to see them all, so a large namespace neither fails the write nor drops results silently.
 */
export const maxReportBytes = 1_000_000;

export interface Report {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels: Record<string, string> };
  source?: string;
  summary: { pass: number; fail: number; warn: number; error: number; skip: number };
  results: ReportResult[];
}

/** The rule id a problem reports under: the declared rule id, else where the API server found it. */
export function problemRule(problem: Problem): string {
  return problem.rule ?? `${problem.stage}/${problem.type}`;
}

/**
 * The reports for these objects: one per namespace that has a finding, and one cluster report when a
 * cluster-scoped object has one. Objects without findings add nothing (a report lists what to fix).
 */
export function buildReports(objects: Iterable<AuditedObject>, api: ReportApi, now: Date): Report[] {
  const byScope = new Map<string, ScopeResults>();
  for (const object of objects) {
    const scope = object.metadata.namespace ?? "";
    let results = byScope.get(scope);
    if (!results) {
      results = new ScopeResults(scope, now);
      byScope.set(scope, results);
    }
    results.add(object);
  }
  return [...byScope.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .flatMap(([, results]) => results.report(api) ?? []);
}

/**
 * One scope's results (a namespace's, or `""` for cluster-scoped objects), gathered as its objects are
 * judged: listed while the report stays within `maxReportBytes`, only counted after that, so that a
 * scope's report holds bounded memory however many objects it has. The results past the bound become
 * one `skip` result that says how many and where to see them all.
 */
export class ScopeResults {
  private readonly results: ReportResult[] = [];
  private bytes = 0;
  /** Skip results, listed in the room the findings leave: what to fix comes first. */
  private readonly skips: ReportResult[] = [];
  private skipBytes = 0;
  private skipsNotHeld = 0;
  private notListed = 0;
  private readonly timestamp: ReportResult["timestamp"];

  constructor(
    readonly namespace: string,
    now: Date,
  ) {
    this.timestamp = { seconds: Math.floor(now.getTime() / 1000), nanos: 0 };
  }

  add(object: AuditedObject): void {
    for (const result of skipResults(object, this.timestamp)) {
      this.skipBytes += writeJson(result).length;
      if (this.skipBytes <= maxReportBytes) this.skips.push(result);
      else this.skipsNotHeld++;
    }
    for (const result of objectResults(object, this.timestamp)) {
      if (this.notListed === 0) {
        this.bytes += writeJson(result).length;
        if (this.bytes <= maxReportBytes) {
          this.results.push(result);
          continue;
        }
      }
      this.notListed++;
    }
  }

  /** The scope's report; undefined when nothing was found. */
  report(api: ReportApi): Report | undefined {
    const skips = this.skipsWithin(maxReportBytes - this.bytes);
    const listed = skips.length === 0 ? this.results : [...this.results, ...skips];
    const notListed = this.notListed + this.skipsNotHeld + this.skips.length - skips.length;
    if (listed.length === 0 && notListed === 0) return undefined;
    const { namespace, timestamp } = this;
    const type = reportType(api, namespace !== "");
    const command = namespace ? `module-admission audit -n ${namespace}` : "module-admission audit";
    const results: ReportResult[] =
      notListed === 0
        ? listed
        : [
            ...listed,
            {
              source: reportPolicy,
              policy: reportPolicy,
              rule: "report-size",
              result: "skip",
              scored: false,
              message: `${notListed} more results are not listed: a report is one object and its size is limited; \`${command}\` lists them all`,
              timestamp,
            },
          ];
    return {
      apiVersion: `${type.group}/${type.version}`,
      kind: type.kind,
      metadata: {
        name: reportName,
        ...(namespace ? { namespace } : {}),
        labels: { ...managedByLabel },
      },
      ...(api === "openreports" ? { source: reportPolicy } : {}),
      summary: {
        pass: 0,
        fail: results.filter((r) => r.result === "fail").length,
        warn: results.filter((r) => r.result === "warn").length,
        error: 0,
        skip: results.filter((r) => r.result === "skip").length,
      },
      results,
    };
  }

  /** The skip results that fit in `room` bytes, in the order gathered. */
  private skipsWithin(room: number): ReportResult[] {
    let used = 0;
    const fitting: ReportResult[] = [];
    for (const result of this.skips) {
      used += writeJson(result).length;
      if (used > room) break;
      fitting.push(result);
    }
    return fitting;
  }
}

/** One `skip` result per rule that applied to the object and was not judged, with why. */
function skipResults(object: AuditedObject, timestamp: ReportResult["timestamp"]): ReportResult[] {
  return (object.skipped ?? []).map(({ rule, message }) => ({
    source: reportPolicy,
    policy: reportPolicy,
    rule,
    category: object.kind,
    result: "skip",
    scored: false,
    message,
    resources: [resourceOf(object)],
    timestamp,
  }));
}

function resourceOf(object: AuditedObject): NonNullable<ReportResult["resources"]>[number] {
  const { name, namespace, uid } = object.metadata;
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    name,
    ...(namespace ? { namespace } : {}),
    ...(uid ? { uid } : {}),
  };
}

function objectResults(object: AuditedObject, timestamp: ReportResult["timestamp"]): ReportResult[] {
  const groups = new Map<string, { result: ReportResult["result"]; problems: Problem[] }>();
  const add = (result: ReportResult["result"]) => (problem: Problem) => {
    const key = `${result} ${problemRule(problem)}`;
    const group = groups.get(key) ?? { result, problems: [] };
    group.problems.push(problem);
    groups.set(key, group);
  };
  object.errors.forEach(add("fail"));
  object.warnings.forEach(add("warn"));
  const resource = resourceOf(object);
  return [...groups.values()].map(({ result, problems }) => {
    const [first] = problems as [Problem];
    const fields = problems.filter((p) => !p.field.isEmpty).map((p) => p.field.toString());
    return {
      source: reportPolicy,
      policy: reportPolicy,
      rule: problemRule(first),
      category: object.kind,
      result,
      // A denial is what the API server would refuse today; a warning what may go wrong.
      severity: result === "fail" ? "high" : "medium",
      scored: true,
      message: problems.map((p) => p.message).join("; "),
      properties: { stage: first.stage, ...(fields.length > 0 ? { fields: fields.join(", ") } : {}) },
      resources: [resource],
      timestamp,
    };
  });
}
