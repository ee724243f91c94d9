#!/usr/bin/env node
interface Command {
  run: (args: string[]) => Promise<void>;
  usage: string;
}

/**
 * Each command: a file beside this one and a row here. Loaded when chosen: `validate` in a pre-commit
 * hook should not wait for what `serve` and the cluster commands load (the Kubernetes client alone
 * took 0.4 s to import).
 */
const commands: Record<string, () => Promise<Command>> = {
  serve: async () => {
    const { serve, serveUsage } = await import("./serve.js");
    return { run: serve, usage: serveUsage };
  },
  validate: async () => {
    const { validateCommand, validateUsage } = await import("./validate.js");
    return { run: validateCommand, usage: validateUsage };
  },
  schema: async () => {
    const { schemaCommand, schemaUsage } = await import("./schema.js");
    return { run: schemaCommand, usage: schemaUsage };
  },
  "install-crds": async () => {
    const { installCrds, installCrdsUsage } = await import("./install-crds.js");
    return { run: installCrds, usage: installCrdsUsage };
  },
  "lint-modules": async () => {
    const { lintModules, lintModulesUsage } = await import("./lint-modules.js");
    return { run: lintModules, usage: lintModulesUsage };
  },
  audit: async () => {
    const { auditCommand, auditUsage } = await import("./audit.js");
    return { run: auditCommand, usage: auditUsage };
  },
};

const [name, ...args] = process.argv.slice(2);
if (name === "--version" || name === "-V") {
  // package.json sits two levels above dist/cli/ (and src/cli/), in a clone and in the npm package alike.
  const { readFileSync } = await import("node:fs");
  const { version } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
  process.stdout.write(`${version}\n`);
  process.exit(0);
}
const load = name === undefined || !Object.hasOwn(commands, name) ? undefined : commands[name];
if (!load) {
  const all = await Promise.all(Object.values(commands).map((command) => command()));
  const usage = `Usage: module-admission <command> [options]\n\nCommands:\n${all
    .map((command) => `  ${command.usage}`)
    .join("\n")}\n`;
  process.stderr.write(name ? `unknown command ${JSON.stringify(name)}\n\n${usage}` : usage);
  process.exit(2);
}
try {
  const command = await load();
  await command.run(args);
} catch (error) {
  process.stderr.write(`module-admission: ${(error as Error).message}\n`);
  process.exit(2);
}
