import { writeJson } from "../../base/exact-json.js";
import { FieldPath } from "../../base/field-path.js";
import type { WorkBudget } from "../../budget/work-budget.js";
import type { Module } from "../../generated/module.js";
import { type ExecResult, executeTemplate } from "../../go/template/exec.js";
import {
  hasTemplate,
  type JsonKind,
  type OutputPart,
  outputJsonKinds,
  type ParseResult,
  type PrintedValue,
  parseTemplate,
  type TemplateAnalysis,
} from "../../go/template/index.js";
import { jsonKind } from "../../go/template/json-kind.js";
import { type GoMap, Unsupported } from "../../go/template/values.js";
import { LruCache } from "../../memo/lru-cache.js";
import { templateConfig } from "./template-data.js";

/**
 * What a template reading a config value beyond Go's int range is told: the operator's int(v) of it is
 * undefined in Go, so the template is not executed (a documented limit).
 */
export const bigIntegerNotChecked =
  "a value beyond Go's int range (int() of it is undefined in Go): not checked";

/** The one function the operator adds to Go's built-ins (api/v1/module_types.go, getTemplateFuncMap). */
const operatorFunctions = ["randBase62"];

export const helmPath = FieldPath.root("spec").child("helm");

/** The release fields the operator passes templates, as strings, and whether a release is adopted. */
interface Release {
  releaseName: string | undefined;
  namespace: string | undefined;
  existingRelease: { name: string | undefined; namespace: string | undefined } | undefined;
}

/**
 * The release fields as the operator reads them: from the spec as sent when they are strings there,
 * whatever today's schema says of them (a releaseName of 60 characters stored before the 53-character
 * limit is what the operator passes, so a new template reading it is judged with it), else from the
 * part of the spec the structure gate kept.
 */
export function releaseOf(helm: Module["spec"]["helm"], sentSpec: unknown): Release {
  const sent = mapAt(sentSpec, "helm");
  const sentRelease = mapAt(sent, "existingRelease");
  const text = (map: Record<string, unknown> | undefined, key: string, kept: string | undefined) => {
    const value = map?.[key];
    return typeof value === "string" ? value : kept;
  };
  const adopted = sent ? sentRelease !== undefined : helm?.existingRelease !== undefined;
  return {
    releaseName: text(sent, "releaseName", helm?.releaseName),
    namespace: text(sent, "namespace", helm?.namespace),
    existingRelease: adopted
      ? {
          name: text(sentRelease, "name", helm?.existingRelease?.name),
          namespace: text(sentRelease, "namespace", helm?.existingRelease?.namespace),
        }
      : undefined,
  };
}

/** The map at `key` of a value, or undefined. */
export function mapAt(value: unknown, key: string): Record<string, unknown> | undefined {
  const at =
    value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
  return at !== null && typeof at === "object" && !Array.isArray(at)
    ? (at as Record<string, unknown>)
    : undefined;
}

/** Whether `path` is `root` followed by the fields `names` (a walk up a few steps, no rendering). */
export function isPath(path: FieldPath, root: FieldPath, ...names: string[]): boolean {
  let at: FieldPath | undefined = path;
  for (let i = names.length - 1; i >= 0; i--) {
    if (at?.step?.as !== "field" || at.step.name !== names[i]) return false;
    at = at.parent;
  }
  return at === root;
}

/**
 * Parsed templates by text: Modules made from one chart share their templates, and an object is
 * validated again on every update (the API server sends the stored spec again with every status,
 * label or finalizer change, and ratcheting validates the old object as well). A parse depends on the
 * text alone (the function list is fixed), so the text is the whole key. Bounded in entries and in the
 * length of a text kept (at most 1,024 texts of 4 KiB), and in bytes: a parse tree is reckoned at 16
 * bytes a character of its text.
 */
const parseCache = new LruCache<ParseResult>({ bytes: 16 * 1024 * 1024, entries: 1024 });
const parseCacheMaxText = 4096;

/** A template's parse, from the cache or charged to `budget` (see go-template's costs). */
export function parsedTemplate(text: string, budget: WorkBudget): ParseResult {
  const parse = () => parseTemplate(text, { functions: operatorFunctions, budget });
  return text.length <= parseCacheMaxText
    ? parseCache.getOrSet(text, parse, () => 16 * text.length)
    : parse();
}

