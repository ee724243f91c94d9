import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { dump as dumpYaml } from "js-yaml";
import { findClusterAccess } from "../kube/config.js";
import { applyCrd, fieldManager, projectCrds, waitEstablished } from "../kube/crds.js";

export const installCrdsUsage = `install-crds   Server-side apply the CRDs (field manager ${fieldManager}) and wait until Established
          --kubeconfig FILE   cluster access (default $KUBECONFIG, ~/.kube/config, then in-cluster)
          --force-conflicts   take ownership of fields another manager (Helm, kubectl) set
          --include-optional  also the optional CRDs (crd.optional: Kyma's ModuleTemplate, ModuleReleaseMeta)
          --dry-run           print the CRDs as YAML instead of applying them
          --timeout SECONDS   how long to wait for Established (default 60)`;

// The same path from src/ (tsx) and dist/ (compiled): both sit one level below the project root.
const schemasDir = fileURLToPath(new URL("../../schemas", import.meta.url));

export interface InstallCrdsIo {
  out: (text: string) => void;
  env: NodeJS.ProcessEnv;
  /** Where the schema sources are; the project's own by default. */
  schemasDir?: string;
  pollMs?: number;
}

export async function installCrds(
  args: string[],
  io: InstallCrdsIo = { out: (text) => process.stdout.write(text), env: process.env },
): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      kubeconfig: { type: "string" },
      "force-conflicts": { type: "boolean", default: false },
      "dry-run": { type: "boolean", default: false },
      "include-optional": { type: "boolean", default: false },
      timeout: { type: "string", default: "60" },
    },
  });
  const timeoutSeconds = Number(values.timeout);
  if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) {
    throw new Error(`--timeout must be a positive number of seconds, got ${JSON.stringify(values.timeout)}`);
  }
  const crds = projectCrds(io.schemasDir ?? schemasDir, values["include-optional"]);
  if (values["dry-run"]) {
    io.out(crds.map((crd) => dumpYaml(crd, { lineWidth: -1, noRefs: true })).join("---\n"));
    return;
  }
  const access = findClusterAccess(values.kubeconfig, io.env);
  if (!access) throw new Error("install-crds needs cluster access: no kubeconfig and not in a cluster");
  for (const crd of crds) {
    await applyCrd(access.kubeConfig, crd, values["force-conflicts"]);
    io.out(`customresourcedefinition.apiextensions.k8s.io/${crd.metadata.name} serverside-applied\n`);
  }
  for (const crd of crds) {
    await waitEstablished(access.kubeConfig, crd.metadata.name, timeoutSeconds * 1000, io.pollMs);
    io.out(
      `customresourcedefinition.apiextensions.k8s.io/${crd.metadata.name} condition met (Established)\n`,
    );
  }
}
