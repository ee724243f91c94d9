#!/usr/bin/env node
import { Command } from "commander";
import { exitStatus, type Outcome, type Output, runCommand, UsageError } from "./command.js";
import { toolVersion } from "./version.js";

/** A command's definition, bound to where it writes and where it leaves its exit status. */
type Definition = (outcome: Outcome) => Command;

/**
 * Each command: a file beside this one and a row here. Loaded when chosen: `validate` in a pre-commit
 * hook should not wait for what `serve` and the cluster commands load (the Kubernetes client alone
 * took 0.4 s to import). `help`, `--help` and an unknown command load them all, for the list.
 */
const commands: Record<string, () => Promise<Definition>> = {
  serve: async () => (await import("./serve.js")).serveDefinition,
  validate: async () => {
    const { validateDefinition, processIo } = await import("./validate.js");
    return (outcome) => validateDefinition(processIo, outcome);
  },
  schema: async () => (await import("./schema.js")).schemaDefinition,
  "install-crds": async () => (await import("./install-crds.js")).installCrdsDefinition,
  "lint-modules": async () => (await import("./lint-modules.js")).lintModulesDefinition,
  audit: async () => (await import("./audit.js")).auditDefinition,
  playground: async () => (await import("./playground.js")).playgroundDefinition,
};

const output: Output = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

// `validate ... | head` closes the pipe early: that is the reader's choice, not an error to trace.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE") throw error;
  process.exit(process.exitCode ?? 0);
});

const argv = process.argv.slice(2);
const [first] = argv;
const chosen = first !== undefined && Object.hasOwn(commands, first) ? [first] : Object.keys(commands);
const outcome: Outcome = { status: exitStatus.ok };
const program = new Command("module-admission")
  .description("Admission webhook, CRD generator and offline checks for module-style custom resources")
  .version(toolVersion, "-V, --version", "print the version")
  .helpCommand("help [command]", "show help for a command");
for (const name of chosen) {
  const load = commands[name];
  if (load) program.addCommand(await loaded(name, load));
}

/**
 * A command's definition; a cluster command whose optional dependency was left out (`npm install
 * --omit=optional`: validate and lint-modules need no Kubernetes client) is listed, and says how to get it.
 */
async function loaded(name: string, load: () => Promise<Definition>): Promise<Command> {
  try {
    return (await load())(outcome);
  } catch (error) {
    const missing = /Cannot find (?:package|module) '(@kubernetes\/client-node)'/.exec(
      (error as Error).message,
    );
    if ((error as NodeJS.ErrnoException).code !== "ERR_MODULE_NOT_FOUND" || !missing) throw error;
    const needs = `needs ${missing[1]}, an optional dependency left out of this install: npm install ${missing[1]}`;
    return new Command(name)
      .summary(`(${needs})`)
      .allowUnknownOption()
      .allowExcessArguments()
      .action(() => {
        throw new UsageError(needs);
      });
  }
}
try {
  process.exitCode = await runCommand(program, argv, output, outcome);
} catch (error) {
  process.stderr.write(`module-admission: ${(error as Error).message}\n`);
  // Exit now: a command that failed part-way may hold the event loop open (`serve` whose webhook
  // listens but whose metrics port is taken would otherwise serve on, half-started, forever).
  process.exit(exitStatus.usage);
}
