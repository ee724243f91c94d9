import { readFileSync } from "node:fs";
import { byRule, type FieldErrorList, fieldError } from "../../admission/field-errors.js";
import { errorRules, type Native, type RuleId, warningRules } from "../../admission/rule-catalogue.js";
import { type FieldWarning, warningAt } from "../../admission/warning.js";
import { writeJson } from "../../base/exact-json.js";
import { FieldPath } from "../../base/field-path.js";
import { type WorkBudget, WorkBudgetExceeded } from "../../budget/work-budget.js";
import { present } from "../../cel/policy-cel.js";
import { someString } from "../../cel/schema-strings.js";
import type { Module } from "../../generated/module.js";
import { type ExecResult, executeTemplate } from "../../go-template/exec.js";
import {
  hasTemplate,
  type JsonKind,
  type OutputPart,
  outputJsonKinds,
  type ParseResult,
  type PrintedValue,
  parseTemplate,
  type TemplateAnalysis,
} from "../../go-template/index.js";
import { jsonKind } from "../../go-template/json-kind.js";
import { type GoMap, Unsupported } from "../../go-template/values.js";
import { LruCache } from "../../memo/lru-cache.js";
import { generatedSchemaUrl } from "../../schema/generated-schema.js";
import type { JsonSchema } from "../../schema/schema-source.js";
import { installInputAt, installInputErrors } from "./install-inputs.js";
import { integerValue, templateConfig } from "./template-data.js";

const render = "forkspacer/forkspacer v0.1.24 api/v1/module_types.go, RenderHelmSpec/RenderCustomSpec";

/**
 * Go templates are parsed and executed only by the webhook; a narrowed webhook is called for a Module
 * with a string that may hold one under spec.helm or spec.custom (what CEL can see of free-form values).
 */
const templates: Native = {
  by: "webhook",
  why: "Go's text/template: parsing and executing a template is beyond CEL",
  callWhen: (() => {
    const schema = JSON.parse(readFileSync(generatedSchemaUrl("module"), "utf8")) as JsonSchema;
    const template = (value: string) => `(${value}.contains('{{') && ${value}.contains('}}'))`;
    return ["object.spec.helm", "object.spec.custom"]
      .map((path) => `(${present(path)} && ${someString(schema, path, template)})`)
      .join(" || ");
  })(),
};

/** Templates checked as the operator renders them: Go text/template, its built-ins and randBase62. */
export const templateRules = [
  ...errorRules({
    "module.template-syntax": {
      summary: "a template Go's text/template cannot parse",
      realSystem: "the install fails on the parse error",
      upstream: `${render}, renderInterface`,
      native: templates,
    },
    "module.template-function": {
      summary:
        "a template calling a function the operator does not define (no sprig: only Go's built-ins and randBase62)",
      realSystem: "the install fails: function not defined",
      upstream: `${render}, renderInterface (template.FuncMap)`,
      native: templates,
    },
    "module.template-exec": {
      summary:
        "a template whose execution fails (Go's error, `exceeded maximum template depth (100000)` for endless recursion included)",
      realSystem: "the install fails on the execution error",
      upstream: `${render}, renderInterface`,
      native: templates,
    },
    "module.template-json-type": {
      summary: "a template whose output, read again as JSON, is not a string where the field is one",
      realSystem: "the rendered text is parsed as JSON; decoding a number into a string field fails",
      upstream: `${render}, renderInterface (json.Unmarshal)`,
      native: templates,
    },
  }),
  ...warningRules({
    "module.template-warning": {
      summary: "a template that renders <no value> or may render the wrong JSON type",
      realSystem: "a missing key renders <no value> silently",
      upstream: `${render}, renderInterface`,
      native: templates,
    },
  }),
];

/**
 * What a template reading a config value beyond Go's int range is told: the operator's int(v) of it is
 * undefined in Go, so the template is not executed (a documented limit).
 */
export const bigIntegerNotChecked =
  "a value beyond Go's int range (int() of it is undefined in Go): not checked";

/** The one function the operator adds to Go's built-ins (api/v1/module_types.go, getTemplateFuncMap). */
const operatorFunctions = ["randBase62"];
const noValue: PrintedValue = { kind: "text", text: "<no value>" };

export interface TemplateVerdict {
  errors: FieldErrorList;
  warnings: FieldWarning[];
}

