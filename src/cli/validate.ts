import { Command, Option } from "commander";
import { load as loadYaml } from "js-yaml";
import { checkRuleIds, parseRuleActions, type RuleActions } from "../admission/rule-actions.js";
import { writeJson } from "../base/exact-json.js";
import { InputError } from "../manifests/input-error.js";
import { manifestFiles, readBounded, readInput, type SkippedDirectory } from "../manifests/manifest-files.js";
import { isResourceList } from "../manifests/manifests.js";
import { type YamlReader, yamlReaders } from "../manifests/yaml-readings.js";
import { type OfflineAddonOperator, offlineAddonOperator } from "../offline/addon-operator.js";
import type { Client } from "../offline/client.js";
import {
  type Batch,
  type BatchResult,
  type Input,
  type Mutation,
  type ObjectOutcome,
  validateBatch,
} from "../offline/validate-batch.js";
import { resourceKinds } from "../resources/index.js";
import { collect, exitStatus, type Outcome, runCommand, UsageError } from "./command.js";
import { formatFindings, type NotJudged, type ReportFormat, reportFormats, summaryLine } from "./findings.js";
import { formatJunit, type JunitCase } from "./junit.js";
import { krmOutput } from "./krm.js";
import { progressBar } from "./progress.js";

export interface CliIo {
  readStdin: () => string;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Whether stderr is a terminal: a progress bar is drawn only there. */
  interactive: boolean;
}

export const processIo: CliIo = {
  // Bounded as a file is: `-f - < /dev/zero` is refused at the bound, not read until memory runs out.
  readStdin: () => readBounded(0, "-"),
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  interactive: process.stderr.isTTY === true,
};

/** Inputs of at least this size get a progress bar (on a terminal): below it, it only flickers. */
const largeInput = 1 << 20;

export const exitStatusHelp = `
Exit status:
  0  every object checked is admitted (warnings allowed)
  1  an object is denied (including an apiVersion or kind its group does not serve)
  2  usage error, an input that cannot be read or parsed, or nothing to check at all`;

interface ValidateOptions {
  filename?: string[];
  old?: string[];
  strict?: boolean;
  showMutations?: boolean;
  ruleAction?: string[];
  output: ReportFormat;
  yaml?: YamlReader;
  client?: ClientChoice;
  stdinFilename?: string;
  krm?: boolean;
  clusterObjects?: string[];
  modulesDir?: string;
  globalHooksDir?: string;
  addonConfigmap?: string;
  policies?: boolean;
  namespace?: string;
  kustomization?: string;
}

