import type { FieldErrorList } from "./field-errors.js";
import type { PatchOperation } from "./json-patch.js";
import type { Warning } from "./warning.js";

/** One review's outcome, as structure: what denies, what is shown, what is patched, and why. */
export interface ReviewVerdict {
  /** A request this kind cannot judge (not its group, kind or apiVersion): answered 400, as is. */
  badRequest?: string;
  /** The errors that deny, each with the rule that found it (if any). */
  errors: FieldErrorList;
  /** The warnings shown, less those of rules turned off. */
  warnings: Warning[];
  /** The mutating webhook's JSON Patch. */
  patch: PatchOperation[];
  /** An UPDATE admitted (or judged) with errors ratcheting spared: the old object had them. */
  ratcheted: boolean;
  /** The review ran out of its work budget: its one error says which work it was. */
  outOfWork: boolean;
  /** Why the kind's state rules were not judged, where nothing else says it (`rule-status.ts`). */
  unjudged?: Unjudged;
}

/**
 * Why a review judged none of its kind's state rules, where the verdict does not show it already
 * (`badRequest`, `outOfWork`): set on the cold paths only, so a review that runs its rules allocates
 * nothing for it.
 */
export type Unjudged = "structure-gate" | "too-deep" | "operation";

/** A verdict that admits as it is, with `extra` (errors, warnings, a patch) on top. */
export const verdictOf = (extra: Partial<ReviewVerdict> = {}): ReviewVerdict => ({
  errors: [],
  warnings: [],
  patch: [],
  ratcheted: false,
  outOfWork: false,
  ...extra,
});
