import { statSync } from "node:fs";
import { sep } from "node:path";
import { Command, Option } from "commander";
import { lintModulesDir } from "../addon-operator/lint.js";
import { listModuleDirectories, type ModuleDirectory } from "../addon-operator/module-files.js";
import type { Finding } from "../base/finding.js";
import { exitStatus, type Outcome, UsageError } from "./command.js";
import { formatFindings, type ReportFormat, reportFormats } from "./findings.js";
import { formatJunit, type JunitCase } from "./junit.js";

export function lintModulesDefinition(outcome: Outcome): Command {
  return new Command("lint-modules")
    .summary("check an addon-operator modules directory the way addon-operator reads it")
    .description("Check an addon-operator modules directory the way addon-operator reads it.")
    .argument("<dir>", "the modules directory (addon-operator's MODULES_DIR)")
    .addOption(new Option("-o, --output <format>", "output format").choices(reportFormats).default("text"))
    .addHelpText(
      "after",
      "\nExit status:\n  0  clean (warnings allowed)\n  1  errors found\n  2  usage error, unreadable DIR, or no modules in it",
    )
    .action((dir: string, options: { output: ReportFormat }) => {
      outcome.status = lintModules(dir, options.output);
    });
}

/** What a run checked: every output ends with it (text: one line; JSON and SARIF: `summary`). */
export interface LintSummary {
  /** Module directories read. */
  modules: number;
  /** Modules with an error, and with a warning but no error. */
  failed: number;
  warned: number;
  errors: number;
  warnings: number;
}

/** One module's findings; the modules dir's own (values.yaml, entries) belong to no module. */
interface ModuleFindings {
  module?: ModuleDirectory;
  findings: Finding[];
}

function lintModules(dir: string, format: ReportFormat): number {
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
    throw new UsageError(`${dir}: not a readable directory`);
  }
  const findings = lintModulesDir(dir);
  const grouped = byModule(listModuleDirectories(dir).modules, findings);
  const summary = summaryOf(grouped, findings);
  process.stdout.write(render(dir, grouped, findings, summary, format));
  if (summary.errors > 0) return exitStatus.denied;
  // A wrong path (the repository root instead of its modules/) must not pass as a clean tree.
  if (summary.modules === 0) {
    process.stderr.write(
      `module-admission lint-modules: nothing to check: no module directories in ${dir} (addon-operator loads each subdirectory, such as 001-my-module)\n`,
    );
    return exitStatus.usage;
  }
  return exitStatus.ok;
}

function byModule(modules: ModuleDirectory[], findings: Finding[]): ModuleFindings[] {
  const own = (module: ModuleDirectory, finding: Finding) =>
    finding.file === module.path || finding.file.startsWith(`${module.path}${sep}`);
  const grouped: ModuleFindings[] = [
    { findings: findings.filter((finding) => !modules.some((module) => own(module, finding))) },
  ];
  for (const module of modules) {
    grouped.push({ module, findings: findings.filter((finding) => own(module, finding)) });
  }
  return grouped;
}

function summaryOf(grouped: ModuleFindings[], findings: Finding[]): LintSummary {
  const modules = grouped.filter((group) => group.module !== undefined);
  const has = (group: ModuleFindings, severity: Finding["severity"]) =>
    group.findings.some((finding) => finding.severity === severity);
  return {
    modules: modules.length,
    failed: modules.filter((group) => has(group, "error")).length,
    warned: modules.filter((group) => !has(group, "error") && has(group, "warning")).length,
    errors: findings.filter((finding) => finding.severity === "error").length,
    warnings: findings.filter((finding) => finding.severity === "warning").length,
  };
}

function render(
  dir: string,
  grouped: ModuleFindings[],
  findings: Finding[],
  summary: LintSummary,
  format: ReportFormat,
): string {
  if (format === "junit") {
    // A test case per module, and one for the modules dir itself (its values.yaml, its entries).
    const cases: JunitCase[] = grouped.map((group) => ({
      suite: dir,
      name: group.module ? `module ${group.module.name} (${group.module.directory})` : "modules dir",
      findings: group.findings,
    }));
    return formatJunit("module-admission lint-modules", cases);
  }
  const report = formatFindings({ findings, summary, baseDir: process.cwd() }, format);
  return format === "text" ? report + summaryLine(dir, summary) : report;
}

function summaryLine(dir: string, summary: LintSummary): string {
  const count = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;
  return `${count(summary.modules, "module")} in ${dir}: ${summary.failed} with errors, ${summary.warned} with warnings only; ${count(summary.errors, "error")}, ${count(summary.warnings, "warning")}\n`;
}
