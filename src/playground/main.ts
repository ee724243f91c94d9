/**
 * The playground page: the editors, the verdict as the text changes (no button), the findings on their
 * lines, the mutating webhook's patch, what was not checked, and the share link in the address bar.
 */

import { examples } from "virtual:playground-examples";
import type { Finding } from "../base/finding.js";
import type { BatchResult, Mutation } from "../offline/validate-batch.js";
import {
  type FolderFile,
  folderPathShown,
  isTreeFile,
  judgeState,
  mountFolder,
  objectFile,
  type PlaygroundState,
} from "./engine.js";
import { decodeState, encodeState } from "./share.js";
import { bundledTrees } from "./trees.js";

const rulesDocs = "https://github.com/forkspacer/module-admission/blob/main/docs/rules.md";

function element<T extends HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`the page has no #${id}`);
  return found as T;
}

const objectEditor = element<HTMLTextAreaElement>("object");
const objectLines = element<HTMLPreElement>("object-lines");
const oldEditor = element<HTMLTextAreaElement>("old");
const clientChoice = element<HTMLSelectElement>("client");
const modulesChoice = element<HTMLSelectElement>("modules");
const modulesFolder = element<HTMLInputElement>("modules-folder");
const modulesRead = element<HTMLOutputElement>("modules-read");
const exampleChoice = element<HTMLSelectElement>("example");
const verdict = element<HTMLOutputElement>("verdict");
const findingsList = element<HTMLUListElement>("findings");
const mutationsView = element<HTMLPreElement>("mutations");
const notCheckedList = element<HTMLUListElement>("not-checked");

function currentState(): PlaygroundState {
  return {
    object: objectEditor.value,
    old: oldEditor.value,
    client: clientChoice.value === "kubectl" ? "kubectl" : "gitops",
    tree: modulesChoice.value,
  };
}

function showState(state: PlaygroundState): void {
  objectEditor.value = state.object;
  oldEditor.value = state.old;
  clientChoice.value = state.client;
  // A tree this page does not have (a folder picked elsewhere) is shown as chosen: the verdict says why
  // it cannot be judged.
  if (![...modulesChoice.options].some((option) => option.value === state.tree))
    modulesChoice.append(treeOption(state.tree, state.tree.replace(/^folder:/, "")));
  modulesChoice.value = state.tree;
}

function treeOption(value: string, text: string): HTMLOptionElement {
  const option = document.createElement("option");
  option.value = value;
  option.textContent = text;
  return option;
}

/** Each change gets a number: only the verdict on the latest text is shown. */
let judged = 0;

async function update(ticket: number): Promise<void> {
  const state = currentState();
  let result: BatchResult | Error;
  try {
    result = await judgeState(state);
  } catch (error) {
    result = error instanceof Error ? error : new Error(String(error));
  }
  const link = await encodeState(state);
  if (ticket !== judged) return;
  history.replaceState(null, "", link);
  if (result instanceof Error) showFailure(result);
  else showResult(result);
  verdict.setAttribute("aria-busy", "false");
}

function showFailure(error: Error): void {
  verdict.dataset.verdict = "unreadable";
  delete verdict.dataset.summary;
  verdict.textContent = `Cannot be judged: ${error.message}`;
  findingsList.replaceChildren();
  mutationsView.textContent = "";
  notCheckedList.replaceChildren();
  markLines([]);
}

