import { statSync } from "node:fs";
import { Command, Option } from "commander";
import { lintModulesDir } from "../addon-operator/lint.js";
import { listModuleDirectories } from "../addon-operator/module-files.js";
import { exitStatus, type Outcome, UsageError } from "./command.js";
import { formatFindings, type OutputFormat, outputFormats } from "./findings.js";

export function lintModulesDefinition(outcome: Outcome): Command {
  return new Command("lint-modules")
    .summary("check an addon-operator modules directory the way addon-operator reads it")
    .description("Check an addon-operator modules directory the way addon-operator reads it.")
    .argument("<dir>", "the modules directory (addon-operator's MODULES_DIR)")
    .addOption(new Option("-o, --output <format>", "output format").choices(outputFormats).default("text"))
    .addHelpText(
      "after",
      "\nExit status:\n  0  clean (warnings allowed)\n  1  errors found\n  2  usage error, unreadable DIR, or no modules in it",
    )
    .action((dir: string, options: { output: OutputFormat }) => {
      outcome.status = lintModules(dir, options.output);
    });
}

function lintModules(dir: string, format: OutputFormat): number {
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
    throw new UsageError(`${dir}: not a readable directory`);
  }
  const findings = lintModulesDir(dir);
  process.stdout.write(formatFindings({ findings, baseDir: process.cwd() }, format));
  if (findings.some((finding) => finding.severity === "error")) return exitStatus.denied;
  // A wrong path (the repository root instead of its modules/) must not pass as a clean tree.
  if (listModuleDirectories(dir).modules.length === 0) {
    process.stderr.write(
      `module-admission lint-modules: nothing to check: no module directories in ${dir} (addon-operator loads each subdirectory, such as 001-my-module)\n`,
    );
    return exitStatus.usage;
  }
  return exitStatus.ok;
}
