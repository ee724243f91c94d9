import { isAbsolute, relative, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { writeJson } from "../base/exact-json.js";
import type { Finding } from "../base/finding.js";
import type { Summary } from "../offline/summary.js";
import { ruleHelp } from "./rule-help.js";
import { toolVersion } from "./version.js";

export type OutputFormat = "text" | "json" | "sarif";

export const outputFormats: readonly OutputFormat[] = ["text", "json", "sarif"];

/** The formats of the commands that report per object or module (validate, lint-modules): JUnit too. */
export type ReportFormat = OutputFormat | "junit";

export const reportFormats: readonly ReportFormat[] = [...outputFormats, "junit"];

export interface Report {
  findings: Finding[];
  /** What the run read and checked (validate's Summary, lint-modules' own): JSON and SARIF carry it. */
  summary?: object;
  /** The tool could not do its whole job (an input unreadable): SARIF's executionSuccessful is false. */
  failed?: boolean;
  /** SARIF URIs are relative to this folder (originalUriBaseIds); without it, the files as given. */
  baseDir?: string;
  /** Rules that applied and were not judged, by why (validate's objects' rule statuses): SARIF notes them. */
  notJudged?: NotJudged[];
}

/** Rules not judged for one reason, over a run: how many rules, on how many objects, and why. */
export interface NotJudged {
  reason: string;
  message: string;
  rules: number;
  objects: number;
}

/** Findings as text (one line each, `file:line: object: message`), JSON, or SARIF 2.1.0. */
export function formatFindings(
  input: Finding[] | Report,
  format: OutputFormat,
  toolName = "module-admission",
): string {
  const report = Array.isArray(input) ? { findings: input } : input;
  const { findings, summary } = report;
  if (format === "json") {
    const failed = report.failed === undefined ? {} : { executionSuccessful: !report.failed };
    return `${writeJson({ findings, ...(summary ? { summary } : {}), ...failed }, 2)}\n`;
  }
  if (format === "sarif") return `${writeJson(toSarif(report, toolName), 2)}\n`;
  return findings.map(findingLine).join("");
}

function findingLine(finding: Finding): string {
  const where = finding.line ? `${finding.file}:${finding.line}` : finding.file;
  const prefix = finding.severity === "warning" ? "warning: " : "";
  return `${where}: ${prefix}${finding.object ? `${finding.object}: ` : ""}${finding.message}\n`;
}

/** The summary as one line: `3 files, 7 objects: 4 checked (1 denied, 2 warned), 3 skipped (...)`. */
export function summaryLine(summary: Summary): string {
  const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
  const skipped = Object.entries(summary.skipped)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([kind, n]) => `${n} ${kind}`);
  const skippedTotal = Object.values(summary.skipped).reduce((sum, n) => sum + n, 0);
  const parts = [
    `${count(summary.files, "file")}, ${count(summary.objects, "object")} read`,
    `${summary.checked} checked (${summary.denied} denied, ${summary.warned} warned)`,
    `${skippedTotal} skipped${skipped.length > 0 ? ` (no schema: ${skipped.join(", ")})` : ""}`,
    ...(summary.unreadable > 0 ? [`${count(summary.unreadable, "input")} unreadable`] : []),
    ...(summary.client ? [`judged ${summary.client}`] : []),
    ...(summary.withoutNamespace
      ? [
          `${count(summary.withoutNamespace.objects, "object")} without a namespace judged in ${summary.withoutNamespace.namespace} (--namespace)`,
        ]
      : []),
  ];
  const notes = (summary.notChecked ?? []).map(
    (note) => `not checked: ${note.check} (${count(note.objects, "object")}): ${note.reason}\n`,
  );
  const notRead = (summary.notRead ?? []).map(
    (left) => `not read: ${left.path}${left.file ? "" : "/"} (${left.why})\n`,
  );
  return `${parts.join("; ")}\n${notes.join("")}${notRead.join("")}`;
}

const sourceRoot = "SRCROOT";

function toSarif(report: Report, toolName: string) {
  const { findings } = report;
  const rules = [...new Set(findings.map((finding) => finding.rule))].sort();
  const base = report.baseDir === undefined ? undefined : resolve(report.baseDir);
  return {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: toolName,
            version: toolVersion,
            informationUri: "https://github.com/forkspacer",
            rules: rules.map((id) => {
              const help = ruleHelp(id);
              return {
                id,
                shortDescription: { text: help.short },
                fullDescription: { text: help.full },
                help: { text: help.help },
                ...(help.uri && { helpUri: help.uri }),
                // The level its findings have here: a rule set to warn (--rule-action) reports warnings.
                defaultConfiguration: {
                  level: findings.some((f) => f.rule === id && f.severity === "error") ? "error" : "warning",
                },
              };
            }),
          },
        },
        ...(base === undefined
          ? {}
          : {
              originalUriBaseIds: {
                [sourceRoot]: { uri: `${pathToFileURL(base).href.replace(/\/?$/, "/")}` },
              },
            }),
        invocations: [
          {
            executionSuccessful: report.failed !== true,
            ...notifications(report.summary, report.notJudged ?? []),
          },
        ],
        results: findings.map((finding) => ({
          ruleId: finding.rule,
          ruleIndex: rules.indexOf(finding.rule),
          level: finding.severity === "error" ? "error" : "warning",
          message: { text: finding.object ? `${finding.object}: ${finding.message}` : finding.message },
          locations: [
            {
              physicalLocation: {
                artifactLocation: artifactLocation(finding.file, base),
                ...(finding.line ? { region: { startLine: finding.line } } : {}),
              },
            },
          ],
        })),
        ...(report.summary ? { properties: { summary: report.summary } } : {}),
      },
    ],
  };
}

/**
 * The checks a run could not make, and the rules it did not judge by why, as SARIF's notes on the run
 * (shown once, not per result).
 */
function notifications(summary: object | undefined, notJudged: readonly NotJudged[]) {
  const notChecked = (summary as Summary | undefined)?.notChecked ?? [];
  if (notChecked.length === 0 && notJudged.length === 0) return {};
  return {
    toolExecutionNotifications: [
      ...notChecked.map((note) => ({
        level: "note",
        descriptor: { id: note.check },
        message: { text: `not checked (${note.objects} objects): ${note.reason}` },
      })),
      ...notJudged.map((note) => ({
        level: "note",
        descriptor: { id: `skip/${note.reason}` },
        message: { text: `${note.rules} rules not judged on ${note.objects} objects: ${note.message}` },
      })),
    ],
  };
}

/**
 * An RFC 3986 URI reference for a file: relative to the base (uriBaseId) when inside it, every path
 * segment percent-encoded (`#`, `?`, `%`, spaces, `<stdin>`), so GitHub finds the file and shows its name.
 */
function artifactLocation(file: string, base: string | undefined): { uri: string; uriBaseId?: string } {
  const segments = (path: string) => path.split(/[\\/]/).map(encodeURIComponent).join("/");
  if (base === undefined) return { uri: segments(file) };
  const absolute = resolve(base, file);
  const inside = relative(base, absolute);
  if (inside !== "" && !inside.startsWith(`..${sep}`) && inside !== ".." && !isAbsolute(inside)) {
    return { uri: segments(inside), uriBaseId: sourceRoot };
  }
  return { uri: pathToFileURL(absolute).href };
}
