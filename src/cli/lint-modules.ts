import { statSync } from "node:fs";
import { parseArgs } from "node:util";
import { lintModulesDir } from "../addon-operator/lint.js";
import { formatFindings, type OutputFormat, outputFormats } from "./findings.js";

export const lintModulesUsage = `lint-modules DIR   Check an addon-operator modules directory the way addon-operator reads it
          -o, --output FORMAT  text (default), json or sarif
          exit 0 clean, 1 errors found, 2 usage or unreadable DIR`;

export async function lintModules(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { output: { type: "string", short: "o", default: "text" } },
  });
  const format = values.output as OutputFormat;
  if (!outputFormats.includes(format)) {
    throw new Error(
      `--output must be one of ${outputFormats.join(", ")}, got ${JSON.stringify(values.output)}`,
    );
  }
  const [dir, ...extra] = positionals;
  if (dir === undefined || extra.length > 0) throw new Error(`usage: ${lintModulesUsage.split("\n")[0]}`);
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory())
    throw new Error(`${dir}: not a readable directory`);
  const findings = lintModulesDir(dir);
  process.stdout.write(formatFindings(findings, format));
  if (findings.some((finding) => finding.severity === "error")) process.exitCode = 1;
}
