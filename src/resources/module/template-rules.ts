import { readFileSync } from "node:fs";
import { byRule, type FieldErrorList, fieldError } from "../../admission/field-errors.js";
import { errorRules, type Native, type RuleId, warningRules } from "../../admission/rule-catalogue.js";
import { type FieldWarning, warningAt } from "../../admission/warning.js";
import { FieldPath } from "../../base/field-path.js";
import { type WorkBudget, WorkBudgetExceeded } from "../../budget/work-budget.js";
import { present } from "../../cel/policy-cel.js";
import { someString } from "../../cel/schema-strings.js";
import type { Module } from "../../generated/module.js";
import {
  hasTemplate,
  type JsonKind,
  type PrintedValue,
  type TemplateAnalysis,
} from "../../go/template/index.js";
import { jsonKind } from "../../go/template/json-kind.js";
import { generatedSchemaUrl } from "../../schema/generated-schema.js";
import type { JsonSchema } from "../../schema/schema-source.js";
import { installInputAt, installInputErrors } from "./install-inputs.js";
import { integerValue } from "./template-data.js";
import {
  type Execution,
  helmPath,
  isPlain,
  mapAt,
  parsedTemplate,
  Runner,
  releaseOf,
} from "./template-runner.js";
import { forEachTemplate, type TemplateSite } from "./template-walk.js";

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
  const resolutions: Resolutions = new WeakMap();
  if (helm) {
    const namespace = release.existingRelease?.namespace ?? release.namespace ?? "default";
    const root = {
      config,
      releaseName: literal(release.existingRelease?.name ?? release.releaseName),
      namespace: hasTemplate(namespace) ? undefined : literal(namespace),
    };
    // The strings the operator renders are those of the spec as sent, whatever today's schema says of
    // other values beside them (a repo whose url is "" still has its version rendered).
    forEachTemplate(mapAt(sentSpec, "helm") ?? helm, helmPath, budget, (text, site, freeForm) => {
      // The namespace is rendered first, with data that has no namespace yet.
      const data = site.isRootField("namespace") ? { ...root, namespace: null } : root;
      checkTemplate(text, site, freeForm, data, "helm", verdict, runner, budget, resolutions);
    });
  }
  if (module.spec.custom) {
    const customPath = FieldPath.root("spec").child("custom");
    // One object for every template: resolutions are kept for the data they were worked out with.
    const data = { config };
    forEachTemplate(
      mapAt(sentSpec, "custom") ?? module.spec.custom,
      customPath,
      budget,
      (text, site, freeForm) =>
        checkTemplate(text, site, freeForm, data, "custom", verdict, runner, budget, resolutions),
    );
  }
  return verdict.done();
}

/**
 * Units of the work budget each template found costs besides its characters (looking its parse up,
 * resolving what it reads, its path).
 */
const templateUnits = 200;

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

  /** A warning about the template at `site`, made (and its path built) only when it is kept. */
  warn(site: TemplateSite, message: (path: FieldPath) => string): void {
    if (this.warnings.length < maxTemplateWarnings) {
      const path = site.path();
      this.warnings.push(warningAt(path, message(path)));
    } else this.warningsLeftOut++;
  }

  done(): TemplateVerdict {
    if (this.warningsLeftOut > 0)
      this.warnings.push({ message: `... and ${this.warningsLeftOut} more template warnings` });
    return { errors: this.errors, warnings: this.warnings };
  }
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

/**
 * What a template's check works out from its parse and the data alone, the same for every template
 * of that parse checked with that data: worked out once per review (a chart's values repeat their
 * templates, and a cached parse is one object for all of them), not once per template.
 */
interface Resolution {
  readonly data: Data;
  readonly source: "helm" | "custom";
  /** What each field prints. */
  readonly resolve: (field: string[]) => PrintedValue;
  /** Why fields it reads render <no value>, each once, in the order first met. */
  readonly absent: readonly string[] | undefined;
  /** isPlain of its analysis. */
  readonly plain: boolean;
  /** The data a plain rendering depends on, as Runner.plainRendering keys it. */
  readonly dataKey: string;
}

/** Resolutions by the analysis of a parse (kept no longer than the parse). */
type Resolutions = WeakMap<TemplateAnalysis, Resolution>;

