import { readJson } from "../../src/base/exact-json.js";
import { parseManifests } from "../../src/manifests/manifests.js";
import { admitOffline } from "../../src/offline/admit.js";
import { kindOf, type OfflineKind } from "../../src/offline/kinds.js";
import type { ControlPlane } from "../support/control-plane.js";
import { webhookRule } from "./verdicts.js";

/** What a user of `kubectl apply` sees: the exit, the error lines, the warnings, the object printed. */
export interface KubectlOutcome {
  admitted: boolean;
  /** `field: message` per cause, or the one `Error from server (Reason): message` line. */
  errors: string[];
  warnings: string[];
  object?: Record<string, unknown>;
}

/**
 * `kubectl apply --dry-run=server -o json -f -` of one manifest's text (YAML 1.1 as kubectl reads it,
 * what it sends, strict field validation), read back as a user reads it; `kubectl create` with `verb`.
 */
export async function kubectlApply(
  plane: ControlPlane,
  text: string,
  verb: "apply" | "create" = "apply",
): Promise<KubectlOutcome> {
  const run = await plane.kubectl([verb, "--dry-run=server", "-o", "json", "-f", "-"], { input: text });
  const lines = run.stderr.split("\n");
  const warnings = lines.filter((line) => line.startsWith("Warning: ")).map((line) => line.slice(9));
  if (run.code === 0) {
    return { admitted: true, errors: [], warnings, object: readJson(run.stdout) as Record<string, unknown> };
  }
  const rest = lines.filter((line) => line !== "" && !line.startsWith("Warning: "));
  const invalid = /^The \S+ "[^"]*" is invalid: (.*)$/.exec(rest[0] ?? "");
  if (invalid) {
    // One cause on the line itself; several as `* field: message` lines after it.
    const errors = invalid[1] ? [invalid[1]] : rest.slice(1).map((line) => line.replace(/^\* /, ""));
    return { admitted: false, errors, warnings };
  }
  const server = /^Error from server \((\w+)\): error when creating "STDIN": (.*)$/s.exec(rest.join("\n"));
  if (server) return { admitted: false, errors: [`${server[1]}: ${server[2]}`], warnings };
  // kubectl's own refusal, before it sends anything.
  const client = /^error: unable to decode "STDIN": (.*)$/s.exec(rest.join("\n"));
  const errors = [client ? `KubectlDecode: kubectl: unable to decode: ${client[1]}` : rest.join("\n")];
  return { admitted: false, errors, warnings };
}

/** `validate --yaml kubectl`'s verdict on the same text, in the same terms. */
export async function validateAsKubectl(kinds: OfflineKind[], text: string): Promise<KubectlOutcome> {
  const [manifest] = parseManifests("manifest.yaml", text, "kubectl");
  if (!manifest) throw new Error("no object in the manifest");
  const kind = kindOf(kinds, manifest.object) as OfflineKind;
  const verdict = await admitOffline(kind, manifest.object, undefined, undefined, "kubectl");
  const refusal = verdict.errors.find((error) => error.stage === "decode");
  const errors = refusal
    ? [`${refusal.type}: ${refusal.message}`]
    : verdict.errors.map((error) => `${error.message}${webhookRule(error)}`);
  return {
    admitted: verdict.allowed,
    errors,
    warnings: verdict.warnings.map((warning) => warning.message),
    ...(verdict.stored ? { object: verdict.stored } : {}),
  };
}
