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
  const client = kubeConfig.makeApiClient(CustomObjectsApi);
  const lines: string[] = [];
  const describe = (namespaced: boolean, where: string | undefined) => {
    const type = reportType(api, namespaced);
    return `${type.plural.replace(/s$/, "")}.${type.group}/${reportName}${where ? ` (namespace ${where})` : ""}`;
  };
  const failed = (namespaced: boolean, error: unknown): Error => {
    const type = reportType(api, namespaced);
    if (
      httpStatus(error) === 404 &&
      /the server could not find the requested resource/.test(apiErrorMessage(error))
    ) {
      return new Error(
        `the cluster does not serve ${type.plural}.${type.group}/${type.version}: install its CRD (Kyverno and Policy Reporter install it)`,
      );
    }
    return new Error(`writing ${type.plural}.${type.group}: ${apiErrorMessage(error)}`);
  };

  const applied = new Set<string>();
  for (const report of reports) {
    const where = report.metadata.namespace;
    const type = reportType(api, where !== undefined);
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
          ? client.patchClusterCustomObject(request, apply)
          : client.patchNamespacedCustomObject({ ...request, namespace: where }, apply),
      );
    } catch (error) {
      throw failed(where !== undefined, error);
    }
    applied.add(`${where ?? ""}/${report.metadata.name}`);
    lines.push(`${describe(where !== undefined, where)} serverside-applied`);
  }

  const labelSelector = Object.entries(managedByLabel)
    .map(([key, value]) => `${key}=${value}`)
    .join(",");
  const scopes = namespace === undefined ? [true, false] : [true];
  for (const namespaced of scopes) {
    const type = reportType(api, namespaced);
    const resource = { group: type.group, version: type.version, plural: type.plural, labelSelector };
    let listed: Listed;
    try {
      listed = (await retryTooManyRequests(() =>
        !namespaced || namespace === undefined
          ? client.listClusterCustomObject(resource)
          : client.listNamespacedCustomObject({ ...resource, namespace }),
      )) as Listed;
    } catch (error) {
      throw failed(namespaced, error);
    }
    for (const item of listed.items ?? []) {
      const { name, namespace: where, labels } = item.metadata ?? {};
      const ours = name === reportName && Object.entries(managedByLabel).every(([k, v]) => labels?.[k] === v);
      if (!ours || applied.has(`${where ?? ""}/${name}`)) continue;
      try {
        await retryTooManyRequests(() =>
          where === undefined
            ? client.deleteClusterCustomObject({ ...type, name })
            : client.deleteNamespacedCustomObject({ ...type, namespace: where, name }),
        );
      } catch (error) {
        if (httpStatus(error) !== 404) throw failed(namespaced, error);
      }
      lines.push(`${describe(namespaced, where)} deleted (nothing left to report)`);
    }
  }
  return lines;
}
