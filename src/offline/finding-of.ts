import { type Finding, findingField, type Place } from "../base/finding.js";
import type { Problem } from "./admit.js";

/** A problem found on an object, placed: the one way validate and audit turn problems into findings. */
export function findingOf(problem: Problem, severity: Finding["severity"], place: Place): Finding {
  return {
    severity,
    ...place,
    rule: `${problem.stage}/${problem.rule ?? problem.type}`,
    message: problem.message,
    ...findingField(problem.field),
  };
}