/**
 * Templates checked as the operator renders them (RenderHelmSpec, RenderCustomSpec, renderInterface):
 * every string value under spec.helm (data: config, releaseName, namespace; spec.helm.namespace itself
 * without namespace) or spec.custom (data: config) that contains both `{{` and `}}` is parsed with Go's
 * text/template and the functions Go has plus randBase62, executed, and the output decoded as JSON.
 * Denied: a parse error or unknown function (the install fails), and output that will certainly decode
 * to a JSON number, boolean, list or map where the operator then decodes it into a string field (the
 * install fails). Warned: reads of data the operator does not pass (they render `<no value>`), and
 * output that may decode to a non-string. spec.config is immutable, so what a config field prints is
 * known: its value, or its default when spec.config omits it.
 */
export function validateTemplates(
  module: Module,
  budget: WorkBudget,
  sentSpec: unknown = module.spec,
): TemplateVerdict {
  const verdict = new Verdict();
  const config = configPrinter(module);
  const helm = module.spec.helm;
  const release = releaseOf(helm, sentSpec);
  const runner = new Runner(module, release, budget);
  if (helm) {
    const namespace = release.existingRelease?.namespace ?? release.namespace ?? "default";
    const root = {
      config,
      releaseName: literal(release.existingRelease?.name ?? release.releaseName),
      namespace: hasTemplate(namespace) ? undefined : literal(namespace),
    };
    // The strings the operator renders are those of the spec as sent, whatever today's schema says of
    // other values beside them (a repo whose url is "" still has its version rendered).
    forEachTemplate(mapAt(sentSpec, "helm") ?? helm, helmPath, budget, (text, path, freeForm) => {
      // The namespace is rendered first, with data that has no namespace yet.
      const data = isPath(path, helmPath, "namespace") ? { ...root, namespace: null } : root;
      checkTemplate(text, path, freeForm, data, "helm", verdict, runner, budget);
    });
  }
  if (module.spec.custom) {
    const customPath = FieldPath.root("spec").child("custom");
    forEachTemplate(
      mapAt(sentSpec, "custom") ?? module.spec.custom,
      customPath,
      budget,
      (text, path, freeForm) =>
        checkTemplate(text, path, freeForm, { config }, "custom", verdict, runner, budget),
    );
  }
  return verdict.done();
}