/**
 * Whether a template only prints text and data fields that cannot fail (`.config.alias`,
 * `.releaseName`, any other top-level key): its execution cannot fail and the output analysis is
 * exact, so it is not executed (most real templates; it keeps a review's cost where it was).
 */
export function isPlain(analysis: TemplateAnalysis): boolean {
  if (analysis.functions.length > 0 || analysis.templateCalls.length > 0 || analysis.unresolvedFields > 0)
    return false;
  if (analysis.definedTemplates.length > 0) return false;
  const plainPath = (path: readonly string[]) =>
    path.length === 2 ? path[0] === "config" : path.length === 1 && path[0] !== "config";
  for (const field of analysis.fields) if (!plainPath(field.path)) return false;
  for (const part of analysis.output)
    if (part.kind !== "text" && !(part.kind === "field" && plainPath(part.path))) return false;
  return true;
}

/** The most text an output can print: its texts, and the longest option of each choice. */
function printedLength(output: readonly OutputPart[], resolve: (path: string[]) => PrintedValue): number {
  let n = 0;
  for (const part of output) {
    if (part.kind === "text") n += part.text.length;
    else if (part.kind === "field") {
      const printed = resolve(part.path);
      n += printed.kind === "text" ? printed.text.length : 1;
    } else if (part.kind === "choice")
      n += Math.max(0, ...part.options.map((o) => printedLength(o, resolve)));
    else n += 1;
  }
  return n;
}

/** A short plain rendering (Runner.plainRendering): the data it was rendered with, its cost and text. */
interface ShortPlain {
  data: string;
  cost: number;
  rendered: Execution;
}

export type Execution =
  | { kind: "certain"; result: ExecResult }
  /** Runs with different randBase62 strings rendered different texts, all of one JSON kind. */
  | { kind: "varies"; outputs: string[] }
  | { kind: "random"; message: string }
  | { kind: "unknown" };

/**
 * Runs templates as the operator does (RenderHelmSpec, RenderCustomSpec): Go's text/template with
 * the operator's data, the config built as GetValidatedConfig builds it (ints, bools, strings). One
 * per object: results are memoized by pass and text (a Module repeats its templates), and every
 * execution charges the object's WorkBudget, so the cost is bounded per object, not per template
 * (a review that runs out is denied as a whole, naming the template: WorkBudgetExceeded goes on).
 * randBase62 is random: a template that calls it is run twice, with an all-letters and an all-digits
 * string of the requested length (both are possible results); only what both runs agree on decides.
 */
export class Runner {
  // Made on first use: most objects have only templates that need neither.
  private memo: Map<string, Execution> | undefined;
  private data: { helm: GoMap; namespace: GoMap; custom: GoMap } | null | undefined;
  /** Output kinds by the output's parts (templates differing only in comments or logic share them). */
  private kindMemo: Map<string, Set<JsonKind>> | undefined;
  /** Plain templates' texts by the output's parts (templates differing only in comments share them). */
  private plainMemo: Map<string, Execution> | undefined;
  /**
   * Plain renderings too short for `plainMemo` (under 4096 characters), by the output's parts as one
   * object (a cached parse's, the same for every template of its text) and the data: charged again
   * as when first rendered, not rendered again. Kept no longer than the parse.
   */
  private shortPlain: WeakMap<readonly OutputPart[], ShortPlain> | undefined;
  private outputKindMemo: Map<string, JsonKind> | undefined;
  /**
   * Config aliases left out of the data: values beyond Go's int (int() of them undefined). Templates that
   * read them are not decided; the others are, so one such item hides no other template's failure.
   */
  private opaque: Set<string> | undefined;
  /**
   * Top-level keys left out of the data: a release name not known here (none yet, or one of the wrong
   * shape that the structure gate took out). Templates that read it are not decided; the rest are.
   */
  private opaqueTop: Set<string> | undefined;

  constructor(
    private readonly module: Module,
    private readonly release: Release,
    private readonly budget: WorkBudget,
  ) {}

