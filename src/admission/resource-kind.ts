import type { JsonSchema } from "../schema/schema-source.js";
import type { FieldErrorList } from "./field-errors.js";
import type { AdmissionRequest } from "./review.js";
import type { ReviewContext } from "./review-context.js";
import type { RuleDeclaration } from "./rule-catalogue.js";
import type { Warning } from "./warning.js";

/** What a validator found: errors deny the request, warnings are shown to the user either way. */
export interface Verdict {
  errors: FieldErrorList;
  warnings: Warning[];
  /** The structure gate left nothing the rules could read: none of them ran (`rule-status.ts`). */
  unjudged?: "structure-gate";
}

/**
 * What ratcheting asks of the old object: only the errors of these rules (the rules the new object
 * failed), and no warnings. A validator may skip the rules not named, or ignore the focus and judge
 * everything: ratcheting compares only the errors of the named rules either way.
 */
export interface Focus {
  errorsOf: ReadonlySet<string>;
}

/**
 * Validation for one kind: pure functions of the objects. The split is what lets the protocol layer
 * ratchet on UPDATE for every kind alike: `validate` judges one object's state and runs on CREATE and,
 * on UPDATE, on the new object (and on the old one, so that problems it already had do not deny);
 * `validateTransition` holds the update-only rules (immutability), which are never ratcheted.
 *
 * Each call gets the review's context (`review-context.ts`): the request, the review's one work budget
 * (required: every loop whose cost grows with the input charges it) and, on ratcheting's look at an
 * old object, the focus. A transition is never focused.
 */
export interface Validator<T> {
  validate(object: T, context: ReviewContext): Verdict | Promise<Verdict>;
  validateTransition?(oldObject: T, object: T, context: ReviewContext): Verdict | Promise<Verdict>;
  /**
   * The object's schema with its list types (`x-kubernetes-list-type`, `-list-map-keys`), as its CRD
   * has them: ratcheting finds the old item a new list item corresponds to through it (map lists by
   * their keys, as the API server correlates them). Without it, list items are followed by value.
   */
  schema?(): JsonSchema;
  /**
   * Warnings for an update admitted although problems the old object had remain, beyond the one per
   * problem: what those problems mean for this update (addon-operator ignores a whole ConfigMap).
   */
  whileInvalid?(preexisting: FieldErrorList): string[];
}

/**
 * Defaulting for one kind, as controller-runtime's CustomDefaulter, except that it returns a new object
 * instead of changing its argument; the protocol layer turns the difference into a JSON Patch.
 */
export interface Defaulter<T> {
  applyDefaults(object: T, request: AdmissionRequest, oldObject: T | undefined): T;
}

/** A resource kind the webhook serves: its identity and the rules that plug into the protocol layer. */
export interface ResourceKind<T = unknown> {
  group: string;
  version: string;
  kind: string;
  validator?: Validator<T>;
  defaulter?: Defaulter<T>;
  /**
   * Every rule of the kind, declared beside its check (`defineKind` gathers them): what
   * `serve --rule-action` may name, docs/rules.md lists and SARIF describes. Every error and every
   * rule warning the validator returns carries one of their ids.
   */
  declarations?: readonly RuleDeclaration[];
  /** The ids of the error rules among `declarations` (what metrics count denials by). */
  rules?: readonly string[];
  /** The ids of the warning rules among `declarations`. */
  warningRules?: readonly string[];
  /** Paths that replace the kubebuilder convention, for webhooks whose path is fixed elsewhere. */
  paths?: { validate?: string; mutate?: string };
  /**
   * What the kind reads or builds on its first review, done now: `serve`'s review workers call it
   * before they say they are ready, so a worker's first review of the kind does not pay it (and hold up
   * a review beside it). Offline commands do not: they pay it only when a file holds the kind.
   */
  prepare?(): void;
}

/** `Module.batch.forkspacer.com`: how the API server names a kind in its error messages. */
export function qualifiedKind(kind: ResourceKind): string {
  return kind.group ? `${kind.kind}.${kind.group}` : kind.kind;
}

/** The webhook paths kubebuilder generates, e.g. `/validate-batch-forkspacer-com-v1-module`. */
export function webhookPath(kind: ResourceKind, verb: "validate" | "mutate"): string {
  const fixed = kind.paths?.[verb];
  if (fixed) return fixed;
  const group = kind.group ? `${kind.group.replaceAll(".", "-")}-` : "core-";
  return `/${verb}-${group}${kind.version}-${kind.kind.toLowerCase()}`;
}

/** The webhooks a kind serves: mutate when it has a defaulter, validate when it has a validator. */
export function webhooksOf(kind: ResourceKind): { verb: "mutate" | "validate"; path: string }[] {
  return [
    ...(kind.defaulter ? [{ verb: "mutate" as const, path: webhookPath(kind, "mutate") }] : []),
    ...(kind.validator ? [{ verb: "validate" as const, path: webhookPath(kind, "validate") }] : []),
  ];
}
