import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type { PatchOperation } from "../admission/json-patch.js";
import { admitOffline, type Problem } from "../offline/admit.js";
import { kindOf, type OfflineKind, offlineKinds } from "../offline/kinds.js";
import { type Finding, formatFindings, type OutputFormat, outputFormats } from "./findings.js";
import { InputError, type Manifest, manifestFiles, parseManifests, readInput } from "./manifests.js";
import { progressBar } from "./progress.js";

export const validateUsage = `validate  Give the verdict the cluster would give on manifests, before the push (offline)
          -f, --filename FILE|DIR|-  manifests (repeatable); directories recursively, - for stdin
          --old FILE|DIR|-           the objects' previous versions: update and transition rules apply
          --strict                   objects of kinds without a schema are errors (default: skipped)
          --show-mutations           show the mutating webhook's JSON Patch for each object
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

/** Inputs of at least this many objects get a progress bar (on a terminal): below it, it only flickers. */
const progressThreshold = 500;

export async function validateCommand(args: string[]): Promise<void> {
  process.exitCode = await runValidate(args, processIo);
}

/** `module-admission validate`: returns the exit status. */
export async function runValidate(args: string[], io: CliIo = processIo): Promise<number> {
  try {
    const options = parseOptions(args);
    const kinds = offlineKinds();
    const manifests = readAll(options.files, io);
    const previous = new Map(readAll(options.old, io).map((old) => [identity(old.object), old.object]));
    const findings: Finding[] = [];
    const mutations: { file: string; line: number; object: string; patch: PatchOperation[] }[] = [];
    const progress =
      io.interactive && manifests.length >= progressThreshold
        ? progressBar(manifests.length, io.stderr)
        : undefined;
    let denied = false;
    for (const [index, manifest] of manifests.entries()) {
      progress?.(index + 1);
      const kind = kindOf(kinds, manifest.object);
      if (!kind) {
        if (options.strict) {
          denied = true;
          findings.push(unknownKindFinding(manifest, kinds));
        }
        continue;
      }
      const verdict = await admitOffline(kind, manifest.object, previous.get(identity(manifest.object)));
      denied ||= !verdict.allowed;
      const object = objectLabel(manifest.object);
      findings.push(...verdict.errors.map((p) => toFinding(manifest, object, p, "error")));
      findings.push(...verdict.warnings.map((p) => toFinding(manifest, object, p, "warning")));
      if (options.showMutations && verdict.patch.length > 0) {
        mutations.push({ file: manifest.file, line: manifest.lineOf(""), object, patch: verdict.patch });
      }
    }
    io.stdout(render(findings, mutations, options.output));
    return denied ? 1 : 0;
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
}

function parseOptions(args: string[]): Options {
  let values: ReturnType<typeof parse>["values"];
  const parse = (argv: string[]) =>
    parseArgs({
      args: argv,
      options: {
        filename: { type: "string", short: "f", multiple: true },
        old: { type: "string", multiple: true },
        strict: { type: "boolean", default: false },
        "show-mutations": { type: "boolean", default: false },
        output: { type: "string", short: "o", default: "text" },
      },
    });
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
  return {
    files: values.filename,
    old: values.old ?? [],
    strict: values.strict ?? false,
    showMutations: values["show-mutations"] ?? false,
    output: values.output as OutputFormat,
  };
}

function readAll(paths: string[], io: CliIo): Manifest[] {
  let stdin: string | undefined;
  const readStdin = () => {
    stdin ??= io.readStdin();
    return stdin;
  };
  return manifestFiles(paths).flatMap((file) =>
    parseManifests(file === "-" ? "<stdin>" : file, readInput(file, readStdin)),
  );
}

/** Objects are matched to their previous versions by apiVersion, kind, namespace and name. */
function identity(object: Record<string, unknown>): string {
  const metadata = (object.metadata ?? {}) as { name?: unknown; namespace?: unknown };
  return JSON.stringify([object.apiVersion, object.kind, metadata.namespace ?? "", metadata.name ?? ""]);
}

/** `Module default/redis`, as kubectl names an object. */
function objectLabel(object: Record<string, unknown>): string {
  const metadata = (object.metadata ?? {}) as { name?: unknown; generateName?: unknown; namespace?: unknown };
  const name = String(metadata.name ?? metadata.generateName ?? "<unnamed>");
  return `${String(object.kind)} ${typeof metadata.namespace === "string" ? `${metadata.namespace}/` : ""}${name}`;
}

function toFinding(
  manifest: Manifest,
  object: string,
  problem: Problem,
  severity: Finding["severity"],
): Finding {
  return {
    severity,
    file: manifest.file,
    line: manifest.lineOf(problem.field),
    object,
    rule: `${problem.stage}/${problem.type}`,
    message: problem.message,
  };
}

function unknownKindFinding(manifest: Manifest, kinds: OfflineKind[]): Finding {
  const known = kinds.map((k) => `${k.kind.group}/${k.kind.version} ${k.kind.kind}`).join(", ");
  const { apiVersion, kind } = manifest.object;
  return {
    severity: "error",
    file: manifest.file,
    line: manifest.lineOf(""),
    object: objectLabel(manifest.object),
    rule: "input/UnknownKind",
    message: `no schema for ${String(apiVersion)} ${String(kind)} (--strict): validate knows ${known}`,
  };
}

function render(
  findings: Finding[],
  mutations: { file: string; line: number; object: string; patch: PatchOperation[] }[],
  format: OutputFormat,
): string {
  if (mutations.length === 0 || format === "sarif") return formatFindings(findings, format);
  if (format === "json") return `${JSON.stringify({ findings, mutations }, null, 2)}\n`;
  const patches = mutations.map(
    (m) => `${m.file}:${m.line}: ${m.object}: mutating webhook patch: ${JSON.stringify(m.patch)}\n`,
  );
  return formatFindings(findings, format) + patches.join("");
}