  run(
    text: string,
    parsed: ParseResult & { ok: true },
    source: "helm" | "custom",
    path: FieldPath,
  ): Execution {
    const data = this.operatorData();
    if (!data) return { kind: "unknown" };
    const big = this.readsBigInteger(parsed.template.analysis);
    if (big !== undefined)
      return { kind: "random", message: `reads .config.${big}, ${bigIntegerNotChecked}` };
    if (this.readsOpaque(parsed.template.analysis)) return { kind: "unknown" };
    const namespacePass = this.release.existingRelease
      ? isPath(path, helmPath, "existingRelease", "namespace")
      : isPath(path, helmPath, "namespace");
    const pass = source === "custom" ? "custom" : namespacePass ? "namespace" : "helm";
    const key = `${pass}\u0000${text}`;
    this.memo ??= new Map();
    let execution = this.memo.get(key);
    if (execution === undefined) {
      execution = this.execute(text, parsed, data[pass]);
      this.memo.set(key, execution);
    }
    return execution;
  }

  /**
   * outputJsonKinds, charged to the object's budget by the length of the text it may build (a
   * template printing a 1 MB value costs 1 MB, however many templates do: the text counts against
   * the review's rendering cap too) and memoized by the output's parts.
   */
  outputKinds(
    output: readonly OutputPart[],
    resolve: (path: string[]) => PrintedValue,
    namespacePass: boolean,
  ): Set<JsonKind> {
    const cost = printedLength(output, resolve);
    // Small outputs are checked directly; large ones are memoized by the output's parts.
    const key = cost >= 4096 ? `${namespacePass ? "n" : "h"}${writeJson(output)}` : undefined;
    if (key !== undefined) this.budget.charge(key.length, "checking this template's output");
    const known = key === undefined ? undefined : this.kindMemo?.get(key);
    if (known !== undefined) return known;
    this.budget.charge(cost, "checking this template's output");
    this.budget.render(cost, "checking this template's output");
    const kinds = outputJsonKinds(output, resolve);
    if (key !== undefined) {
      this.kindMemo ??= new Map();
      this.kindMemo.set(key, kinds);
    }
    return kinds;
  }

  /**
   * What a plain template (isPlain) renders, when every field it prints is known: it cannot fail, so
   * its text is certain without executing it. Charged as outputKinds is (the text it builds, against
   * the rendering cap too) and memoized by the output's parts and the data they read (`data`).
   */
  plainRendering(
    output: readonly OutputPart[],
    resolve: (path: string[]) => PrintedValue,
    data: string,
  ): Execution {
    const short = this.shortPlain?.get(output);
    if (short !== undefined && short.data === data) {
      this.budget.charge(short.cost, "checking this template's output");
      this.budget.render(short.cost, "checking this template's output");
      return short.rendered;
    }
    for (const part of output) {
      if (part.kind === "text") continue;
      if (part.kind !== "field" || resolve(part.path).kind !== "text") return { kind: "unknown" };
    }
    const cost = printedLength(output, resolve);
    const key = cost >= 4096 ? `${data}${writeJson(output)}` : undefined;
    if (key !== undefined) this.budget.charge(key.length, "checking this template's output");
    const known = key === undefined ? undefined : this.plainMemo?.get(key);
    if (known !== undefined) return known;
    this.budget.charge(cost, "checking this template's output");
    this.budget.render(cost, "checking this template's output");
    let text = "";
    for (const part of output) {
      if (part.kind === "text") text += part.text;
      else if (part.kind === "field") text += (resolve(part.path) as { text: string }).text;
    }
    const rendered: Execution = { kind: "certain", result: { ok: true, output: text } };
    if (key !== undefined) {
      this.plainMemo ??= new Map();
      this.plainMemo.set(key, rendered);
    } else {
      this.shortPlain ??= new WeakMap();
      this.shortPlain.set(output, { data, cost, rendered });
    }
    return rendered;
  }

  /** jsonKind of a rendered text; a long one (a plain template's memoized text) is scanned once. */
  outputKind(output: string): JsonKind {
    if (output.length < 4096) return jsonKind(output);
    this.outputKindMemo ??= new Map();
    let kind = this.outputKindMemo.get(output);
    if (kind === undefined) {
      kind = jsonKind(output);
      this.outputKindMemo.set(output, kind);
    }
    return kind;
  }

