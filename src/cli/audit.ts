import { parseArgs } from "node:util";
import { apiErrorMessage, httpStatus } from "../kube/api-errors.js";
import { findClusterAccess } from "../kube/config.js";
import { listPages } from "../kube/list-objects.js";
import { admitOffline, type Problem } from "../offline/admit.js";
import { type OfflineKind, offlineKinds } from "../offline/kinds.js";
import { AuditReports, auditReportOptions, auditReportsUsage } from "./audit-reports.js";
import { type Finding, formatFindings, type OutputFormat, outputFormats } from "./findings.js";
import { objectLabel } from "./validate-batch.js";

export const auditUsage = `audit   What today's rules say of the objects stored in the cluster: every rule, whatever
        its --rule-action, as validate would say it of each object created today
          --kind KIND              Module or ModuleTemplate (default: every kind with a schema)
          -n, --namespace NS       (default: the kubeconfig context's namespace, else default)
          -A, --all-namespaces     every namespace
          -o, --output FORMAT      text (default), json, sarif or policyreport
${auditReportsUsage}
          --kubeconfig FILE        cluster access (default $KUBECONFIG, ~/.kube/config, then in-cluster)
          --chunk-size N           objects per list request (default 500, as kubectl)
          Exit status: 0 every object admitted (or --apply wrote the reports), 1 any denied,
          2 usage error or the cluster refused`;

export interface AuditIo {
  out: (text: string) => void;
  err: (text: string) => void;
  env: NodeJS.ProcessEnv;
}

const processIo: AuditIo = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  env: process.env,
};

export async function auditCommand(args: string[]): Promise<void> {
  process.exitCode = await runAudit(args, processIo);
}

/** `module-admission audit`: returns the exit status. */
export async function runAudit(args: string[], io: AuditIo = processIo): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      kind: { type: "string" },
      namespace: { type: "string", short: "n" },
      "all-namespaces": { type: "boolean", short: "A", default: false },
      output: { type: "string", short: "o", default: "text" },
      kubeconfig: { type: "string" },
      "chunk-size": { type: "string", default: "500" },
      ...auditReportOptions,
    },
  });
  const output = values.output as OutputFormat;
  const reports = AuditReports.fromOptions(values);
  if (!reports && !outputFormats.includes(output)) {
    throw new Error(
      `--output must be one of ${outputFormats.join(", ")}, policyreport, not ${JSON.stringify(values.output)}`,
    );
  }
  const limit = Number(values["chunk-size"]);
  if (!Number.isInteger(limit) || limit < 1) {
    throw new Error(`--chunk-size must be a positive integer, got ${JSON.stringify(values["chunk-size"])}`);
  }
  if (values.namespace !== undefined && values["all-namespaces"]) {
    throw new Error("give -n NAMESPACE or -A, not both");
  }
  const kinds = selectKinds(offlineKinds(), values.kind);
  const access = findClusterAccess(values.kubeconfig, io.env);
  if (!access) throw new Error("audit needs cluster access: no kubeconfig and not in a cluster");
  const context = access.kubeConfig.getContextObject(access.kubeConfig.getCurrentContext());
  const namespace = values["all-namespaces"]
    ? undefined
    : (values.namespace ?? context?.namespace ?? "default");

  const findings: Finding[] = [];
  let denied = false;
  for (const kind of kinds) {
    const { group, version } = kind.kind;
    const plural = kind.source.crd.names.plural;
    const scoped = kind.source.crd.scope === "Namespaced" ? namespace : undefined;
    const pages = listPages(access.kubeConfig, { group, version, plural }, scoped, limit);
    try {
      for await (const page of pages) {
        for (const object of page) {
          const verdict = await admitOffline(kind, object);
          denied ||= !verdict.allowed;
          reports?.add(kind, object, verdict);
          findings.push(
            ...objectFindings(kind, object as Record<string, unknown>, verdict.errors, verdict.warnings),
          );
        }
      }
    } catch (error) {
      if (httpStatus(error) !== 404) throw new Error(`listing ${plural}.${group}: ${apiErrorMessage(error)}`);
      io.err(`audit: ${kind.kind.kind} is not served by this cluster (no CRD ${plural}.${group}); skipped\n`);
    }
  }
  if (reports) {
    io.out(await reports.finish(access.kubeConfig, namespace));
    if (reports.apply) return 0;
  } else io.out(formatFindings(findings, output));
  return denied ? 1 : 0;
}

function selectKinds(kinds: OfflineKind[], wanted: string | undefined): OfflineKind[] {
  if (wanted === undefined) return kinds;
  const name = wanted.toLowerCase();
  const found = kinds.filter((k) => k.kind.kind.toLowerCase() === name || k.source.crd.names.plural === name);
  if (found.length === 0) {
    throw new Error(
      `--kind ${JSON.stringify(wanted)}: audit knows ${kinds.map((k) => k.kind.kind).join(", ")}`,
    );
  }
  return found;
}

/** Findings located at the object's API path (a cluster object has no file and line). */
function objectFindings(
  kind: OfflineKind,
  object: Record<string, unknown>,
  errors: Problem[],
  warnings: Problem[],
) {
  const metadata = (object.metadata ?? {}) as { name?: unknown; namespace?: unknown };
  const { group, version } = kind.kind;
  const namespace = typeof metadata.namespace === "string" ? `/namespaces/${metadata.namespace}` : "";
  const file = `/apis/${group}/${version}${namespace}/${kind.source.crd.names.plural}/${String(metadata.name)}`;
  const label = objectLabel(object);
  const finding =
    (severity: Finding["severity"]) =>
    (problem: Problem): Finding => ({
      severity,
      file,
      object: label,
      rule: `${problem.stage}/${problem.rule ?? problem.type}`,
      message: problem.message,
    });
  return [...errors.map(finding("error")), ...warnings.map(finding("warning"))];
}
