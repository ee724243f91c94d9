import { judgeOf } from "../admission/review-protocol.js";
import { checkRuleIds } from "../admission/rule-actions.js";
import { runReviewWorker } from "../isolation/review-worker.js";
import { type NameChange, NameReplica } from "../kube/name-replica.js";
import { createResourceKinds } from "../resources/index.js";
import { compileStructureCheckers } from "../validation/structure.js";
import type { LookupName, WorkerSettings } from "./serve-reviews.js";

/**
 * A review worker of `serve` (started by `ReviewPool`): the served kinds, built from `serve`'s flags,
 * with copies of the main thread's cluster caches kept current by the changes it sends.
 */
runReviewWorker((data, log) => {
  const settings = data as WorkerSettings;
  const replicas = new Map<LookupName, NameReplica>(
    settings.lookups.map((name) => [name, new NameReplica()]),
  );
  const kinds = createResourceKinds({
    workspaceExists: replicas.get("workspaces")?.exists,
    moduleTemplateExists: replicas.get("moduleTemplates")?.exists,
    addonOperator: settings.addonOperator,
  });
  checkRuleIds(settings.ruleActions, kinds);
  // The kinds' structure checkers compile on first use, and a kind may read its files on its first
  // review: a worker does both before it is ready.
  compileStructureCheckers();
  for (const kind of kinds) kind.prepare?.();
  const { paths, judge, kindOf } = judgeOf(kinds, {
    ruleActions: settings.ruleActions,
    onFailure: (uid, error) =>
      log({ level: "error", msg: "review failed", uid, error: String((error as Error)?.stack ?? error) }),
  });
  return {
    paths,
    judge,
    kindOf,
    onState: (state) => {
      const { lookup, change } = state as { lookup: LookupName; change: NameChange };
      replicas.get(lookup)?.apply(change);
    },
  };
});
