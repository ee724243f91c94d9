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
    forEachString(helm, helmPath, (text, path, freeForm) => {
      // The namespace is rendered first, with data that has no namespace yet.
      const data = path.toString() === "spec.helm.namespace" ? { ...root, namespace: null } : root;
      checkTemplate(text, path, freeForm, data, "helm", verdict);
    });
  }
  if (module.spec.custom) {
    const customPath = FieldPath.root("spec").child("custom");
    forEachString(module.spec.custom, customPath, (text, path, freeForm) =>
      checkTemplate(text, path, freeForm, { config }, "custom", verdict),
    );
  }
  return verdict;
}

/**
 * Parsed templates by text: Modules made from one chart share their templates, and an object is
 * validated again on every update. Bounded in entries and in the length of a text kept.
 */
const parseCache = new Map<string, ParseResult>();
const parseCacheLimit = 1024;
const parseCacheMaxText = 4096;

function parsedTemplate(text: string): ParseResult {
  const cached = parseCache.get(text);
  if (cached) {
    // Most recently used last, so that the least recently used is evicted first.
    parseCache.delete(text);
    parseCache.set(text, cached);
    return cached;
  }
  const parsed = parseTemplate(text, { functions: operatorFunctions });
  if (text.length <= parseCacheMaxText) {
    if (parseCache.size >= parseCacheLimit) parseCache.delete(parseCache.keys().next().value as string);
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
  return (alias) => {
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
  };
}

function checkTemplate(
  text: string,
  path: FieldPath,
  freeForm: boolean,
  data: Data,
  source: "helm" | "custom",
  verdict: TemplateVerdict,
): void {
  if (!hasTemplate(text)) return;
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
  const absent = new Set<string>();
  const resolve = (field: string[]): PrintedValue => {
    const [head, alias] = field;
    if (head === "config") {
      if (alias === undefined || field.length > 2) return { kind: "any" };
      const printed = data.config(alias);
      if (printed === noValue) absent.add(`.config.${alias} is not declared in the config schema`);
      return printed;
    }
    if ((head === "releaseName" || head === "namespace") && field.length === 1) {
      const printed = data[head];
      if (printed === null || (source === "custom" && printed === undefined)) {
        absent.add(
          `.${head} is not passed here (${head === "namespace" ? "namespace is rendered first" : passed})`,
        );
        return noValue;
      }
      return printed ?? { kind: "any" };
    }
    if (head !== undefined && field.length === 1) {
      absent.add(`.${head} is not passed (the operator passes ${passed})`);
      return noValue;
    }
    return { kind: "any" };
  };
  for (const field of parsed.template.analysis.fields) resolve(field.path);
  for (const why of absent) verdict.warnings.push(fitWarning(`${path}: ${why}: it renders <no value>`));
  if (freeForm) return;
  const kinds = outputJsonKinds(parsed.template.analysis.output, resolve);
  const wrong = [...kinds].filter((kind) => !stringKinds.has(kind));
  if (wrong.length === 0) return;
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
 * Every string value under `value` (map keys are not rendered), with its path and whether it sits in
 * a free-form field (values[].raw, outputs[].value), which keeps whatever type the string decodes to.
 * Iterative: a deeply nested raw value cannot exhaust the stack.
 */
function forEachString(
  root: unknown,
  rootPath: FieldPath,
  visit: (text: string, path: FieldPath, freeForm: boolean) => void,
): void {
  const stack: [unknown, FieldPath, boolean][] = [[root, rootPath, false]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [value, path, freeForm] = next;
    if (typeof value === "string") visit(value, path, freeForm);
    else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], path.index(i), freeForm]);
    } else if (value !== null && typeof value === "object") {
      const at = path.toString();
      const entries = Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i] as [string, unknown];
        const free =
          freeForm ||
          (key === "raw" && /\.values\[\d+\]$/.test(at)) ||
          (key === "value" && /\.outputs\[\d+\]$/.test(at));
        stack.push([child, path.child(key), free]);
      }
    }
  }
}