/** The `validate` command's definition: its help is generated from it. */
export function validateDefinition(io: CliIo, outcome: Outcome): Command {
  return new Command("validate")
    .summary("give the verdict the cluster would give on manifests, before the push (offline)")
    .description(
      "Give the verdict the cluster would give on manifests, before the push, without a cluster: the CRD's " +
        "schema and CEL rules, the mutating and validating webhooks, in the API server's order. A KRM " +
        "ResourceList (kustomize, kpt) is read as its items and answered with one (see --krm).",
    )
    .argument("[paths...]", "manifests: files, directories (*.yaml, *.yml, *.json, recursively), - for stdin")
    .option("-f, --filename <FILE|DIR|->", "manifests, as the positional paths (repeatable)", collect)
    .option(
      "--old <FILE|DIR|->",
      "the objects' previous versions: update and transition rules apply",
      collect,
    )
    .option("--strict", "objects of kinds without a schema are errors (default: skipped, and counted)")
    .option("--show-mutations", "show the mutating webhook's JSON Patch for each object")
    .option(
      "--rule-action <ID=deny|warn|off>",
      "as serve's flag: a rule's errors or warnings warn, or are off (repeatable)",
      collect,
    )
    .addOption(new Option("-o, --output <format>", "output format").choices(reportFormats).default("text"))
    .addOption(
      new Option(
        "--yaml <reader>",
        "read the YAML as the tool that applies it: gitops (YAML 1.2: kustomize, Flux, kubectl -k) or kubectl (YAML 1.1, kubectl apply -f: yes/no/on/off are booleans, 017 is 15); either way a warning names every value the two read differently (default: gitops)",
      ).choices(yamlReaders),
    )
    .addOption(
      new Option(
        "--client <client>",
        "the client that sends the objects, and what it sends: gitops (as --yaml gitops), kubectl-apply (as --yaml kubectl: null fields dropped, the last-applied annotation added, which counts toward the 256 KiB of annotations) or kubectl-create (YAML 1.1 and strict field validation as apply, the manifest sent as read, no last-applied annotation)",
      ).choices(clientChoices),
    )
    .option(
      "--cluster-objects <FILE|DIR>",
      "what the cluster holds (Workspaces, ModuleTemplates): the lookups serve makes (spec.workspace, spec.from, a release meta's templates) are made against them and the input's own objects; without it only the input's own answer them, and the summary names the lookups they could not answer (repeatable)",
      collect,
    )
    .option(
      "--modules-dir <DIR>",
      "as serve's flag: judge ConfigMap/addon-operator against addon-operator's modules in DIR",
    )
    .option("--global-hooks-dir <DIR>", "as serve's flag: addon-operator's global hooks (openapi/)")
    .option(
      "--addon-configmap <NS/NAME>",
      "as serve's flag: the ConfigMap addon-operator reads (one without a namespace is judged as in NS)",
      "addon-operator/addon-operator",
    )
    .option(
      "-n, --namespace <NS>",
      "the namespace of objects whose manifest names none, on create and update, as kubectl's --namespace (default: default)",
    )
    .option("--stdin-filename <path>", "the file name findings give to stdin (default <stdin>)")
    .option(
      "--kustomization <DIR>",
      "the directory a kustomize build was made from: objects with kustomize's origin annotation (buildMetadata: [originAnnotations]) are placed in their source files, whose paths start there (default .)",
    )
    .option("--krm", "answer as a KRM function: a ResourceList with results (also when stdin is one)")
    .option(
      "--policies",
      "the verdict of a cluster that runs the native admission policies without the webhook (the chart's nativePolicies; docs/native-policies.md)",
    )
    .addHelpText("after", exitStatusHelp)
    .action(async (paths: string[], options: ValidateOptions) => {
      outcome.status = await validateWith([...(options.filename ?? []), ...paths], options, io);
    });
}

/** `--client`'s names: kubectl apply is `kubectl-apply` there, `kubectl` inside (as `--yaml kubectl`). */
const clientChoices = ["gitops", "kubectl-apply", "kubectl-create"] as const;
type ClientChoice = (typeof clientChoices)[number];

/** The client `--client` names, or `--yaml`'s (default gitops); the two must not disagree. */
function clientOf(options: Pick<ValidateOptions, "client" | "yaml">): Client {
  const chosen: Client | undefined =
    options.client === undefined
      ? undefined
      : options.client === "kubectl-apply"
        ? "kubectl"
        : options.client;
  if (chosen === undefined) return options.yaml ?? "gitops";
  if (options.yaml !== undefined && options.yaml !== (chosen === "gitops" ? "gitops" : "kubectl"))
    throw new UsageError(`--yaml ${options.yaml} and --client ${options.client} disagree: give one`);
  return chosen;
}

/** `module-admission validate`: returns the exit status. */
export async function runValidate(args: string[], io: CliIo = processIo): Promise<number> {
  const outcome: Outcome = { status: exitStatus.ok };
  return runCommand(validateDefinition(io, outcome), args, io, outcome);
}

