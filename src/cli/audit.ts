import type { KubeConfig } from "@kubernetes/client-node";
import { Command, Option } from "commander";
import { writeJson } from "../base/exact-json.js";
import type { Finding } from "../base/finding.js";
import { apiErrorMessage, httpStatus } from "../kube/api-errors.js";
import { findClusterAccess } from "../kube/config.js";
import { defaultListBounds, type ListBounds, listPages } from "../kube/list-objects.js";
import { admitOffline, type Problem } from "../offline/admit.js";
import { findingOf } from "../offline/finding-of.js";
import { type OfflineKind, offlineKinds } from "../offline/kinds.js";
import { objectLabel } from "../offline/validate-batch.js";
import { reportApis } from "../reports/policy-report.js";
import { resourceKinds } from "../resources/index.js";
import { AuditReports } from "./audit-reports.js";
import { forEachScope } from "./audit-scopes.js";
import { type Outcome, optionValues, parseOptionValues } from "./command.js";
import { formatFindings, type OutputFormat, outputFormats } from "./findings.js";

/** `audit`'s options: its help and its parsing both come from here. */
function auditOptions(): Command {
  return new Command("audit")
    .summary("what today's rules say of the objects stored in the cluster")
    .description(
      "What today's rules say of the objects stored in the cluster: every rule, whatever its " +
        "--rule-action, as validate would say it of each object created today.",
    )
    .option("--kind <KIND>", `one kind (default: every kind with a schema): ${kindNames()}`)
    .option(
      "-n, --namespace <NS>",
      "the namespace (default: the kubeconfig context's namespace, else default)",
    )
    .option("-A, --all-namespaces", "every namespace")
    .addOption(
      new Option(
        "-o, --output <format>",
        "output format; policyreport: the findings as policy reports (YAML)",
      )
        .choices([...outputFormats, "policyreport"])
        .default("text"),
    )
    .addOption(
      new Option(
        "--report-api <API>",
        "wgpolicyk8s: wgpolicyk8s.io/v1alpha2 PolicyReport and ClusterPolicyReport; openreports: openreports.io/v1alpha1 Report",
      )
        .choices(reportApis)
        .default("wgpolicyk8s"),
    )
    .option(
      "--apply",
      "server-side apply the reports (field manager module-admission) and delete this tool's reports the run no longer has; exit 0 once written",
    )
    .option("--kubeconfig <FILE>", "cluster access (default $KUBECONFIG, ~/.kube/config, then in-cluster)")
    .option("--chunk-size <N>", "objects per list request (kubectl: 500)", "100")
    .option(
      "--request-timeout <T>",
      "each request to the API server, as kubectl's: 30s, 2m, 1h or seconds; 0 waits forever",
      "60s",
    )
    .addHelpText(
      "after",
      "\nFindings are written page by page (text, json); policy reports a namespace at a time; SARIF lists at\n" +
        "most 10000 results.\n" +
        "\nExit status:\n  0  every object admitted (or --apply wrote the reports)\n  1  an object is denied\n" +
        "  2  usage error, the cluster refused, or the API server broke a bound (no answer in time, a repeated\n" +
        "     continue token or one over 16 KiB, one object over 4 MiB decompressed, a page over --chunk-size\n" +
        "     objects, objects out of namespace order for policy reports): one line says which",
    );
}

function kindNames(): string {
  return resourceKinds.map((kind) => kind.kind).join(", ");
}

interface AuditValues {
  kind?: string;
  namespace?: string;
  "all-namespaces"?: boolean;
  output: string;
  kubeconfig?: string;
  "chunk-size": string;
  "request-timeout": string;
  "report-api": string;
  apply?: boolean;
}

export function auditDefinition(outcome: Outcome): Command {
  return auditOptions().action(async (_options: unknown, command: Command) => {
    outcome.status = await auditWith(optionValues(command) as unknown as AuditValues, processIo);
  });
}

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

/** `module-admission audit`: returns the exit status. */
export async function runAudit(args: string[], io: AuditIo = processIo): Promise<number> {
  return auditWith(parseOptionValues(auditOptions(), args) as unknown as AuditValues, io);
}

