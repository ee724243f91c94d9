import { byRule, type FieldErrorList, fieldError } from "../../admission/field-errors.js";
import { FieldPath } from "../../admission/field-path.js";
import type { Module } from "../../generated/module.js";
import {
  hasTemplate,
  type JsonKind,
  outputJsonKinds,
  type ParseResult,
  type PrintedValue,
  parseTemplate,
} from "../../go-template/index.js";
import { fitWarning } from "../../validation/warning.js";

/** The one function the operator adds to Go's built-ins (api/v1/module_types.go, getTemplateFuncMap). */
const operatorFunctions = ["randBase62"];
const noValue: PrintedValue = { kind: "text", text: "<no value>" };

export interface TemplateVerdict {
  errors: FieldErrorList;
  warnings: string[];
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
export function validateTemplates(module: Module): TemplateVerdict {
  const verdict: TemplateVerdict = { errors: [], warnings: [] };
  const config = configPrinter(module);
  const helm = module.spec.helm;
  if (helm) {
    const namespace = helm.existingRelease?.namespace ?? helm.namespace ?? "default";
    const root = {
      config,
      releaseName: literal(helm.existingRelease?.name ?? helm.releaseName),
      namespace: hasTemplate(namespace) ? undefined : literal(namespace),
    };
    const helmPath = FieldPath.root("spec").child("helm");
    forEachTemplate(helm, helmPath, (text, path, freeForm) => {
      // The namespace is rendered first, with data that has no namespace yet.
      const data = path.toString() === "spec.helm.namespace" ? { ...root, namespace: null } : root;
      checkTemplate(text, path, freeForm, data, "helm", verdict);
    });
  }
  if (module.spec.custom) {
    const customPath = FieldPath.root("spec").child("custom");
    forEachTemplate(module.spec.custom, customPath, (text, path, freeForm) =>
      checkTemplate(text, path, freeForm, { config }, "custom", verdict),
    );
  }
  return verdict;
}

/**
 * Parsed templates by text: Modules made from one chart share their templates, and an object is
 * validated again on every update (the API server sends the stored spec again with every status,
 * label or finalizer change, and ratcheting validates the old object as well). A parse depends on the
 * text alone (the function list is fixed), so the text is the whole key. Bounded in entries and in the
 * length of a text kept: two generations of at most `parseCacheLimit / 2` texts each. A hit in the
 * current one costs one lookup; a hit in the previous one moves the text to the current one; when the
 * current one is full it becomes the previous one, and what was not used since is dropped: an LRU
 * approximation without reordering a map on every hit.
 */
let parseCache = new Map<string, ParseResult>();
let previousParses = new Map<string, ParseResult>();
const parseCacheLimit = 1024;
const parseCacheMaxText = 4096;

function parsedTemplate(text: string): ParseResult {
  const cached = parseCache.get(text);
  if (cached) return cached;
  const parsed = previousParses.get(text) ?? parseTemplate(text, { functions: operatorFunctions });
  if (text.length <= parseCacheMaxText) {
    if (parseCache.size >= parseCacheLimit / 2) {
      previousParses = parseCache;
      parseCache = new Map();
    }
    parseCache.set(text, parsed);
  }
  return parsed;
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
  const items = new Map<string, NonNullable<Module["config"]>[number]>();
  // Duplicate aliases: the operator keeps the later item's value.
  for (const item of module.config ?? []) items.set(item.alias, item);
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
    const item = items.get(alias);
    if (!item) return noValue;
    const given = Object.hasOwn(values, alias) ? values[alias] : undefined;
    if (item.integer) {
      const value = typeof given === "number" ? Math.trunc(given) : (item.integer.default ?? 0);
      return { kind: "text", text: String(value) };
    }
    if (item.boolean)
      return {
        kind: "text",
        text: String(typeof given === "boolean" ? given : (item.boolean.default ?? false)),
      };
    const spec = item.string ?? item.option;
    if (spec) return { kind: "text", text: typeof given === "string" ? given : (spec.default ?? "") };
    return { kind: "any" };
  }
}

