import { extname } from "node:path";
import { fileURLToPath } from "node:url";
import type { RuleActions } from "../admission/rule-actions.js";
import { limits } from "../base/limits.js";
import type { Logger } from "../base/log.js";
import { largeSemiSpaceMb, ReviewPool, smallSemiSpaceMb, workerMemoryMb } from "../isolation/review-pool.js";
import type { NameCache } from "../kube/name-cache.js";
import type { AddonOperatorFlags } from "../resources/addon-operator-configmap/index.js";

/** The cluster caches the kinds read, by the name their changes are sent under. */
export interface ClusterLookups {
  /** Workspaces: the Module's spec.workspace check. */
  workspaces?: NameCache;
  /** ModuleTemplates: the ModuleReleaseMeta template check. */
  moduleTemplates?: NameCache;
}

export type LookupName = keyof ClusterLookups;

/** What a review worker builds its kinds from (structured-cloneable: it is the worker's workerData). */
export interface WorkerSettings {
  ruleActions: RuleActions;
  addonOperator?: AddonOperatorFlags;
  /** The lookups the main thread keeps, and sends the worker a copy of. */
  lookups: LookupName[];
}

/** The review workers: how many, and each one's heap and deadline per review. */
export interface PoolSettings {
  size: number;
  heapMb: number;
  deadlineMs: number;
}

/**
 * The defaults, for the chart's pod (a 640 MiB memory limit): two workers of 96 MiB heap each (and one
 * on standby) beside the main thread, which holds no parsed review; a review may take 1 s of CPU, ten
 * times the performance target for any object, and 3 s of wall time, within the chart's webhook
 * timeout (5 s), so that a review ended by it is still answered.
 */
export const defaultPool: PoolSettings = { size: 2, heapMb: 96, deadlineMs: 1_000 };

/**
 * `serve --memory-budget`'s default, in MiB: the chart's 640 MiB memory limit less the process's base
 * (`processBaseMb`: Node, the main thread's heap, TLS; 124 MiB measured, the workers' share taken
 * out). The chart derives the flag from resources.limits.memory the same way.
 */
export const processBaseMb = 128;
export const defaultMemoryBudgetMb = 640 - processBaseMb;

/**
 * The workers' semi-space for this budget: the large one when the budget holds each judging worker at
 * its heap limit and its large young generation, the one on standby idle, and one largest body; else
 * the small one (reviews of large bodies then cost more CPU, nothing else changes: a pod sized before
 * the young generation grew still starts). A budget too small for even that is refused at start,
 * naming the flags.
 */
export function semiSpaceFor(totalMb: number, pool: PoolSettings): number {
  const neededMb = (semiSpaceMb: number) =>
    pool.size * workerMemoryMb(pool.heapMb, true, semiSpaceMb) +
    workerMemoryMb(pool.heapMb, false, semiSpaceMb) +
    limits.bodyBytes / MiB;
  if (totalMb >= neededMb(largeSemiSpaceMb)) return largeSemiSpaceMb;
  if (totalMb >= neededMb(smallSemiSpaceMb)) return smallSemiSpaceMb;
  throw new Error(
    `--memory-budget: ${totalMb} MiB is less than ${pool.size} review workers at their heap limit (--review-workers ${pool.size}, --worker-heap-mb ${pool.heapMb}: ${workerMemoryMb(pool.heapMb, true, smallSemiSpaceMb)} MiB each), one on standby and one ${limits.bodyBytes / MiB} MiB review need (${neededMb(smallSemiSpaceMb)} MiB): raise --memory-budget or lower --review-workers or --worker-heap-mb`,
  );
}

const MiB = 1024 * 1024;

/** The worker's module beside this one: TypeScript when run from the sources, JavaScript when built. */
const workerEntry = new URL(`./serve-worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url);

/**
 * Starts `serve`'s review workers: each builds the kinds from the same settings, and gets the cluster
 * caches' contents when it starts and each change after, in order (so a review handed to a worker after
 * a Workspace was seen is judged with it).
 */
export async function startReviewWorkers(options: {
  ruleActions: RuleActions;
  addonOperator?: AddonOperatorFlags;
  lookups?: ClusterLookups;
  pool: PoolSettings;
  /** Each worker's semi-space (`semiSpaceFor` the memory budget; the large one by default). */
  semiSpaceMb?: number;
  log: Logger;
  /** A worker on standby to replace an ended one at once (default true). */
  standby?: boolean;
}): Promise<ReviewPool> {
  const lookups = Object.entries(options.lookups ?? {}).filter(
    (entry): entry is [LookupName, NameCache] => entry[1] !== undefined,
  );
  const settings: WorkerSettings = {
    ruleActions: options.ruleActions,
    addonOperator: options.addonOperator,
    lookups: lookups.map(([name]) => name),
  };
  const pool = new ReviewPool({
    entry: workerEntry,
    workerData: settings,
    ...options.pool,
    semiSpaceMb: options.semiSpaceMb ?? largeSemiSpaceMb,
    log: options.log,
    standby: options.standby,
    greeting: () => lookups.map(([lookup, cache]) => ({ lookup, change: cache.snapshot() })),
  });
  // Followed from the moment the first workers took their snapshot: no change falls between.
  for (const [lookup, cache] of lookups) cache.follow((change) => pool.broadcast({ lookup, change }));
  await pool.started;
  return pool;
}
