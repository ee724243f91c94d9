import type { Finding } from "../offline/finding.js";

export type { Finding };

export type OutputFormat = "text" | "json" | "sarif";

export const outputFormats: readonly OutputFormat[] = ["text", "json", "sarif"];

/** Findings as text (one line each, `file:line: object: message`), JSON, or SARIF 2.1.0. */
export function formatFindings(
  findings: Finding[],
  format: OutputFormat,
  toolName = "module-admission",
): string {
  if (format === "json") return `${JSON.stringify({ findings }, null, 2)}\n`;
  if (format === "sarif") return `${JSON.stringify(toSarif(findings, toolName), null, 2)}\n`;
  return findings
    .map((finding) => {
      const where = finding.line ? `${finding.file}:${finding.line}` : finding.file;
      const prefix = finding.severity === "warning" ? "warning: " : "";
      return `${where}: ${prefix}${finding.object ? `${finding.object}: ` : ""}${finding.message}\n`;
    })
    .join("");
}

function toSarif(findings: Finding[], toolName: string) {
  const rules = [...new Set(findings.map((finding) => finding.rule))].sort();
  return {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: toolName,
            informationUri: "https://github.com/forkspacer",
            rules: rules.map((id) => ({ id })),
          },
        },
        results: findings.map((finding) => ({
          ruleId: finding.rule,
          ruleIndex: rules.indexOf(finding.rule),
          level: finding.severity === "error" ? "error" : "warning",
          message: { text: finding.object ? `${finding.object}: ${finding.message}` : finding.message },
          locations: [
            {
              physicalLocation: {
                // A URI reference: `<stdin>` or a path with spaces must be percent-encoded.
                artifactLocation: { uri: encodeURI(finding.file) },
                ...(finding.line ? { region: { startLine: finding.line } } : {}),
              },
            },
          ],
        })),
      },
    ],
  };
}