function checkTemplate(
  text: string,
  path: FieldPath,
  freeForm: boolean,
  data: Data,
  source: "helm" | "custom",
  verdict: TemplateVerdict,
): void {
  const parsed = parsedTemplate(text);
  if (!parsed.ok) {
    const rule = /function ".*" not defined/.test(parsed.error.message)
      ? "module.template-function"
      : "module.template-syntax";
    verdict.errors.push(
      ...byRule(rule, [
        fieldError.invalid(path, text, `${parsed.error.message} (the operator cannot render it)`),
      ]),
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
  if (absent)
    for (const why of absent) verdict.warnings.push(fitWarning(`${path}: ${why}: it renders <no value>`));
  if (freeForm) return;
  const kinds = outputJsonKinds(parsed.template.analysis.output, resolve);
  let wrong: JsonKind[] | undefined;
  for (const kind of kinds) {
    if (stringKinds.has(kind)) continue;
    wrong ??= [];
    wrong.push(kind);
  }
  if (wrong === undefined) return;
  if (wrong.length === kinds.size) {
    const detail = `renders as a JSON ${describe(wrong)}, which the operator cannot decode into this string field`;
    verdict.errors.push(...byRule("module.template-json-type", [fieldError.invalid(path, text, detail)]));
  } else {
    verdict.warnings.push(
      fitWarning(`${path} may render as a JSON ${describe(wrong)}: the operator would fail on it`),
    );
  }
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

/**
 * Every string value under `root` that has a template (map keys are not rendered), with its path and
 * whether it sits in a free-form field (values[].raw, outputs[].value), which keeps whatever type the
 * string decodes to. A path is rendered only for such a string, from the maps and lists open above it;
 * the free-form rule reads the end of a path (which key, which list) from its last steps.
 * Iterative: a deeply nested raw value cannot exhaust the stack.
 */
function forEachTemplate(
  root: unknown,
  rootPath: FieldPath,
  visit: (text: string, path: FieldPath, freeForm: boolean) => void,
): void {
  if (typeof root === "string") {
    if (hasTemplate(root)) visit(root, rootPath, false);
    return;
  }
  if (root === null || typeof root !== "object") return;
  // The maps and lists open, outermost first (parallel stacks, `depth` of them in use): the node,
  // its keys (none for a list), the position of the child being visited, and the node's tail.
  const nodes: object[] = [root];
  const keyLists: (string[] | undefined)[] = [Array.isArray(root) ? undefined : Object.keys(root)];
  const positions: number[] = [-1];
  // The roots, spec.helm and spec.custom, are no list and no element of one.
  const tails: Tail[] = [Tail.Other];
  let depth = 1;
  while (depth > 0) {
    const top = depth - 1;
    const node = nodes[top] as object;
    const keys = keyLists[top];
    const tail = tails[top] as Tail;
    const position = (positions[top] as number) + 1;
    positions[top] = position;
    let child: unknown;
    let free = tail === Tail.FreeForm;
    let key: string | undefined;
    if (keys === undefined) {
      if (position >= (node as unknown[]).length) {
        depth--;
        continue;
      }
      child = (node as unknown[])[position];
    } else {
      if (position >= keys.length) {
        depth--;
        continue;
      }
      key = keys[position] as string;
      child = (node as Record<string, unknown>)[key];
      free ||= (key === "raw" && tail === Tail.ValuesItem) || (key === "value" && tail === Tail.OutputsItem);
    }
    if (typeof child === "string") {
      if (hasTemplate(child)) visit(child, render(rootPath, keyLists, positions, depth), free);
    } else if (child !== null && typeof child === "object") {
      const list = Array.isArray(child);
      nodes[depth] = child;
      keyLists[depth] = list ? undefined : Object.keys(child);
      positions[depth] = -1;
      tails[depth] = free
        ? Tail.FreeForm
        : key !== undefined
          ? keyTail(key)
          : tail === Tail.ValuesList
            ? Tail.ValuesItem
            : tail === Tail.OutputsList
              ? Tail.OutputsItem
              : Tail.Other;
      depth++;
    }
  }
}

/** The path to the value the `depth` open maps and lists are at, built as the walk would have node by node. */
function render(
  rootPath: FieldPath,
  keyLists: readonly (string[] | undefined)[],
  positions: readonly number[],
  depth: number,
): FieldPath {
  let path = rootPath;
  for (let i = 0; i < depth; i++) {
    const keys = keyLists[i];
    const position = positions[i] as number;
    path = keys === undefined ? path.index(position) : path.child(keys[position] as string);
  }
  return path;
}