async function auditWith(values: AuditValues, io: AuditIo): Promise<number> {
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
  const timeoutMs = durationMs(values["request-timeout"]);
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

  const bounds = { ...defaultListBounds, timeoutMs };
  let denied = false;
  const judge = async (kind: OfflineKind, object: unknown) => {
    const verdict = await admitOffline(kind, object);
    denied ||= !verdict.allowed;
    return verdict;
  };
  const listings = kinds.map((kind) => ({
    kind,
    pages: listingOf(
      kind,
      access.kubeConfig,
      kind.source.crd.scope === "Namespaced" ? namespace : undefined,
      limit,
      bounds,
      io,
    ),
  }));
  if (reports) {
    // Reports go out (or are applied) a namespace at a time: one namespace's results are held.
    let scope = reports.scope("");
    await forEachScope(
      listings,
      async (kind, object, within) => {
        if (scope.namespace !== within) scope = reports.scope(within);
        reports.add(scope, kind, object, await judge(kind, object));
      },
      () => reports.write(scope, access.kubeConfig, namespace, io.out),
    );
    await reports.finish(access.kubeConfig, namespace, io.out);
    return reports.apply ? 0 : denied ? 1 : 0;
  }
  // Findings go out page by page.
  const sink = findingSink(output, io);
  try {
    for (const { kind, pages } of listings) {
      for await (const page of pages) {
        const findings: Finding[] = [];
        for (const object of page) {
          const verdict = await judge(kind, object);
          findings.push(
            ...objectFindings(kind, object as Record<string, unknown>, verdict.errors, verdict.warnings),
          );
        }
        sink.add(findings);
      }
    }
  } finally {
    // JSON stays well-formed even when a listing stops (exit 2 says the findings are not all there).
    sink.end();
  }
  return denied ? 1 : 0;
}

/**
 * One kind's pages; a kind the cluster does not serve (no CRD) is said once and skipped, any other
 * failure ends the run naming the resource.
 */
async function* listingOf(
  kind: OfflineKind,
  kubeConfig: KubeConfig,
  namespace: string | undefined,
  limit: number,
  bounds: ListBounds,
  io: AuditIo,
): AsyncGenerator<unknown[]> {
  const { group, version } = kind.kind;
  const plural = kind.source.crd.names.plural;
  try {
    yield* listPages(kubeConfig, { group, version, plural }, namespace, limit, bounds);
  } catch (error) {
    if (httpStatus(error) !== 404) throw new Error(`listing ${plural}.${group}: ${apiErrorMessage(error)}`);
    io.err(`audit: ${kind.kind.kind} is not served by this cluster (no CRD ${plural}.${group}); skipped\n`);
  }
}

/** At most this many SARIF results: a SARIF log is one document, held whole until the end. */
export const maxSarifResults = 10_000;

/**
 * Where findings go as each page is judged: text and JSON are written at once (a cluster's findings
 * are never all held); SARIF keeps the first `maxSarifResults` and counts the rest in a last result.
 */
function findingSink(output: OutputFormat, io: AuditIo): { add(findings: Finding[]): void; end(): void } {
  if (output === "text")
    return { add: (findings) => io.out(formatFindings(findings, "text")), end: () => {} };
  if (output === "json") {
    let first = true;
    io.out('{\n  "findings": [');
    return {
      add: (findings) => {
        for (const finding of findings) {
          io.out(`${first ? "" : ","}\n    ${writeJson(finding, 2).replaceAll("\n", "\n    ")}`);
          first = false;
        }
      },
      end: () => io.out(`${first ? "" : "\n  "}]\n}\n`),
    };
  }
  const kept: Finding[] = [];
  let omitted = 0;
  return {
    add: (findings) => {
      for (const finding of findings) {
        if (kept.length < maxSarifResults) kept.push(finding);
        else omitted++;
      }
    },
    end: () => {
      const rest: Finding[] =
        omitted === 0
          ? []
          : [
              {
                severity: "warning",
                file: "audit",
                rule: "audit/results-omitted",
                message: `${omitted} more findings not listed: SARIF output holds at most ${maxSarifResults} (use -o json for all)`,
              },
            ];
      io.out(formatFindings([...kept, ...rest], "sarif"));
    },
  };
}

/** kubectl's --request-timeout: `30s`, `2m`, `1h`, a bare number of seconds; 0 for none. */
function durationMs(text: string | undefined): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text ?? "");
  if (!match) {
    throw new Error(
      `--request-timeout must be a duration such as 30s, 2m or 1h (0: none), not ${JSON.stringify(text)}`,
    );
  }
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(match[2] ?? "s") as "ms" | "s" | "m" | "h"];
  return Number(match[1]) * unit;
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
  const place = { file, object: label };
  return [
    ...errors.map((problem) => findingOf(problem, "error", place)),
    ...warnings.map((problem) => findingOf(problem, "warning", place)),
  ];
}