  /** A config alias the template reads whose value is beyond Go's int (opaque), if any. */
  private readsBigInteger(analysis: TemplateAnalysis): string | undefined {
    if (this.opaque === undefined) return undefined;
    for (const { path } of analysis.fields)
      if (path[0] === "config" && path.length > 1 && this.opaque.has(path[1] as string)) return path[1];
    return undefined;
  }

  private readsOpaque(analysis: TemplateAnalysis): boolean {
    if (this.opaque === undefined && this.opaqueTop === undefined) return false;
    if (analysis.unresolvedFields > 0) return true;
    for (const { path } of analysis.fields) {
      if (path.length === 0 || this.opaqueTop?.has(path[0] as string)) return true;
      if (this.opaque && path[0] === "config" && (path.length === 1 || this.opaque.has(path[1] as string)))
        return true;
    }
    return false;
  }

  private execute(text: string, parsed: ParseResult & { ok: true }, data: GoMap): Execution {
    const { trees, name } = parsed.template;
    let calledRandom = false;
    const run = (fill: string): ExecResult =>
      executeTemplate(text, trees, name, data, {
        budget: this.budget,
        randBase62: (length) => {
          calledRandom = true;
          return fill.repeat(length);
        },
      });
    try {
      const first = run("a");
      if (!calledRandom) return { kind: "certain", result: first };
      // randBase62's strings: all lower-case letters, all digits, all upper-case letters are each possible.
      const runs = [first, run("1"), run("A")];
      const failing = runs.find((r) => !r.ok);
      if (failing && !failing.ok) {
        if (runs.every((r) => !r.ok && r.error === failing.error))
          return { kind: "certain", result: failing };
        return { kind: "random", message: `may fail, depending on randBase62: ${failing.error}` };
      }
      const outputs = runs.map((r) => (r.ok ? r.output : ""));
      if (outputs.every((o) => o === outputs[0])) return { kind: "certain", result: first };
      if (outputs.every((o) => jsonKind(o) === jsonKind(outputs[0] as string)))
        return { kind: "varies", outputs };
      return { kind: "random", message: "may render as a JSON number, depending on randBase62's output" };
    } catch (e) {
      if (e instanceof Unsupported) return { kind: "unknown" };
      throw e;
    }
  }

  /**
   * The operator's data, or null where it is not known here (an item of no type: GetValidatedConfig
   * refuses the Module before rendering). A namespace whose own render fails, is not a string or reads
   * a value not known here leaves `.namespace` undecided for the other templates.
   */
  private operatorData(): { helm: GoMap; namespace: GoMap; custom: GoMap } | null {
    if (this.data !== undefined) return this.data;
    this.data = null;
    const built = templateConfig(this.module);
    if (!built) return null;
    const { config } = built;
    this.opaque = built.opaque;
    const custom = { config };
    const helm = this.module.spec.helm;
    if (!helm) {
      this.data = { helm: custom, namespace: custom, custom };
      return this.data;
    }
    const { existingRelease } = this.release;
    const releaseName = existingRelease ? existingRelease.name : this.release.releaseName;
    if (releaseName === undefined) this.opaqueTop = new Set(["releaseName"]);
    const first: GoMap = releaseName === undefined ? { config } : { config, releaseName };
    const effective = (existingRelease ? existingRelease.namespace : this.release.namespace) ?? "";
    let namespace: string = effective;
    let known = true;
    if (hasTemplate(effective)) {
      // A namespace that does not render to a string fails the install (its own template says so);
      // the other templates are still run, those that read .namespace left undecided.
      known = false;
      const parsed = parsedTemplate(effective, this.budget);
      const executed =
        !parsed.ok || this.readsOpaque(parsed.template.analysis)
          ? undefined
          : this.execute(effective, parsed, first);
      if (executed?.kind === "certain" && executed.result.ok) {
        const output = executed.result.output;
        const kind = jsonKind(output);
        known = kind === "string" || kind === "null" || kind === "text";
        namespace = kind === "string" ? (JSON.parse(output) as string) : kind === "null" ? "" : output;
      }
    }
    if (!known) {
      this.opaqueTop ??= new Set();
      this.opaqueTop.add("namespace");
    }
    this.data = { helm: known ? { ...first, namespace } : first, namespace: first, custom };
    return this.data;
  }
}
