import { WorkBudget } from "../budget/work-budget.js";
import type { Focus } from "./resource-kind.js";
import type { AdmissionRequest } from "./review.js";

/**
 * What one review carries to every rule of its kind, in one value instead of positional parameters:
 * the request, the review's one allowance of work, and on ratcheting's look at an old object the rules
 * it asks for. The budget is required everywhere below: a rule never makes its own, so no loop of one
 * review escapes the review's bound.
 */
export interface ReviewContext {
  readonly request: AdmissionRequest;
  /** The review's one work budget: every loop whose cost grows with the input charges it. */
  readonly budget: WorkBudget;
  /** Only these rules' errors are asked for (ratcheting's look at the old object); no warnings. */
  readonly focus?: Focus;
}

/**
 * The one place a review begins, for every entry point: `serve`'s worker (`judgeOf`, through
 * `judgeValidation`), and the offline engine's one review per object (`validate`, `audit`, the
 * playground, through `admitOffline` and `judgeValidation`). Its budget is the review's own, unless the
 * caller measures the review's work with one of its own (tests, the benchmark).
 * test/admission/review-context.test.ts fails on a `new WorkBudget(` anywhere else in src/.
 */
export function beginReview(request: AdmissionRequest, measured?: WorkBudget): ReviewContext {
  return { request, budget: measured ?? new WorkBudget() };
}
