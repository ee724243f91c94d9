import type { KubeConfig } from "@kubernetes/client-node";
import { dump as dumpYaml } from "js-yaml";
import type { RuleStatus } from "../admission/rule-status.js";
import type { OfflineVerdict } from "../offline/admit.js";
import type { OfflineKind } from "../offline/kinds.js";
import { ReportWriter } from "../reports/apply-reports.js";
import { type ReportApi, reportApis, ScopeResults } from "../reports/policy-report.js";

/**
 * What `audit` finds, as policy reports written a scope (namespace) at a time as the listing passes
 * it: printed as YAML documents, or applied, so that no more than one scope's results are held.
 */
export class AuditReports {
  private printed = 0;
  private writer: ReportWriter | undefined;
  private readonly now = new Date();

  private constructor(
    readonly api: ReportApi,
    readonly apply: boolean,
  ) {}

  /**
   * Undefined when the command asked for no report. `--apply` writes every kind's results into one
   * report per namespace, so it audits every kind: with --kind it would drop the others' results.
   */
  static fromOptions(values: {
    output?: string;
    kind?: string;
    "report-api"?: string;
    apply?: boolean;
  }): AuditReports | undefined {
    const api = values["report-api"] as ReportApi;
    if (!reportApis.includes(api)) {
      throw new Error(`--report-api must be one of ${reportApis.join(", ")}, not ${JSON.stringify(api)}`);
    }
    if (values.apply && values.kind !== undefined) {
      throw new Error("--apply writes each namespace's whole report: audit every kind (no --kind)");
    }
    if (values.apply && values.output !== "text" && values.output !== "policyreport") {
      throw new Error("--apply writes the reports to the cluster: give no --output");
    }
    if (!values.apply && values.output !== "policyreport") return undefined;
    return new AuditReports(api, values.apply ?? false);
  }

  /** A scope's results, to gather its objects' verdicts in (`""`: cluster-scoped objects). */
  scope(namespace: string): ScopeResults {
    return new ScopeResults(namespace, this.now);
  }

  /**
   * One object's verdict; only objects with findings, or rules that applied and were not judged, are
   * kept (a report lists what to fix, and what was not looked at).
   */
  add(scope: ScopeResults, kind: OfflineKind, object: unknown, verdict: OfflineVerdict): void {
    const skipped = notJudged(verdict.rules ?? []);
    if (verdict.errors.length === 0 && verdict.warnings.length === 0 && skipped.length === 0) return;
    const { metadata } = object as { metadata?: { name?: string; namespace?: string; uid?: string } };
    const { group, version } = kind.kind;
    scope.add({
      apiVersion: `${group}/${version}`,
      kind: kind.kind.kind,
      metadata: {
        name: String(metadata?.name),
        ...(metadata?.namespace ? { namespace: metadata.namespace } : {}),
        ...(metadata?.uid ? { uid: metadata.uid } : {}),
      },
      errors: verdict.errors,
      warnings: verdict.warnings,
      ...(skipped.length > 0 ? { skipped } : {}),
    });
  }

  /** A finished scope's report, if it found anything: printed as a YAML document, or applied (its line). */
  async write(
    scope: ScopeResults,
    kubeConfig: KubeConfig,
    namespace: string | undefined,
    out: (text: string) => void,
  ): Promise<void> {
    const report = scope.report(this.api);
    if (!report) return;
    if (this.apply) {
      this.writer ??= new ReportWriter(kubeConfig, this.api, namespace);
      out(`${await this.writer.apply(report)}\n`);
      return;
    }
    out(`${this.printed++ > 0 ? "---\n" : ""}${dumpYaml(report, { lineWidth: -1, noRefs: true })}`);
  }

  /** After the last scope: with --apply, deletes this tool's reports the run no longer has. */
  async finish(
    kubeConfig: KubeConfig,
    namespace: string | undefined,
    out: (text: string) => void,
  ): Promise<void> {
    if (!this.apply) return;
    this.writer ??= new ReportWriter(kubeConfig, this.api, namespace);
    for (const line of await this.writer.deleteStale()) out(`${line}\n`);
  }
}

/**
 * The rules that applied to a stored object and were not judged, with why: skipped by the review (its
 * schema, its work budget, an earlier stage of the API server). Not among them: update-only rules (an
 * audit judges each object as created today, so they never apply), and the cluster lookups serve makes
 * from its informer caches (audit makes none, for any object: docs/operations.md says so once, as a
 * property of the run, rather than each report on every object).
 */
function notJudged(rules: readonly RuleStatus[]): { rule: string; message: string }[] {
  return rules.flatMap((status) =>
    status.status === "skip" && status.reason !== "update-only" && status.reason !== "lookup"
      ? [{ rule: status.rule, message: status.message ?? "not judged" }]
      : [],
  );
}
