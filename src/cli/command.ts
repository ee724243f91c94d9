import { type Command, CommanderError } from "commander";

/** Where a command writes: the process's streams, or a test's buffers. */
export interface Output {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** Exit statuses every command shares (documented in docs/ci.md's table). */
export const exitStatus = { ok: 0, denied: 1, usage: 2 } as const;

/** A command's answer: the action stores its exit status here, for the caller of `runCommand`. */
export interface Outcome {
  status: number;
}

/** A usage error found after parsing (an option's value): the message on stderr, exit 2. */
export class UsageError extends Error {}

/** An array option's parser: `-f a -f b` → ["a", "b"]. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/**
 * Parses `argv` with the command (and its subcommands) and runs its action. Help and --version exit 0;
 * a usage error (an unknown option, with commander's "did you mean", a missing or bad value) and a
 * UsageError exit 2 with the message on stderr; other errors are thrown to the caller.
 */
export async function runCommand(
  command: Command,
  argv: string[],
  output: Output,
  outcome: Outcome,
): Promise<number> {
  configure(command, output);
  // Messages name the command that ran: `module-admission validate: ...`.
  let running =
    command.name() === "module-admission" ? "module-admission" : `module-admission ${command.name()}`;
  command.hook("preAction", (_root, action) => {
    if (action !== command) running = `module-admission ${action.name()}`;
  });
  try {
    await command.parseAsync(argv, { from: "user" });
    return outcome.status;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? exitStatus.ok : exitStatus.usage;
    if (error instanceof UsageError) {
      output.stderr(`${running}: ${error.message}\n`);
      return exitStatus.usage;
    }
    throw error;
  }
}

function configure(command: Command, output: Output): void {
  command
    .exitOverride()
    .showSuggestionAfterError(true)
    .configureOutput({ writeOut: output.stdout, writeErr: output.stderr });
  for (const sub of command.commands) configure(sub, output);
}

/**
 * The parsed options keyed by their long names (`chunk-size`), as node's parseArgs gave them: the
 * commands' code reads them so, and its checks of values stay as they were.
 */
export function optionValues(command: Command): Record<string, string | boolean | string[] | undefined> {
  const opts = command.opts();
  const values: Record<string, string | boolean | string[] | undefined> = {};
  for (const option of command.options) {
    if (option.long) values[option.long.slice(2)] = opts[option.attributeName()];
  }
  return values;
}

/** Parses `argv` with a command that has no action: its options as `optionValues` gives them. */
export function parseOptionValues(
  command: Command,
  argv: string[],
): Record<string, string | boolean | string[] | undefined> {
  command.exitOverride().configureOutput({ writeOut: () => {}, writeErr: () => {} });
  try {
    command.parse(argv, { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) throw new UsageError(error.message.replace(/^error: /, ""));
    throw error;
  }
  return optionValues(command);
}
