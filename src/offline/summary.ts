import type { NotChecked } from "./lookups.js";

/** What a run read and did: the counts every output ends with, so nothing passes unseen. */
export interface Summary {
  /** Files read (stdin counts as one). */
  files: number;
  /** Inputs that could not be read or parsed: each is an error finding. */
  unreadable: number;
  objects: number;
  /** Objects of a kind this tool checks (or meant for one: a near miss is denied). */
  checked: number;
  /** Objects skipped, by `apiVersion kind`: kinds this tool has no schema for. */
  skipped: Record<string, number>;
  denied: number;
  /** Checked objects with at least one warning. */
  warned: number;
  /** The client whose request was judged (`validate --yaml`), when it matters. */
  client?: string;
  /** Objects of namespaced kinds whose manifest names no namespace: judged in this one (`--namespace`). */
  withoutNamespace?: { namespace: string; objects: number };
  /** Checks serve makes that this run could not (cluster lookups, a ConfigMap without --modules-dir). */
  notChecked?: NotChecked[];
  /** Directories a walk left out (node_modules, .git, a Helm chart's templates), files named that are chart templates, with why. */
  notRead?: { path: string; why: string; file?: true }[];
}
