import { CustomObjectsApi, type KubeConfig, setHeaderOptions } from "@kubernetes/client-node";
import { apiErrorMessage, httpStatus, retryTooManyRequests } from "../kube/api-errors.js";
import { managedByLabel, type Report, type ReportApi, reportName, reportType } from "./policy-report.js";

export const reportFieldManager = "module-admission";

interface Listed {
  items?: { metadata?: { name?: string; namespace?: string; labels?: Record<string, string> } }[];
}

/**
 * Server-side applies the reports (field manager module-admission, forced: these reports are ours
 * alone) and deletes this tool's reports in the audited scope that this run no longer has, so a fixed
 * object's result disappears: within a report, apply replaces the results list (atomic in both CRDs);
 * a namespace with nothing left to report loses its report. `namespace` undefined: every namespace,
 * and the cluster report too. Returns one line per change, as kubectl prints them.
 */
export async function applyReports(
  kubeConfig: KubeConfig,
  reports: Report[],
  api: ReportApi,
  namespace: string | undefined,
): Promise<string[]> {
  const writer = new ReportWriter(kubeConfig, api, namespace);
  const lines: string[] = [];
  for (const report of reports) lines.push(await writer.apply(report));
  return [...lines, ...(await writer.deleteStale())];
}

/**
 * `applyReports` a report at a time, as `audit` finishes each scope: it remembers which reports it
 * wrote (a name per scope), so that `deleteStale` at the end removes the others.
 */
export class ReportWriter {
  private readonly client: CustomObjectsApi;
  private readonly applied = new Set<string>();

  constructor(
    kubeConfig: KubeConfig,
    private readonly api: ReportApi,
    private readonly namespace: string | undefined,
  ) {
    this.client = kubeConfig.makeApiClient(CustomObjectsApi);
  }

  /** Applies one report; returns its line. */
  async apply(report: Report): Promise<string> {
    const where = report.metadata.namespace;
    const type = reportType(this.api, where !== undefined);
    const request = {
      group: type.group,
      version: type.version,
      plural: type.plural,
      name: report.metadata.name,
      body: report,
      fieldManager: reportFieldManager,
      force: true,
    };
    const apply = setHeaderOptions("Content-Type", "application/apply-patch+yaml");
    try {
      await retryTooManyRequests(() =>
        where === undefined
          ? this.client.patchClusterCustomObject(request, apply)
          : this.client.patchNamespacedCustomObject({ ...request, namespace: where }, apply),
      );
    } catch (error) {
      throw this.failed(where !== undefined, error);
    }
    this.applied.add(`${where ?? ""}/${report.metadata.name}`);
    return `${this.describe(where !== undefined, where)} serverside-applied`;
  }

  /** Deletes this tool's reports in the audited scope that were not applied; returns a line for each. */
  async deleteStale(): Promise<string[]> {
    const { client, namespace } = this;
    const lines: string[] = [];
    const labelSelector = Object.entries(managedByLabel)
      .map(([key, value]) => `${key}=${value}`)
      .join(",");
    const scopes = namespace === undefined ? [true, false] : [true];
    for (const namespaced of scopes) {
      const type = reportType(this.api, namespaced);
      const resource = { group: type.group, version: type.version, plural: type.plural, labelSelector };
      let listed: Listed;
      try {
        listed = (await retryTooManyRequests(() =>
          !namespaced || namespace === undefined
            ? client.listClusterCustomObject(resource)
            : client.listNamespacedCustomObject({ ...resource, namespace }),
        )) as Listed;
      } catch (error) {
        throw this.failed(namespaced, error);
      }
      for (const item of listed.items ?? []) {
        const { name, namespace: where, labels } = item.metadata ?? {};
        const ours =
          name === reportName && Object.entries(managedByLabel).every(([k, v]) => labels?.[k] === v);
        if (!ours || this.applied.has(`${where ?? ""}/${name}`)) continue;
        try {
          await retryTooManyRequests(() =>
            where === undefined
              ? client.deleteClusterCustomObject({ ...type, name })
              : client.deleteNamespacedCustomObject({ ...type, namespace: where, name }),
          );
        } catch (error) {
          if (httpStatus(error) !== 404) throw this.failed(namespaced, error);
        }
        lines.push(`${this.describe(namespaced, where)} deleted (nothing left to report)`);
      }
    }
    return lines;
  }

  private describe(namespaced: boolean, where: string | undefined): string {
    const type = reportType(this.api, namespaced);
    return `${type.plural.replace(/s$/, "")}.${type.group}/${reportName}${where ? ` (namespace ${where})` : ""}`;
  }

  private failed(namespaced: boolean, error: unknown): Error {
    const type = reportType(this.api, namespaced);
    const message = apiErrorMessage(error);
    // kube-apiserver answers a path it does not serve with a plain-text "404 page not found", no Status
    // (which apiErrorMessage would end with "(HTTP 404)"); some servers with a Status saying so.
    const notServed =
      /the server could not find the requested resource/.test(message) || !message.endsWith("(HTTP 404)");
    if (httpStatus(error) === 404 && notServed) {
      return new Error(
        `the cluster does not serve ${type.plural}.${type.group}/${type.version}: install its CRD (Kyverno and Policy Reporter install it)`,
      );
    }
    return new Error(`writing ${type.plural}.${type.group}: ${message}`);
  }
}
