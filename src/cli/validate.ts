import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { checkRuleIds, parseRuleActions, type RuleActions } from "../admission/rule-actions.js";
import { resourceKinds } from "../resources/index.js";
import { formatFindings, type OutputFormat, outputFormats } from "./findings.js";
import { InputError, manifestFiles, readInput } from "./manifests.js";
import { progressBar } from "./progress.js";
import { type Batch, type BatchResult, type Input, type Mutation, validateBatch } from "./validate-batch.js";
import { type YamlReader, yamlReaders } from "./yaml-readings.js";

export const validateUsage = `validate  Give the verdict the cluster would give on manifests, before the push (offline)
          -f, --filename FILE|DIR|-  manifests (repeatable); directories recursively, - for stdin
          --old FILE|DIR|-           the objects' previous versions: update and transition rules apply
          --strict                   objects of kinds without a schema are errors (default: skipped)
          --show-mutations           show the mutating webhook's JSON Patch for each object
          --rule-action ID=deny|warn|off
                                     as serve's flag: a rule's errors warn, or are off (repeatable)
          --yaml gitops|kubectl      read the YAML as the tool that applies it: gitops (default: YAML 1.2,
                                     kustomize, Flux, kubectl -k) or kubectl (YAML 1.1, kubectl apply -f:
                                     yes/no/on/off are booleans, 017 is 15); either way a warning names
                                     every value the two read differently
          -o, --output FORMAT        text (default), json or sarif
          Exit status: 0 all admitted, 1 any denied, 2 usage error or unreadable input`;

export interface CliIo {
  readStdin: () => string;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Whether stderr is a terminal: a progress bar is drawn only there. */
  interactive: boolean;
}

const processIo: CliIo = {
  readStdin: () => readFileSync(0, "utf8"),
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  interactive: process.stderr.isTTY === true,
};

/** Inputs of at least this size get a progress bar (on a terminal): below it, it only flickers. */
const largeInput = 1 << 20;

export async function validateCommand(args: string[]): Promise<void> {
  // `validate ... | head` closes the pipe early: that is the reader's choice, not an error to trace.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    process.exit(process.exitCode ?? 0);
  });
  process.exitCode = await runValidate(args, processIo);
}

/** `module-admission validate`: returns the exit status. */
export async function runValidate(args: string[], io: CliIo = processIo): Promise<number> {
  try {
    const options = parseOptions(args);
    const inputs = readAll(options.files, io);
    const total = inputs.reduce((sum, input) => sum + input.text.length, 0);
    const batch: Batch = {
      inputs,
      old: readAll(options.old, io),
      strict: options.strict,
      showMutations: options.showMutations,
      ruleActions: options.ruleActions,
      yamlReader: options.yamlReader,
    };
    const progress = io.interactive && total >= largeInput ? progressBar(total, io.stderr) : undefined;
    let done = 0;
    const result = await validateBatch(batch, (bytes) => {
      done += bytes;
      progress?.(Math.min(done, total));
    });
    progress?.(total);
    io.stdout(render(result, options.output));
    return result.denied ? 1 : 0;
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    io.stderr(`module-admission validate: ${error.message}\n`);
    return 2;
  }
}

interface Options {
  files: string[];
  old: string[];
  strict: boolean;
  showMutations: boolean;
  output: OutputFormat;
  ruleActions: RuleActions;
  yamlReader: YamlReader;
}

function parseOptions(args: string[]): Options {
  const parse = (argv: string[]) =>
    parseArgs({
      args: argv,
      options: {
        filename: { type: "string", short: "f", multiple: true },
        old: { type: "string", multiple: true },
        strict: { type: "boolean", default: false },
        "show-mutations": { type: "boolean", default: false },
        output: { type: "string", short: "o", default: "text" },
        "rule-action": { type: "string", multiple: true },
        yaml: { type: "string", default: "gitops" },
      },
    });
  let values: ReturnType<typeof parse>["values"];
  try {
    values = parse(args).values;
  } catch (error) {
    throw new InputError((error as Error).message);
  }
  if (!values.filename?.length) throw new InputError("no input: give -f FILE, -f DIR or -f - (stdin)");
  if (!outputFormats.includes(values.output as OutputFormat)) {
    throw new InputError(
      `--output must be one of ${outputFormats.join(", ")}, not ${JSON.stringify(values.output)}`,
    );
  }
  if (!yamlReaders.includes(values.yaml as YamlReader)) {
    throw new InputError(
      `--yaml must be one of ${yamlReaders.join(", ")}, not ${JSON.stringify(values.yaml)}`,
    );
  }
  let ruleActions: RuleActions;
  try {
    ruleActions = parseRuleActions(values["rule-action"] ?? []);
    checkRuleIds(ruleActions, resourceKinds);
  } catch (error) {
    throw new InputError((error as Error).message);
  }
  return {
    ruleActions,
    files: values.filename,
    old: values.old ?? [],
    strict: values.strict ?? false,
    showMutations: values["show-mutations"] ?? false,
    output: values.output as OutputFormat,
    yamlReader: values.yaml as YamlReader,
  };
}

function readAll(paths: string[], io: CliIo): Input[] {
  let stdin: string | undefined;
  const readStdin = () => {
    stdin ??= io.readStdin();
    return stdin;
  };
  return manifestFiles(paths).map((file) => ({
    file: file === "-" ? "<stdin>" : file,
    text: readInput(file, readStdin),
  }));
}

function render({ findings, mutations }: BatchResult, format: OutputFormat): string {
  if (mutations.length === 0 || format === "sarif") return formatFindings(findings, format);
  if (format === "json") return `${JSON.stringify({ findings, mutations }, null, 2)}\n`;
  const patches = mutations.map(
    (m: Mutation) => `${m.file}:${m.line}: ${m.object}: mutating webhook patch: ${JSON.stringify(m.patch)}\n`,
  );
  return formatFindings(findings, format) + patches.join("");
}
