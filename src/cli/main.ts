#!/usr/bin/env node
import { auditCommand, auditUsage } from "./audit.js";
import { installCrds, installCrdsUsage } from "./install-crds.js";
import { lintModules, lintModulesUsage } from "./lint-modules.js";
import { schemaCommand, schemaUsage } from "./schema.js";
import { serve, serveUsage } from "./serve.js";
import { validateCommand, validateUsage } from "./validate.js";

/** Each command: its entry point and its usage text. A new command is a file beside this one and a row here. */
const commands: Record<string, { run: (args: string[]) => Promise<void>; usage: string }> = {
  serve: { run: serve, usage: serveUsage },
  validate: { run: validateCommand, usage: validateUsage },
  schema: { run: schemaCommand, usage: schemaUsage },
  "install-crds": { run: installCrds, usage: installCrdsUsage },
  "lint-modules": { run: lintModules, usage: lintModulesUsage },
  audit: { run: auditCommand, usage: auditUsage },
};

const usage = `Usage: module-admission <command> [options]\n\nCommands:\n${Object.values(commands)
  .map((command) => `  ${command.usage}`)
  .join("\n")}\n`;

const [name, ...args] = process.argv.slice(2);
const command = name === undefined ? undefined : commands[name];
if (!command) {
  process.stderr.write(name ? `unknown command ${JSON.stringify(name)}\n\n${usage}` : usage);
  process.exit(2);
}
try {
  await command.run(args);
} catch (error) {
  process.stderr.write(`module-admission: ${(error as Error).message}\n`);
  process.exit(2);
}
