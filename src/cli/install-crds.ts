import { fileURLToPath } from "node:url";
import { Command } from "commander";
import { dump as dumpYaml } from "js-yaml";
import { findClusterAccess } from "../kube/config.js";
import { applyCrd, fieldManager, projectCrds, waitEstablished } from "../kube/crds.js";
import { type Outcome, optionValues, parseOptionValues } from "./command.js";

/** `install-crds`'s options: its help and its parsing both come from here. */
function installCrdsOptions(): Command {
  return new Command("install-crds")
    .summary(`server-side apply the CRDs (field manager ${fieldManager}) and wait until Established`)
    .description(`Server-side apply the CRDs (field manager ${fieldManager}) and wait until Established.`)
    .option("--kubeconfig <FILE>", "cluster access (default $KUBECONFIG, ~/.kube/config, then in-cluster)")
    .option("--force-conflicts", "take ownership of fields another manager (Helm, kubectl) set")
    .option(
      "--include-optional",
      "also the optional CRDs (crd.optional: Kyma's ModuleTemplate, ModuleReleaseMeta)",
    )
    .option("--dry-run", "print the CRDs as YAML instead of applying them")
    .option("--timeout <SECONDS>", "how long to wait for Established", "60");
}

interface InstallCrdsValues {
  kubeconfig?: string;
  "force-conflicts"?: boolean;
  "include-optional"?: boolean;
  "dry-run"?: boolean;
  timeout: string;
}

export function installCrdsDefinition(outcome: Outcome): Command {
  return installCrdsOptions().action(async (_options: unknown, command: Command) => {
    await installCrdsWith(optionValues(command) as unknown as InstallCrdsValues, defaultIo);
    outcome.status = 0;
  });
}

// The same path from src/ (tsx) and dist/ (compiled): both sit one level below the project root.
const schemasDir = fileURLToPath(new URL("../../schemas", import.meta.url));

export interface InstallCrdsIo {
  out: (text: string) => void;
  env: NodeJS.ProcessEnv;
  /** Where the schema sources are; the project's own by default. */
  schemasDir?: string;
  pollMs?: number;
}

const defaultIo: InstallCrdsIo = { out: (text) => process.stdout.write(text), env: process.env };

export async function installCrds(args: string[], io: InstallCrdsIo = defaultIo): Promise<void> {
  await installCrdsWith(parseOptionValues(installCrdsOptions(), args) as unknown as InstallCrdsValues, io);
}

async function installCrdsWith(values: InstallCrdsValues, io: InstallCrdsIo): Promise<void> {
  const timeoutSeconds = Number(values.timeout);
  if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) {
    throw new Error(`--timeout must be a positive number of seconds, got ${JSON.stringify(values.timeout)}`);
  }
  const crds = projectCrds(io.schemasDir ?? schemasDir, values["include-optional"] === true);
  if (values["dry-run"]) {
    io.out(crds.map((crd) => dumpYaml(crd, { lineWidth: -1, noRefs: true })).join("---\n"));
    return;
  }
  const access = findClusterAccess(values.kubeconfig, io.env);
  if (!access) throw new Error("install-crds needs cluster access: no kubeconfig and not in a cluster");
  for (const crd of crds) {
    await applyCrd(access.kubeConfig, crd, values["force-conflicts"] === true);
    io.out(`customresourcedefinition.apiextensions.k8s.io/${crd.metadata.name} serverside-applied\n`);
  }
  for (const crd of crds) {
    await waitEstablished(access.kubeConfig, crd.metadata.name, timeoutSeconds * 1000, io.pollMs);
    io.out(
      `customresourcedefinition.apiextensions.k8s.io/${crd.metadata.name} condition met (Established)\n`,
    );
  }
}