const helmPath = FieldPath.root("spec").child("helm");

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
function releaseOf(helm: Module["spec"]["helm"], sentSpec: unknown): Release {
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
function mapAt(value: unknown, key: string): Record<string, unknown> | undefined {
  const at =
    value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
  return at !== null && typeof at === "object" && !Array.isArray(at)
    ? (at as Record<string, unknown>)
    : undefined;
}

/** Whether `path` is `root` followed by the fields `names` (a walk up a few steps, no rendering). */
function isPath(path: FieldPath, root: FieldPath, ...names: string[]): boolean {
  let at: FieldPath | undefined = path;
  for (let i = names.length - 1; i >= 0; i--) {
    if (at?.step?.as !== "field" || at.step.name !== names[i]) return false;
    at = at.parent;
  }
  return at === root;
}

/**
 * Units of the work budget each template found costs besides its characters (looking its parse up,
 * resolving what it reads, its path), and each entry of a map or list walked to find them.
 */
const templateUnits = 200;
const entryUnits = 3;

/** Template warnings kept per object; the rest are counted in one more (the API server keeps 4 KiB). */
const maxTemplateWarnings = 50;

/** The errors and warnings of an object's templates as they are found, warnings bounded in number. */
class Verdict implements TemplateVerdict {
  readonly errors: FieldErrorList = [];
  readonly warnings: FieldWarning[] = [];
  private warningsLeftOut = 0;

  error(rule: RuleId, error: FieldErrorList[number]): void {
    for (const e of byRule(rule, [error])) this.errors.push(e);
  }

  /** A warning about the template at `path`, made (and its path rendered) only when it is kept. */
  warn(path: FieldPath, message: () => string): void {
    if (this.warnings.length < maxTemplateWarnings) this.warnings.push(warningAt(path, message()));
    else this.warningsLeftOut++;
  }

  done(): TemplateVerdict {
    if (this.warningsLeftOut > 0)
      this.warnings.push({ message: `... and ${this.warningsLeftOut} more template warnings` });
    return { errors: this.errors, warnings: this.warnings };
  }
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
function parsedTemplate(text: string, budget: WorkBudget): ParseResult {
  const parse = () => parseTemplate(text, { functions: operatorFunctions, budget });
  return text.length <= parseCacheMaxText
    ? parseCache.getOrSet(text, parse, () => 16 * text.length)
    : parse();
}

/** What each root key prints: undefined when unknown, null when the operator does not pass it. */
type Data = {
  config: (alias: string) => PrintedValue;
  releaseName?: PrintedValue | undefined;
  namespace?: PrintedValue | null | undefined;
};

const literal = (text: string | undefined): PrintedValue | undefined =>
  text === undefined ? undefined : { kind: "text", text };

function configPrinter(module: Module): (alias: string) => PrintedValue {
  const values = module.spec.config ?? {};
  // Built when a template first reads config. Duplicate aliases: the operator keeps the later item's value.
  let items: Map<string, NonNullable<Module["config"]>[number]> | undefined;
  // What each alias prints, worked out once per Module (a template may read one several times).
  const printed = new Map<string, PrintedValue>();
  return (alias) => {
    let value = printed.get(alias);
    if (value === undefined) {
      value = print(alias);
      printed.set(alias, value);
    }
    return value;
  };
  function print(alias: string): PrintedValue {
    if (items === undefined) {
      items = new Map();
      for (const item of module.config ?? []) items.set(item.alias, item);
    }
    const item = items.get(alias);
    if (!item) return noValue;
    const given = Object.hasOwn(values, alias) ? values[alias] : undefined;
    if (item.integer) {
      // The value the template data holds (template-data.ts): undecided where Go's int(v) is undefined.
      const value = integerValue(item.integer, given);
      return value === undefined ? { kind: "any" } : { kind: "text", text: String(value) };
    }
    if (item.boolean)
      return {
        kind: "text",
        text: String(typeof given === "boolean" ? given : (item.boolean.default ?? false)),
      };
    const spec = item.string ?? item.option;
    if (spec) return { kind: "text", text: typeof given === "string" ? given : (spec.default ?? "") };
    // Its default, a []string, as Go prints one (a value given is refused before rendering).
    if (item.multipleOptions)
      return { kind: "text", text: `[${(item.multipleOptions.default ?? []).join(" ")}]` };
    return { kind: "any" };
  }
}

function checkTemplate(
  text: string,
  path: FieldPath,
  freeForm: boolean,
  data: Data,
  source: "helm" | "custom",
  verdict: Verdict,
  runner: Runner,
  budget: WorkBudget,
): void {
  // Work that runs out here names the template it was on.
  try {
    checkTemplateWithin(text, path, freeForm, data, source, verdict, runner, budget);
  } catch (e) {
    if (e instanceof WorkBudgetExceeded && e.field === undefined)
      throw new WorkBudgetExceeded(e.what, e.limit, path, e.allowance);
    throw e;
  }
}

function checkTemplateWithin(
  text: string,
  path: FieldPath,
  freeForm: boolean,
  data: Data,
  source: "helm" | "custom",
  verdict: Verdict,
  runner: Runner,
  budget: WorkBudget,
): void {
  budget.charge(templateUnits + text.length, "checking templates");
  const parsed = parsedTemplate(text, budget);
  if (!parsed.ok) {
    const rule = /function ".*" not defined/.test(parsed.error.message)
      ? "module.template-function"
      : "module.template-syntax";
    verdict.error(
      rule,
      fieldError.invalid(path, text, `${parsed.error.message} (the operator cannot render it)`),
    );
    return;
  }
  const passed = source === "helm" ? "config, releaseName and namespace" : "only config";
  // Why fields render <no value>, each once, in the order first met.
  let absent: Set<string> | undefined;
  const note = (why: string) => {
    absent ??= new Set();
    absent.add(why);
  };
  const resolve = (field: string[]): PrintedValue => {
    const [head, alias] = field;
    if (head === "config") {
      if (alias === undefined || field.length > 2) return { kind: "any" };
      const printed = data.config(alias);
      if (printed === noValue) note(`.config.${alias} is not declared in the config schema`);
      return printed;
    }
    if ((head === "releaseName" || head === "namespace") && field.length === 1) {
      const printed = data[head];
      if (printed === null || (source === "custom" && printed === undefined)) {
        note(
          `.${head} is not passed here (${head === "namespace" ? "namespace is rendered first" : passed})`,
        );
        return noValue;
      }
      return printed ?? { kind: "any" };
    }
    if (head !== undefined && field.length === 1) {
      note(`.${head} is not passed (the operator passes ${passed})`);
      return noValue;
    }
    return { kind: "any" };
  };
  for (const field of parsed.template.analysis.fields) resolve(field.path);
  if (absent) for (const why of absent) verdict.warn(path, () => `${path}: ${why}: it renders <no value>`);
  // A plain template's text is known without executing it, unless it prints something only the
  // operator's data knows (a rendered namespace): then it is executed like any other.
  const plain = isPlain(parsed.template.analysis)
    ? runner.plainRendering(parsed.template.analysis.output, resolve, `${source}${data.namespace === null}`)
    : undefined;
  const executed: Execution =
    plain !== undefined && plain.kind !== "unknown" ? plain : runner.run(text, parsed, source, path);
  if (executed.kind === "certain") {
    const { result } = executed;
    if (!result.ok) {
      verdict.error("module.template-exec", fieldError.invalid(path, text, result.error));
      return;
    }
    if (freeForm) return;
    const kind = runner.outputKind(result.output);
    if (stringKinds.has(kind)) {
      const input = installInputAt(path);
      if (input) {
        // What the field holds once the operator decodes the output into its Go string field.
        const value =
          kind === "string" ? (JSON.parse(result.output) as string) : kind === "null" ? "" : result.output;
        verdict.errors.push(...installInputErrors(input, path, value, text, true));
      }
      return;
    }
    const detail = `renders ${JSON.stringify(clip(result.output))}, a JSON ${kind}, which the operator cannot decode into this string field`;
    verdict.error("module.template-json-type", fieldError.invalid(path, text, detail));
    return;
  }
  if (executed.kind === "random") {
    const { message } = executed;
    verdict.warn(path, () => `${path}: ${message}`);
    return;
  }
  if (executed.kind === "varies") {
    if (freeForm) return;
    const input = installInputAt(path);
    const [first = ""] = executed.outputs;
    const kind = jsonKind(first);
    if (!stringKinds.has(kind)) {
      const detail = `renders as a JSON ${kind}, which the operator cannot decode into this string field`;
      verdict.errors.push(...byRule("module.template-json-type", [fieldError.invalid(path, text, detail)]));
      return;
    }
    if (!input) return;
    const found = executed.outputs.map((output) =>
      installInputErrors(input, path, decodedString(output), text, true),
    );
    if (found.every((errors) => errors.length > 0)) verdict.errors.push(...(found[0] ?? []));
    else {
      const failing = found.find((errors) => errors.length > 0)?.[0];
      if (failing)
        verdict.warnings.push(
          warningAt(path, `${path}: may fail, depending on randBase62: ${failing.detail}`),
        );
    }
    return;
  }
  if (freeForm) return;
  const kinds = runner.outputKinds(parsed.template.analysis.output, resolve, data.namespace === null);
  let wrong: JsonKind[] | undefined;
  for (const kind of kinds) {
    if (stringKinds.has(kind)) continue;
    wrong ??= [];
    wrong.push(kind);
  }
  if (wrong === undefined) return;
  if (wrong.length === kinds.size) {
    const detail = `renders as a JSON ${describe(wrong)}, which the operator cannot decode into this string field`;
    verdict.error("module.template-json-type", fieldError.invalid(path, text, detail));
  } else {
    const kindsText = describe(wrong);
    verdict.warn(path, () => `${path} may render as a JSON ${kindsText}: the operator would fail on it`);
  }
}

/** A string-kind output as the operator's Go string field holds it: a JSON string decoded, null as "". */
function decodedString(output: string): string {
  const kind = jsonKind(output);
  return kind === "string" ? (JSON.parse(output) as string) : kind === "null" ? "" : output;
}

/** Decoded kinds a Go string field takes: text left as it is, a JSON string, or null (left empty). */
const stringKinds = new Set<JsonKind>(["text", "string", "null"]);
const describe = (kinds: JsonKind[]) => kinds.join(" or ");

/**
 * Where a node's rendered path ends, as far as the free-form rule needs: `….values`, `….outputs`, an
 * element of either (`….values[3]`), anything else, or inside a free-form field already.
 */
const Tail = { Other: 0, ValuesList: 1, OutputsList: 2, ValuesItem: 3, OutputsItem: 4, FreeForm: 5 } as const;
type Tail = (typeof Tail)[keyof typeof Tail];

const valuesItemKey = /\.values\[\d+\]$/;
const outputsItemKey = /\.outputs\[\d+\]$/;

/**
 * The tail of a path whose last step is `.key`. A key step starts with the only dot `.values[3]`
 * has, so the whole of `.values[3]` (or `.values`) falls within `.key`: the key alone decides.
 */
function keyTail(key: string): Tail {
  if (key.endsWith("]")) {
    const step = `.${key}`;
    return valuesItemKey.test(step)
      ? Tail.ValuesItem
      : outputsItemKey.test(step)
        ? Tail.OutputsItem
        : Tail.Other;
  }
  if (key === "values" || key.endsWith(".values")) return Tail.ValuesList;
  if (key === "outputs" || key.endsWith(".outputs")) return Tail.OutputsList;
  return Tail.Other;
}

/** Nesting walked by recursion; deeper values (never seen in a real chart) are walked iteratively. */
const recursionLimit = 200;

/**
 * Every string value under `root` that has a template (map keys are not rendered), with its path and
 * whether it sits in a free-form field (values[].raw, outputs[].value), which keeps whatever type the
 * string decodes to. A path is rendered only for such a string, from the steps to it; the free-form
 * rule reads the end of a path (which key, which list) from its last steps. A deeply nested raw
 * value cannot exhaust the stack: beyond `recursionLimit` levels the walk goes on iteratively.
 */
function forEachTemplate(
  root: unknown,
  rootPath: FieldPath,
  budget: WorkBudget,
  visit: (text: string, path: FieldPath, freeForm: boolean) => void,
): void {
  if (typeof root === "string") {
    if (hasTemplate(root)) visit(root, rootPath, false);
    return;
  }
  // The roots, spec.helm and spec.custom, are no list and no element of one.
  if (root !== null && typeof root === "object")
    new TemplateWalk(rootPath, budget, visit).walk(root, Tail.Other, 0);
}

class TemplateWalk {
  /** The keys and positions from the root to the value being visited (the first `depth` of them). */
  private readonly steps: (string | number)[] = [];
  /**
   * `paths[d]` is the path of the first `d` steps, for every `d` up to `valid`: a template's path is
   * built from its parent's, one step, as long as the steps above it have not changed since.
   */
  private readonly paths: FieldPath[];
  private valid = 0;
  /**
   * Whether for...in lists exactly Object.keys for an object whose prototype is Object.prototype:
   * it does unless something made a property of Object.prototype enumerable. for...in reads each
   * value through V8's enum cache, where Object.keys would read it by a looked-up key.
   */
  private readonly forInIsOwnKeys = !hasEnumerableKey(Object.prototype);

  constructor(
    rootPath: FieldPath,
    private readonly budget: WorkBudget,
    private readonly visit: (text: string, path: FieldPath, freeForm: boolean) => void,
  ) {
    this.paths = [rootPath];
  }

  private step(depth: number, step: string | number): void {
    this.steps[depth] = step;
    if (this.valid > depth) this.valid = depth;
  }

  /** Each entry of a map or list looked at (a string scanned for `{{` and `}}` is paid when it has both). */
  private entries(n: number): void {
    this.budget.charge(entryUnits * n, "finding templates");
  }

  walk(node: object, tail: Tail, depth: number): void {
    if (depth >= recursionLimit) {
      this.walkIteratively(node, tail, depth);
      return;
    }
    if (Array.isArray(node)) {
      this.entries(node.length);
      const childTail = elementTail(tail);
      for (let i = 0; i < node.length; i++) {
        const child: unknown = node[i];
        if (typeof child === "string") {
          if (!hasTemplate(child)) continue;
          this.step(depth, i);
          this.visit(child, this.path(depth + 1), childTail === Tail.FreeForm);
        } else if (child !== null && typeof child === "object") {
          this.step(depth, i);
          this.walk(child, childTail, depth + 1);
        }
      }
      return;
    }
    const proto = Object.getPrototypeOf(node);
    let n = 0;
    if (proto === null || (proto === Object.prototype && this.forInIsOwnKeys)) {
      for (const key in node) {
        this.entry(key, (node as Record<string, unknown>)[key], tail, depth);
        n++;
      }
    } else {
      for (const key of Object.keys(node)) {
        this.entry(key, (node as Record<string, unknown>)[key], tail, depth);
        n++;
      }
    }
    this.entries(n);
  }

  private entry(key: string, child: unknown, tail: Tail, depth: number): void {
    if (typeof child === "string") {
      if (!hasTemplate(child)) return;
      this.step(depth, key);
      this.visit(child, this.path(depth + 1), memberTail(key, tail) === Tail.FreeForm);
    } else if (child !== null && typeof child === "object") {
      this.step(depth, key);
      this.walk(child, memberTail(key, tail), depth + 1);
    }
  }

  /**
   * The same walk without recursion, below `base` steps: the maps and lists open, innermost last, in
   * parallel stacks (`open` of them in use): the node, its keys (none for a list), the position of
   * the child being visited, and the node's tail.
   */
  private walkIteratively(root: object, rootTail: Tail, base: number): void {
    const nodes: object[] = [root];
    const keyLists: (string[] | undefined)[] = [Array.isArray(root) ? undefined : Object.keys(root)];
    this.entries(Array.isArray(root) ? root.length : (keyLists[0] as string[]).length);
    const positions: number[] = [-1];
    const tails: Tail[] = [rootTail];
    let open = 1;
    while (open > 0) {
      const top = open - 1;
      const node = nodes[top] as object;
      const keys = keyLists[top];
      const tail = tails[top] as Tail;
      const position = (positions[top] as number) + 1;
      positions[top] = position;
      let child: unknown;
      let childTail: Tail;
      if (keys === undefined) {
        if (position >= (node as unknown[]).length) {
          open--;
          continue;
        }
        child = (node as unknown[])[position];
        this.step(base + top, position);
        childTail = elementTail(tail);
      } else {
        if (position >= keys.length) {
          open--;
          continue;
        }
        const key = keys[position] as string;
        child = (node as Record<string, unknown>)[key];
        this.step(base + top, key);
        childTail = memberTail(key, tail);
      }
      if (typeof child === "string") {
        if (hasTemplate(child)) this.visit(child, this.path(base + open), childTail === Tail.FreeForm);
      } else if (child !== null && typeof child === "object") {
        nodes[open] = child;
        keyLists[open] = Array.isArray(child) ? undefined : Object.keys(child);
        this.entries(Array.isArray(child) ? child.length : (keyLists[open] as string[]).length);
        positions[open] = -1;
        tails[open] = childTail;
        open++;
      }
    }
  }

  /** The path of the first `length` steps: the known part of it, and one step for each changed. */
  private path(length: number): FieldPath {
    const paths = this.paths;
    for (let i = Math.min(this.valid, length); i < length; i++) {
      const step = this.steps[i] as string | number;
      const parent = paths[i] as FieldPath;
      paths[i + 1] = typeof step === "number" ? parent.index(step) : parent.child(step);
    }
    if (length > this.valid) this.valid = length;
    return paths[length] as FieldPath;
  }
}

/** The tail of an element of a list with tail `tail`. */
const elementTail = (tail: Tail): Tail =>
  tail === Tail.FreeForm
    ? Tail.FreeForm
    : tail === Tail.ValuesList
      ? Tail.ValuesItem
      : tail === Tail.OutputsList
        ? Tail.OutputsItem
        : Tail.Other;

/** The tail of the member `key` of a map with tail `tail`: values[N].raw and outputs[N].value are free-form. */
const memberTail = (key: string, tail: Tail): Tail =>
  tail === Tail.FreeForm ||
  (key === "raw" && tail === Tail.ValuesItem) ||
  (key === "value" && tail === Tail.OutputsItem)
    ? Tail.FreeForm
    : keyTail(key);

function hasEnumerableKey(object: object): boolean {
  for (const _ in object) return true;
  return false;
}

/**
 * Whether a template only prints text and data fields that cannot fail (`.config.alias`,
 * `.releaseName`, any other top-level key): its execution cannot fail and the output analysis is
 * exact, so it is not executed (most real templates; it keeps a review's cost where it was).
 */
function isPlain(analysis: TemplateAnalysis): boolean {
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

const clip = (s: string) => (s.length > 64 ? `${s.slice(0, 64)}...` : s);

type Execution =
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
class Runner {
  // Made on first use: most objects have only templates that need neither.
  private memo: Map<string, Execution> | undefined;
  private data: { helm: GoMap; namespace: GoMap; custom: GoMap } | null | undefined;
  /** Output kinds by the output's parts (templates differing only in comments or logic share them). */
  private kindMemo: Map<string, Set<JsonKind>> | undefined;
  /** Plain templates' texts by the output's parts (templates differing only in comments share them). */
  private plainMemo: Map<string, Execution> | undefined;
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
