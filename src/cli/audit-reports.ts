import type { KubeConfig } from "@kubernetes/client-node";
import { dump as dumpYaml } from "js-yaml";
import type { OfflineVerdict } from "../offline/admit.js";
import type { OfflineKind } from "../offline/kinds.js";
import { applyReports } from "../reports/apply-reports.js";
import { type AuditedObject, buildReports, type ReportApi, reportApis } from "../reports/policy-report.js";

export const auditReportsUsage = `          -o policyreport          the findings as policy reports (YAML), see --report-api
          --report-api API         wgpolicyk8s (default: wgpolicyk8s.io/v1alpha2 PolicyReport and
                                   ClusterPolicyReport) or openreports (openreports.io/v1alpha1 Report)
          --apply                  server-side apply the reports (field manager module-admission) and
                                   delete this tool's reports the run no longer has; exit 0 once written`;

export const auditReportOptions = {
  "report-api": { type: "string", default: "wgpolicyk8s" },
  apply: { type: "boolean", default: false },
} as const;

/** Collects what `audit` finds for policy reports, then prints or applies them. */
export class AuditReports {
  private readonly audited: AuditedObject[] = [];

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

  /** One object's verdict; only objects with findings are kept (a report lists what to fix). */
  add(kind: OfflineKind, object: unknown, verdict: OfflineVerdict): void {
    if (verdict.errors.length === 0 && verdict.warnings.length === 0) return;
    const { metadata } = object as { metadata?: { name?: string; namespace?: string; uid?: string } };
    const { group, version } = kind.kind;
    this.audited.push({
      apiVersion: `${group}/${version}`,
      kind: kind.kind.kind,
      metadata: {
        name: String(metadata?.name),
        ...(metadata?.namespace ? { namespace: metadata.namespace } : {}),
        ...(metadata?.uid ? { uid: metadata.uid } : {}),
      },
      errors: verdict.errors,
      warnings: verdict.warnings,
    });
  }

  /** Prints the reports as YAML, or applies them; returns the text to print. */
  async finish(kubeConfig: KubeConfig, namespace: string | undefined, now = new Date()): Promise<string> {
    const reports = buildReports(this.audited, this.api, now);
    if (!this.apply) {
      return reports.map((report) => dumpYaml(report, { lineWidth: -1, noRefs: true })).join("---\n");
    }
    const lines = await applyReports(kubeConfig, reports, this.api, namespace);
    return lines.map((line) => `${line}\n`).join("");
  }
}