async function validateWith(given: string[], options: ValidateOptions, io: CliIo): Promise<number> {
  // A KRM function is given its ResourceList on stdin, with no arguments.
  const paths = given.length === 0 && options.krm === true ? ["-"] : given;
  if (paths.length === 0)
    throw new UsageError("no input: give FILE, DIR or - (stdin), as arguments or with -f");
  const addonOperator = addonOperatorOf(options);
  let ruleActions: RuleActions;
  try {
    ruleActions = parseRuleActions(options.ruleAction ?? []);
    checkRuleIds(ruleActions, addonOperator ? [...resourceKinds, addonOperator.kind] : resourceKinds);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const client = clientOf(options);
  if (client === "kubectl-create" && (options.old ?? []).length > 0)
    throw new UsageError(
      "--client kubectl-create and --old: kubectl create only creates (an existing object is AlreadyExists); judge an update with --client kubectl-apply or gitops",
    );
  const stdinName = options.stdinFilename ?? "<stdin>";
  const read = readAll(paths, io, stdinName);
  const inputs = read.inputs;
  const krm =
    options.krm === true ||
    (inputs.length === 1 && inputs[0]?.file === stdinName && isKrmInput(inputs[0].text));
  // A commit that changes only chart templates hands the hook nothing else: nothing to do, said so.
  const onlyTemplates = inputs.length === 0 && read.notRead.some((left) => left.file === true);
  if (inputs.length === 0 && read.unreadable.length === 0 && !onlyTemplates) {
    io.stderr(
      `module-admission validate: nothing to check: no *.yaml, *.yml or *.json files in ${paths.join(", ")}\n`,
    );
    return exitStatus.usage;
  }
  const total = inputs.reduce((sum, input) => sum + input.text.length, 0);
  const old = readAll(options.old ?? [], io, "<stdin>");
  const cluster = options.clusterObjects && readAll(options.clusterObjects, io, "<stdin>");
  const batch: Batch = {
    inputs,
    unreadable: [...read.unreadable, ...old.unreadable, ...(cluster?.unreadable ?? [])],
    ...(cluster ? { clusterObjects: cluster.inputs } : {}),
    old: old.inputs,
    strict: options.strict === true,
    showMutations: options.showMutations === true,
    ruleActions,
    yamlReader: client === "gitops" ? "gitops" : "kubectl",
    client,
    ...(addonOperator ? { addonOperator } : {}),
    policies: options.policies === true,
    ...(options.namespace ? { namespace: options.namespace } : {}),
    ...(options.kustomization === undefined ? {} : { kustomization: options.kustomization }),
    readSource: (file: string) => readInput(file, () => ""),
  };
  const progress = io.interactive && total >= largeInput ? progressBar(total, io.stderr) : undefined;
  let done = 0;
  const result = await validateBatch(batch, (bytes) => {
    done += bytes;
    progress?.(Math.min(done, total));
  });
  progress?.(total);
  if (read.notRead.length > 0) result.summary.notRead = read.notRead;
  const status = result.failed ? exitStatus.usage : result.denied ? exitStatus.denied : exitStatus.ok;
  if (krm) {
    io.stdout(krmOutput(inputs, result));
    return status;
  }
  io.stdout(render(result, options.output));
  const { summary } = result;
  if (summary.objects === 0 && !result.failed && !onlyTemplates) {
    const named = paths.map((path) => (path === "-" ? "stdin" : path)).join(", ");
    io.stderr(`module-admission validate: nothing to check: no objects in ${named}\n`);
    return exitStatus.usage;
  }
  if (summary.checked === 0 && !result.failed && !onlyTemplates) {
    io.stderr(
      `module-admission validate: nothing checked: none of the ${summary.objects} objects is of a kind validate knows (${knownKinds()})\n`,
    );
  }
  return status;
}

function addonOperatorOf(options: ValidateOptions): OfflineAddonOperator | undefined {
  if (options.modulesDir === undefined) {
    if (options.globalHooksDir !== undefined) throw new UsageError("--global-hooks-dir needs --modules-dir");
    return undefined;
  }
  try {
    return offlineAddonOperator({
      "modules-dir": options.modulesDir,
      "global-hooks-dir": options.globalHooksDir,
      "addon-configmap": options.addonConfigmap,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function knownKinds(): string {
  return resourceKinds.map((kind) => kind.kind).join(", ");
}

/** Whether stdin is a KRM ResourceList (what kustomize and kpt give a function): parsed only when it may be. */
function isKrmInput(text: string): boolean {
  if (!/^kind:\s*ResourceList\s*$/m.test(text)) return false;
  try {
    return isResourceList(loadYaml(text));
  } catch {
    return false;
  }
}

function readAll(
  paths: string[],
  io: CliIo,
  stdinName: string,
): { inputs: Input[]; unreadable: InputError[]; notRead: SkippedDirectory[] } {
  const notRead: SkippedDirectory[] = [];
  let stdin: string | undefined;
  const readStdin = () => {
    stdin ??= io.readStdin();
    return stdin;
  };
  const inputs: Input[] = [];
  const unreadable: InputError[] = [];
  for (const path of paths) {
    try {
      const files = manifestFiles(
        [path],
        (skipped) => notRead.push(skipped),
        (error) => unreadable.push(error),
      );
      for (const file of files) {
        const name = file === "-" ? stdinName : file;
        try {
          inputs.push({ file: name, text: readInput(file, readStdin) });
        } catch (error) {
          if (!(error instanceof InputError)) throw error;
          unreadable.push(new InputError(name, error.line, error.reason));
        }
      }
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      unreadable.push(error);
    }
  }
  return { inputs, unreadable, notRead };
}

function render(result: BatchResult, format: ReportFormat): string {
  const { findings, mutations, summary, failed } = result;
  if (format === "junit") return formatJunit("module-admission validate", junitCases(result));
  const report = { findings, summary, failed, baseDir: process.cwd() };
  if (format === "json") {
    const withMutations = mutations.length > 0 ? { mutations } : {};
    const objects = result.objects.map(objectStatus);
    return `${writeJson({ findings, ...withMutations, objects, summary, executionSuccessful: !failed }, 2)}\n`;
  }
  if (format === "sarif") return formatFindings({ ...report, notJudged: notJudged(result) }, format);
  if (format !== "text") return formatFindings(report, format);
  const patches = mutations.map(
    (m: Mutation) => `${m.file}:${m.line}: ${m.object}: mutating webhook patch: ${writeJson(m.patch)}\n`,
  );
  return formatFindings(report, format) + patches.join("") + summaryLine(summary);
}

/**
 * An object read and what became of each webhook rule on it (docs/ci.md, "validate -o json"): judged
 * (pass, fail, warn) or skipped with its reason; an object of a kind without a schema says so instead.
 */
function objectStatus(outcome: ObjectOutcome) {
  const { file, line, object, skipped, rules } = outcome;
  return {
    file,
    line,
    object,
    ...(skipped === undefined ? {} : { skipped: `no schema for ${skipped}` }),
    ...(rules === undefined ? {} : { rules }),
  };
}

/**
 * The rules the run did not judge though they applied, by reason and message, for SARIF's notes: not
 * update-only rules on a create (nothing to judge), nor lookups (the summary's `notChecked` names them).
 */
function notJudged(result: BatchResult): NotJudged[] {
  const byWhy = new Map<string, NotJudged & { ruleIds: Set<string> }>();
  for (const { rules } of result.objects) {
    const counted = new Set<string>();
    for (const status of rules ?? []) {
      if (status.status !== "skip" || status.reason === "update-only" || status.reason === "lookup") continue;
      const key = `${status.reason} ${status.message}`;
      const entry = byWhy.get(key) ?? {
        reason: status.reason ?? "",
        message: status.message ?? "",
        rules: 0,
        objects: 0,
        ruleIds: new Set<string>(),
      };
      entry.ruleIds.add(status.rule);
      if (!counted.has(key)) entry.objects++;
      counted.add(key);
      byWhy.set(key, entry);
    }
  }
  return [...byWhy.values()].map(({ ruleIds, ...note }) => ({ ...note, rules: ruleIds.size }));
}

/** A test case per object read (skipped ones too, so nothing passes unseen), and one per unreadable input. */
function junitCases(result: BatchResult): JunitCase[] {
  const unreadable = result.findings
    .filter((finding) => finding.rule === "input/Unreadable")
    .map((finding) => ({ suite: finding.file, name: finding.file, findings: [finding] }));
  const objects = result.objects.map((outcome) => ({
    suite: outcome.file,
    name: outcome.object,
    findings: outcome.findings,
    seconds: outcome.seconds,
    ...(outcome.skipped === undefined ? {} : { skipped: `no schema for ${outcome.skipped}` }),
  }));
  return [...unreadable, ...objects];
}