function resolutionOf(analysis: TemplateAnalysis, data: Data, source: "helm" | "custom"): Resolution {
  const passed = source === "helm" ? "config, releaseName and namespace" : "only config";
  // Why fields render <no value>, each once, in the order first met: as the fields the template reads
  // are resolved below (the list is taken then, as the warnings were: later reads are not shown).
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
  for (const field of analysis.fields) resolve(field.path);
  return {
    data,
    source,
    resolve,
    absent: absent === undefined ? undefined : [...absent],
    plain: isPlain(analysis),
    dataKey: `${source}${data.namespace === null}`,
  };
}

function checkTemplate(
  text: string,
  site: TemplateSite,
  freeForm: boolean,
  data: Data,
  source: "helm" | "custom",
  verdict: Verdict,
  runner: Runner,
  budget: WorkBudget,
  resolutions: Resolutions,
): void {
  // Work that runs out here names the template it was on.
  try {
    checkTemplateWithin(text, site, freeForm, data, source, verdict, runner, budget, resolutions);
  } catch (e) {
    if (e instanceof WorkBudgetExceeded && e.field === undefined)
      throw new WorkBudgetExceeded(e.what, e.limit, site.path(), e.allowance);
    throw e;
  }
}

function checkTemplateWithin(
  text: string,
  site: TemplateSite,
  freeForm: boolean,
  data: Data,
  source: "helm" | "custom",
  verdict: Verdict,
  runner: Runner,
  budget: WorkBudget,
  resolutions: Resolutions,
): void {
  budget.charge(templateUnits + text.length, "checking templates");
  const parsed = parsedTemplate(text, budget);
  if (!parsed.ok) {
    const rule = /function ".*" not defined/.test(parsed.error.message)
      ? "module.template-function"
      : "module.template-syntax";
    verdict.error(
      rule,
      fieldError.invalid(site.path(), text, `${parsed.error.message} (the operator cannot render it)`),
    );
    return;
  }
  const { analysis } = parsed.template;
  let resolution = resolutions.get(analysis);
  if (resolution === undefined || resolution.data !== data || resolution.source !== source) {
    resolution = resolutionOf(analysis, data, source);
    resolutions.set(analysis, resolution);
  }
  const { resolve, absent } = resolution;
  if (absent)
    for (const why of absent) verdict.warn(site, (path) => `${path}: ${why}: it renders <no value>`);
  // A plain template's text is known without executing it, unless it prints something only the
  // operator's data knows (a rendered namespace): then it is executed like any other.
  const plain = resolution.plain
    ? runner.plainRendering(analysis.output, resolve, resolution.dataKey)
    : undefined;
  const executed: Execution =
    plain !== undefined && plain.kind !== "unknown" ? plain : runner.run(text, parsed, source, site.path());
  if (executed.kind === "certain") {
    const { result } = executed;
    if (!result.ok) {
      verdict.error("module.template-exec", fieldError.invalid(site.path(), text, result.error));
      return;
    }
    if (freeForm) return;
    const kind = runner.outputKind(result.output);
    if (stringKinds.has(kind)) {
      const path = site.path();
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
    verdict.error("module.template-json-type", fieldError.invalid(site.path(), text, detail));
    return;
  }
  if (executed.kind === "random") {
    const { message } = executed;
    verdict.warn(site, (path) => `${path}: ${message}`);
    return;
  }
  if (executed.kind === "varies") {
    if (freeForm) return;
    const path = site.path();
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
  const kinds = runner.outputKinds(analysis.output, resolve, data.namespace === null);
  let wrong: JsonKind[] | undefined;
  for (const kind of kinds) {
    if (stringKinds.has(kind)) continue;
    wrong ??= [];
    wrong.push(kind);
  }
  if (wrong === undefined) return;
  if (wrong.length === kinds.size) {
    const detail = `renders as a JSON ${describe(wrong)}, which the operator cannot decode into this string field`;
    verdict.error("module.template-json-type", fieldError.invalid(site.path(), text, detail));
  } else {
    const kindsText = describe(wrong);
    verdict.warn(site, (path) => `${path} may render as a JSON ${kindsText}: the operator would fail on it`);
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

const clip = (s: string) => (s.length > 64 ? `${s.slice(0, 64)}...` : s);
