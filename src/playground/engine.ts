/**
 * The playground's verdict: `validate`'s batch engine (src/offline/validate-batch.ts) on the text of
 * the page's editors, with the options the CLI would be given: `--yaml <client>`, `--old`,
 * `--show-mutations`, and `--modules-dir` for the example addon-operator module tree.
 */
import { type OfflineAddonOperator, offlineAddonOperator } from "../offline/addon-operator.js";
import { type BatchResult, validateBatch } from "../offline/validate-batch.js";
import type { YamlReader } from "../offline/yaml-readings.js";

/** Everything the page's verdict depends on: what the share link holds. */
export interface PlaygroundState {
  object: string;
  /** The object before the update; empty for a create. */
  old: string;
  client: YamlReader;
  /** Whether ConfigMap/addon-operator is judged against the example module tree. */
  modules: boolean;
}

/** The file names findings carry, as `validate --stdin-filename object.yaml -` names its input. */
export const objectFile = "object.yaml";
export const oldFile = "old.yaml";

/** Where the build embeds examples/addon-operator/modules (src/playground/node/fs.ts). */
export const modulesDir = "/playground/examples/addon-operator/modules";

let addonOperator: OfflineAddonOperator | undefined;

export function judgeState(state: PlaygroundState): Promise<BatchResult> {
  if (state.modules) addonOperator ??= offlineAddonOperator({ "modules-dir": modulesDir });
  return validateBatch({
    inputs: [{ file: objectFile, text: state.object }],
    old: state.old.trim() === "" ? [] : [{ file: oldFile, text: state.old }],
    strict: false,
    showMutations: true,
    yamlReader: state.client,
    ...(state.modules && addonOperator ? { addonOperator } : {}),
  });
}
