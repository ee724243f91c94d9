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
}

/** A verdict that admits as it is, with `extra` (errors, warnings, a patch) on top. */
export const verdictOf = (extra: Partial<ReviewVerdict> = {}): ReviewVerdict => ({
  errors: [],
  warnings: [],
  patch: [],
  ratcheted: false,
  outOfWork: false,
  ...extra,
});