function showResult(result: BatchResult): void {
  const errors = result.findings.filter((finding) => finding.severity === "error").length;
  const warnings = result.findings.length - errors;
  const counts = `${plural(errors, "error")}, ${plural(warnings, "warning")}`;
  const { summary } = result;
  let text: string;
  if (result.failed) [verdict.dataset.verdict, text] = ["unreadable", `Cannot be read: ${counts}`];
  else if (result.denied) [verdict.dataset.verdict, text] = ["denied", `Denied: ${counts}`];
  else if (summary.checked === 0) [verdict.dataset.verdict, text] = ["nothing", "Nothing checked"];
  else
    [verdict.dataset.verdict, text] = [
      "admitted",
      warnings > 0 ? `Admitted with ${plural(warnings, "warning")}` : "Admitted",
    ];
  // What validate's JSON report calls its summary, for whoever reads the page's state (its tests).
  verdict.dataset.summary = JSON.stringify(summary);
  verdict.textContent = `${text} (${plural(summary.objects, "object")} read, ${summary.checked} checked; ${summary.client})`;
  findingsList.replaceChildren(...result.findings.map(findingItem));
  mutationsView.textContent =
    result.mutations.length > 0
      ? result.mutations.map(mutationDiff).join("\n")
      : "no patch: the mutating webhook leaves it as it is";
  const notChecked = [
    ...(summary.notChecked ?? []).map(
      (entry) => `${entry.check} (${plural(entry.objects, "object")}): ${entry.reason}`,
    ),
    ...Object.entries(summary.skipped).map(
      ([key, count]) => `${plural(count, "object")} skipped: no schema for ${key}`,
    ),
  ];
  // An empty heading reads as a page still loading: say that nothing was left out.
  if (notChecked.length === 0) notChecked.push("nothing: no lookup left unanswered, no object skipped");
  notCheckedList.replaceChildren(...notChecked.map((line) => listItem(line)));
  markLines(result.findings);
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

function listItem(text: string): HTMLLIElement {
  const item = document.createElement("li");
  item.textContent = text;
  return item;
}

function findingItem(finding: Finding): HTMLLIElement {
  const item = document.createElement("li");
  item.className = finding.severity;
  item.dataset.finding = JSON.stringify(finding);
  if (finding.line !== undefined && finding.file === objectFile) {
    const go = document.createElement("button");
    go.type = "button";
    go.textContent = `line ${finding.line}`;
    go.setAttribute("aria-label", `go to line ${finding.line} of the object`);
    const line = finding.line;
    go.addEventListener("click", () => selectLine(objectEditor, line));
    item.append(go, " ");
  } else if (finding.line !== undefined) {
    item.append(`${finding.file}:${finding.line} `);
  }
  const rule = document.createElement("code");
  rule.textContent = finding.rule;
  item.append(rule, " ");
  // `validating-webhook/module.config-value`: the rule reference has an anchor for each webhook rule.
  // A CRD's CEL rule names its rule at the end of the message: `... (rule module.source)`.
  const ruleId =
    /(?:^|\/)([a-z0-9-]+\.[a-z0-9.-]+)$/.exec(finding.rule)?.[1] ??
    /\(rule ([a-z0-9-]+\.[a-z0-9.-]+)\)$/.exec(finding.message)?.[1];
  if (ruleId) {
    const docs = document.createElement("a");
    docs.href = `${rulesDocs}#${ruleId}`;
    docs.textContent = "docs";
    docs.rel = "noreferrer";
    docs.setAttribute("aria-label", `the rule ${ruleId} in the rule reference`);
    item.append("(", docs, ") ");
  }
  item.append(`${finding.severity}: ${finding.object ? `${finding.object}: ` : ""}${finding.message}`);
  return item;
}

function selectLine(editor: HTMLTextAreaElement, line: number): void {
  const lines = editor.value.split("\n");
  const start = lines.slice(0, line - 1).reduce((sum, text) => sum + text.length + 1, 0);
  editor.focus();
  editor.setSelectionRange(start, start + (lines[line - 1]?.length ?? 0));
}

/** The mutating webhook's JSON Patch as a diff of the object: `+` added, `-` removed, `~` replaced. */
function mutationDiff(mutation: Mutation): string {
  const signs: Record<string, string> = { add: "+", remove: "-", replace: "~" };
  const lines = mutation.patch.map((operation) => {
    const sign = signs[operation.op] ?? operation.op;
    const value = "value" in operation ? `: ${JSON.stringify(operation.value)}` : "";
    return `${sign} ${operation.path}${value}`;
  });
  return [`${mutation.object} (line ${mutation.line}), as the mutating webhook patches it:`, ...lines].join(
    "\n",
  );
}

/** The gutter beside the object's editor: line numbers, and a mark on each line a finding is about. */
function markLines(findings: readonly Finding[]): void {
  const marks = new Map<number, string>();
  for (const finding of findings) {
    if (finding.file !== objectFile || finding.line === undefined) continue;
    if (finding.severity === "error" || !marks.has(finding.line)) marks.set(finding.line, finding.severity);
  }
  const count = objectEditor.value.split("\n").length;
  objectLines.replaceChildren(
    ...Array.from({ length: count }, (_, i) => {
      const line = document.createElement("span");
      const mark = marks.get(i + 1);
      line.textContent = `${mark === "error" ? "✖" : mark ? "▲" : " "}${String(i + 1).padStart(4)}\n`;
      if (mark) line.className = mark;
      return line;
    }),
  );
  objectLines.scrollTop = objectEditor.scrollTop;
}

/** The most of a picked folder read into the page: its schema files, not a whole checkout's. */
const maxFolderBytes = 32 * 1024 * 1024;

/** Reads the module tree of a picked folder (its schemas and values.yaml files) and judges against it. */
async function pickFolder(): Promise<void> {
  const picked = [...(modulesFolder.files ?? [])];
  if (picked.length === 0) return;
  // Busy from now on: the verdict shown is no longer the one on the chosen tree.
  judged++;
  verdict.setAttribute("aria-busy", "true");
  modulesRead.textContent = await readFolder(picked).catch((error: unknown) => String(error));
  scheduleUpdate();
}

/** Mounts the picked files' module tree and chooses it; says what was read, or why nothing was. */
async function readFolder(picked: File[]): Promise<string> {
  // A browser without folder picking gives the files without their folder: nothing to mount.
  const name = picked[0]?.webkitRelativePath.split("/")[0] ?? "";
  if (name === "") return "not read: pick a folder (this browser gave files without their folder)";
  const wanted = picked.filter((file) => isTreeFile(file.webkitRelativePath));
  const bytes = wanted.reduce((sum, file) => sum + file.size, 0);
  if (bytes > maxFolderBytes)
    return `${name}: not read, its schema files hold ${bytes} bytes, more than the ${maxFolderBytes} read here`;
  const files: FolderFile[] = await Promise.all(
    wanted.map(async (file) => ({ path: file.webkitRelativePath, text: await file.text() })),
  );
  const tree = mountFolder(name, files);
  for (const option of [...modulesChoice.options]) if (option.value.startsWith("folder:")) option.remove();
  modulesChoice.append(treeOption(tree.id, tree.name));
  modulesChoice.value = tree.id;
  const hooks = tree.globalHooksDir ? `, global hooks ${folderPathShown(tree.globalHooksDir)}` : "";
  return `${name}: ${plural(files.length, "file")} read (of ${picked.length}); modules dir ${folderPathShown(tree.modulesDir)}${hooks}`;
}

let pending: ReturnType<typeof setTimeout> | undefined;

/** The verdict follows the text: judged once typing pauses for a moment. */
function scheduleUpdate(): void {
  // A verdict still being computed on the text before this change is dropped when it arrives.
  const ticket = ++judged;
  clearTimeout(pending);
  verdict.setAttribute("aria-busy", "true");
  pending = setTimeout(() => void update(ticket), 60);
}

function loadExample(index: number): void {
  const example = examples[index];
  if (!example) return;
  showState({
    object: example.object,
    old: example.old ?? "",
    client: currentState().client,
    tree: example.tree ?? "",
  });
  objectEditor.scrollTop = 0;
  scheduleUpdate();
}

for (const [index, example] of examples.entries()) {
  const option = document.createElement("option");
  option.value = String(index);
  option.textContent = example.name;
  exampleChoice.append(option);
}
exampleChoice.addEventListener("change", () => loadExample(Number(exampleChoice.value)));
modulesChoice.append(
  treeOption("", "none: ConfigMap/addon-operator is not judged"),
  ...bundledTrees.map((tree) => treeOption(tree.id, tree.name)),
);
modulesFolder.addEventListener("change", () => void pickFolder());
for (const control of [objectEditor, oldEditor]) control.addEventListener("input", scheduleUpdate);
for (const control of [clientChoice, modulesChoice]) control.addEventListener("change", scheduleUpdate);
objectEditor.addEventListener("scroll", () => {
  objectLines.scrollTop = objectEditor.scrollTop;
});
window.addEventListener("hashchange", async () => {
  const state = await decodeState(location.hash);
  if (state && JSON.stringify(state) !== JSON.stringify(currentState())) {
    showState(state);
    scheduleUpdate();
  }
});

/** The state the address bar holds (a share link), else the first example. */
async function start(): Promise<void> {
  const shared = await decodeState(location.hash);
  if (shared) {
    showState(shared);
    scheduleUpdate();
  } else loadExample(0);
}

void start();
