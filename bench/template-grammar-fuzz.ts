import fc from "fast-check";
import type { AdmissionReview } from "../src/admission/review.js";
import type { Module } from "../src/generated/module.js";
import { type FuzzKind, passesCrd } from "../test/support/complexity-fuzz.js";
import { moduleWithTemplates } from "../test/support/template-grammar.js";

/**
 * The template grammar fuzz of issue 32, the long run (`npm run fuzz`; the short one is
 * test/go/template/grammar-fuzz.test.ts): Modules whose templates and config data
 * test/support/template-grammar.ts generates, a quarter of them of heavy programs (widths, counts and
 * lengths up to 999,999, endless recursion), each review judged as the server judges it (the body
 * parsed and scanned, then the handler) and its CPU measured. Bound: 100 ms for a Module that passes
 * the CRD and is at most 3 MiB (all generated ones are), 250 ms for any other; a review over it is
 * measured twice more and its least CPU counts (the machine is shared). A review that throws (the
 * server's 500) is a failure too.
 */
export interface GrammarFuzzResult {
  modules: number;
  templates: number;
  /** Reviews denied because the budget ran out, and admitted. */
  outOfWork: number;
  admitted: number;
  worst: { cpuMs: number; module: Module } | undefined;
  overBound: { cpuMs: number; bound: number; module: Module }[];
  failures: { error: string; module: Module }[];
}

const templatesPerModule = 4;
const batch = 500;

export async function runGrammarFuzz(
  kind: FuzzKind,
  options: { templates: number; seed: number; progress?: (done: number) => void },
): Promise<GrammarFuzzResult> {
  const result: GrammarFuzzResult = {
    modules: 0,
    templates: 0,
    outOfWork: 0,
    admitted: 0,
    worst: undefined,
    overBound: [],
    failures: [],
  };
  const modules = fc.oneof(
    { weight: 3, arbitrary: moduleWithTemplates({ templates: templatesPerModule }) },
    {
      weight: 1,
      arbitrary: moduleWithTemplates({ templates: templatesPerModule, heavy: true, maxDepth: 3 }),
    },
  );
  for (let seed = options.seed; result.templates < options.templates; seed++) {
    for (const module of fc.sample(modules, { numRuns: batch, seed })) {
      const body = JSON.stringify(kind.review(module));
      const bound = body.length <= 3 * 1024 * 1024 && passesCrd(kind, module) ? 100 : 250;
      let cpuMs = Number.POSITIVE_INFINITY;
      try {
        for (let round = 0; round < 3 && cpuMs > bound; round++) {
          const judged = await judge(kind, body);
          cpuMs = Math.min(cpuMs, judged.cpuMs);
          if (round === 0) {
            if (judged.outOfWork) result.outOfWork++;
            if (judged.allowed) result.admitted++;
          }
        }
      } catch (e) {
        result.failures.push({ error: e instanceof Error ? (e.stack ?? e.message) : String(e), module });
      }
      result.modules++;
      result.templates += templatesPerModule;
      if (cpuMs > bound && Number.isFinite(cpuMs)) result.overBound.push({ cpuMs, bound, module });
      if (Number.isFinite(cpuMs) && (!result.worst || cpuMs > result.worst.cpuMs))
        result.worst = { cpuMs, module };
      if (result.templates >= options.templates) break;
    }
    options.progress?.(result.templates);
  }
  return result;
}

/** One review as the server judges it, and its CPU. */
async function judge(kind: FuzzKind, body: string) {
  const started = process.cpuUsage();
  const review = JSON.parse(body) as AdmissionReview;
  kind.vouchForDepth(body, review.request?.object, review.request?.oldObject);
  const response = await kind.validate(kind.kind, review.request as NonNullable<AdmissionReview["request"]>);
  const used = process.cpuUsage(started);
  if (typeof response.allowed !== "boolean") throw new Error(`no verdict: ${JSON.stringify(response)}`);
  const outOfWork = (response.status?.details?.causes ?? []).some((cause) =>
    cause.message?.endsWith("(rule webhook.work-budget)"),
  );
  return { cpuMs: (used.user + used.system) / 1000, allowed: response.allowed, outOfWork };
}
