import fc from "fast-check";
import { WorkBudget, WorkBudgetExceeded } from "../../../src/budget/work-budget.js";
import { executeTemplate } from "../../../src/go/template/exec.js";
import { parseTemplate } from "../../../src/go/template/index.js";
import { jsonKind } from "../../../src/go/template/json-kind.js";
import { fromJson, Unsupported } from "../../../src/go/template/values.js";
import type { GoOracle, TemplateAnswer } from "../go-oracle.js";
import { type TemplateCase, templateCase } from "../template-grammar.js";
import type { DifferentialRun, Random } from "./random.js";

/**
 * src/go/template against Go's text/template with the operator's FuncMap (test/oracles/template.go):
 * the parse (its error text, or the templates defined), the execution (the output, or the error text)
 * and the operator's reading of the output as JSON. Where the port does not model something it says
 * so (Unsupported) or runs out of its work budget: the webhook then decides nothing from the template,
 * so those are counted apart, not as disagreements.
 */
export interface TemplateInput {
  text: string;
  /** Absent: parse only. */
  data?: unknown;
  funcs?: string[];
}

export interface TemplateRun extends DifferentialRun {
  unsupported: number;
  overBudget: number;
  goTimeouts: number;
}

type Ours =
  | { parseError: string }
  | { templates: string[]; output?: string; execError?: string; jsonKind?: string }
  | { unsupported: string }
  | { overBudget: true };

/** The port's answer in the oracle's terms. */
export function ours(input: TemplateInput): Ours {
  const parsed = parseTemplate(input.text, { functions: ["randBase62", ...(input.funcs ?? [])] });
  if (!parsed.ok) return { parseError: parsed.error.message };
  const templates = [...parsed.template.trees.keys()].sort();
  if (input.data === undefined) return { templates };
  try {
    const result = executeTemplate(input.text, parsed.template.trees, "", fromJson(input.data) ?? undefined, {
      budget: new WorkBudget(),
      randBase62: (n) => "a".repeat(n),
    });
    return result.ok
      ? { templates, output: result.output, jsonKind: jsonKind(result.output) }
      : { templates, execError: result.error };
  } catch (e) {
    if (e instanceof Unsupported) return { unsupported: e.message };
    if (e instanceof WorkBudgetExceeded) return { overBudget: true };
    throw e;
  }
}

const goSide = (a: TemplateAnswer): Ours =>
  a.parseError !== undefined
    ? { parseError: a.parseError }
    : {
        templates: a.templates ?? [],
        ...(a.executed
          ? a.execError !== undefined
            ? { execError: a.execError }
            : { output: a.output ?? "", jsonKind: a.jsonKind ?? "" }
          : {}),
      };

export async function templateDifferential(
  oracle: GoOracle,
  inputs: readonly TemplateInput[],
): Promise<TemplateRun> {
  const answers = await oracle.askAll(
    "template",
    inputs.map(({ text, data, funcs }) => ({
      text,
      ...(data === undefined ? {} : { data }),
      ...(funcs ? { funcs } : {}),
    })),
  );
  const run: TemplateRun = {
    family: "text/template",
    cases: inputs.length,
    disagreements: [],
    unsupported: 0,
    overBudget: 0,
    goTimeouts: 0,
  };
  inputs.forEach((input, i) => {
    const answer = answers[i] as (typeof answers)[number];
    if ("timeout" in answer) {
      run.goTimeouts++;
      return;
    }
    const ts = ours(input);
    if ("unsupported" in ts) {
      run.unsupported++;
      return;
    }
    if ("overBudget" in ts) {
      run.overBudget++;
      return;
    }
    const go = "panic" in answer ? answer : goSide(answer);
    if (JSON.stringify(go) !== JSON.stringify(ts)) run.disagreements.push({ input, go, ts });
  });
  return run;
}

/** One program of Go's grammar with the operator's helm data (and any data Go decodes, for range). */
export function generateTemplate(random: Random): TemplateInput {
  const seed = random.int(0, 2 ** 31 - 1);
  const [sample] = fc.sample(templateCase({ anyData: true }), { seed, numRuns: 1 }) as TemplateCase[];
  return sample as TemplateInput;
}
