import type { FieldPath } from "../base/field-path.js";
import { limits } from "../base/limits.js";
/**
 * One review's allowance of work. Every loop whose cost grows with the input charges it, in units of
 * roughly one small step (a node visited, a character scanned, a pair compared), so that no input can
 * make one review cost more than a bounded time, however its work is spread over rules, templates,
 * hints or errors. A review makes one where it begins (`beginReview`, src/admission/review-context.ts:
 * `serve` one per review, the offline engine one per object) and hands it to every rule, which takes it
 * as a required parameter and never makes its own; a rule that runs out either stops optional work (hints, warnings) or, for a
 * required check, lets `WorkBudgetExceeded` reach the protocol layer, which denies with a clear cause.
 */
export class WorkBudget {
  private spentUnits = 0;
  private renderedChars = 0;
  private memos: Map<object, Map<unknown, unknown>> | undefined;

  constructor(
    readonly limit: number = limits.workUnits,
    private readonly whole?: WorkBudget,
  ) {}

  /**
   * A part of this budget of at most `limit` units, for optional work that must leave the rest to the
   * required checks: what the part spends is spent from this budget too.
   */
  part(limit: number): WorkBudget {
    return new WorkBudget(limit, this);
  }

  /**
   * Charges `units` of work for `what` (at `field`, when the work is about one field); throws
   * WorkBudgetExceeded once the budget is used up.
   */
  charge(units: number, what: string, field?: FieldPath): void {
    this.spentUnits += units;
    if (this.spentUnits > this.limit) throw new WorkBudgetExceeded(what, this.limit, field);
    this.whole?.charge(units, what, field);
  }

  /**
   * For optional work (hints, warnings): charges and says true when `units` still fit, and charges
   * nothing and says false when they do not, so that the required checks after it keep their share.
   */
  tryCharge(units: number): boolean {
    if (this.spentUnits + units > this.limit) return false;
    if (this.whole && !this.whole.tryCharge(units)) return false;
    this.spentUnits += units;
    return true;
  }

  /**
   * Counts `chars` characters of template output rendered for `what`, against `limits.renderedChars`
   * per review (the whole budget's, when this is a part); throws WorkBudgetExceeded past it. The work
   * of rendering them is charged apart, with `charge`.
   */
  render(chars: number, what: string, field?: FieldPath): void {
    if (this.whole) {
      this.whole.render(chars, what, field);
      return;
    }
    this.renderedChars += chars;
    if (this.renderedChars > limits.renderedChars)
      throw new WorkBudgetExceeded(
        what,
        this.limit,
        field,
        `${limits.renderedChars} characters of template output per review`,
      );
  }

  /**
   * A memo for this review alone, one per `owner` (a check's own key): what a check found of an object
   * the review meets again. Held by the budget, which lives as long as the review, not by a module's
   * WeakMap keyed by the object: V8's young-generation collection keeps a WeakMap's values alive while
   * their keys are young, dead or not, so a remembered verdict (which reaches its object) kept each
   * review's parsed objects alive past the review, copied and promoted (4-9 MiB of a 4 MiB review,
   * about 5-10 ms of copying, then the old generation's marking).
   */
  memo<K, V>(owner: object): Map<K, V> {
    if (this.whole) return this.whole.memo(owner);
    this.memos ??= new Map();
    let memo = this.memos.get(owner);
    if (memo === undefined) {
      memo = new Map();
      this.memos.set(owner, memo);
    }
    return memo as Map<K, V>;
  }

  get rendered(): number {
    return this.whole ? this.whole.rendered : this.renderedChars;
  }

  get spent(): number {
    return this.spentUnits;
  }

  get exhausted(): boolean {
    return this.spentUnits >= this.limit;
  }
}

/** Thrown by `WorkBudget.charge` when a review has used up its work; `what` names the work it was doing. */
export class WorkBudgetExceeded extends Error {
  constructor(
    readonly what: string,
    readonly limit: number,
    readonly field?: FieldPath,
    /** The allowance that ran out, as a denial names it: by default the units per review. */
    readonly allowance = `${limit} units per review`,
  ) {
    super(`${what} exceeds the webhook's work budget`);
    this.name = "WorkBudgetExceeded";
  }
}
