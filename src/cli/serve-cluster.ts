import type { Server } from "node:https";
import { findClusterAccess } from "../kube/config.js";
import { moduleTemplateNames, type NameCache, startNameCache, workspaceNames } from "../kube/name-cache.js";
import {
  type SelfSignedCertificates,
  type SelfSignedOptions,
  startSelfSignedCertificates,
} from "../kube/self-signed-certificates.js";
import { ensureCertDirLogged, readServingCertificate } from "../server/certificates.js";
import { tlsPolicy } from "../server/tls-policy.js";
import type { ClusterLookups } from "./serve-reviews.js";

/** The self-signed mode's settings pass through as they are (tests shorten the lifetimes). */
export interface ClusterServeOptions
  extends Pick<
    SelfSignedOptions,
    "webhookConfiguration" | "certDir" | "dnsNames" | "log" | "validityDays" | "checkIntervalMs"
  > {
  kubeconfig?: string;
  workspaceCheck: string;
  /** `auto` (default): the ModuleReleaseMeta template check, when there is cluster access; `off`. */
  moduleTemplateCheck?: string;
  /** `NS/NAME` of the kubernetes.io/tls Secret of the selfSigned mode. */
  selfSignedSecret?: string;
  env?: NodeJS.ProcessEnv;
}

/** What `serve` gets from the cluster, when there is one: the kinds' lookups, readiness, certificates. */
export interface ClusterFeatures {
  /** The caches the kinds read (kept here, on the main thread; review workers get copies). */
  lookups: ClusterLookups;
  isReady?: () => boolean;
  certificates?: SelfSignedCertificates;
  /** Hands the running server its certificate whenever the selfSigned mode renews it. */
  attach(server: Server): void;
  stop(): Promise<void>;
}

export const workspaceCheckModes = ["auto", "off"];

/**
 * Sets up the parts of `serve` that talk to the Kubernetes API: the selfSigned certificates (before the
 * server starts, so it starts with them) and the Workspace cache behind the spec.workspace check.
 */
export async function prepareClusterFeatures(options: ClusterServeOptions): Promise<ClusterFeatures> {
  if (!workspaceCheckModes.includes(options.workspaceCheck)) {
    throw new Error(
      `--workspace-check must be one of ${workspaceCheckModes.join(", ")}, got ${JSON.stringify(options.workspaceCheck)}`,
    );
  }
  const moduleTemplateCheck = options.moduleTemplateCheck ?? "auto";
  if (!workspaceCheckModes.includes(moduleTemplateCheck)) {
    throw new Error(
      `--moduletemplate-check must be one of ${workspaceCheckModes.join(", ")}, got ${JSON.stringify(moduleTemplateCheck)}`,
    );
  }
  const secret =
    options.selfSignedSecret === undefined ? undefined : parseSecretName(options.selfSignedSecret);
  const access = findClusterAccess(options.kubeconfig, options.env);
  const { log } = options;
  let server: Server | undefined;
  // Before the server runs there is nothing to reload: it starts with the files as they are.
  const reload = () => {
    if (!server) return;
    server.setSecureContext({ ...readServingCertificate(options.certDir), ...tlsPolicy });
    log({ msg: `serving the renewed certificate from ${options.certDir}` });
  };

  let certificates: SelfSignedCertificates | undefined;
  if (secret) {
    if (!access)
      throw new Error("--self-signed-secret needs cluster access: no kubeconfig and not in a cluster");
    certificates = await startSelfSignedCertificates({
      kubeConfig: access.kubeConfig,
      secret,
      webhookConfiguration: options.webhookConfiguration,
      certDir: options.certDir,
      dnsNames: options.dnsNames,
      log,
      validityDays: options.validityDays,
      checkIntervalMs: options.checkIntervalMs,
      onChange: reload,
    });
  } else {
    await ensureCertDirLogged(options.certDir, options.dnsNames, log);
  }

  let workspaces: NameCache | undefined;
  if (options.workspaceCheck === "off") {
    log({ msg: "the spec.workspace check is off (--workspace-check off)" });
  } else if (!access) {
    log({ msg: "no kubeconfig and not in a cluster: the spec.workspace check is off" });
  } else {
    log({
      msg: `cluster access from ${access.source}: the spec.workspace check is on once the Workspace cache syncs`,
    });
    workspaces = startNameCache(access.kubeConfig, log, workspaceNames);
  }

  let templates: NameCache | undefined;
  if (moduleTemplateCheck === "off") {
    log({ msg: "the ModuleReleaseMeta template check is off (--moduletemplate-check off)" });
  } else if (access) {
    templates = startNameCache(access.kubeConfig, log, moduleTemplateNames);
  }

  const caches = [workspaces, templates].filter((cache) => cache !== undefined);
  return {
    lookups: { workspaces, moduleTemplates: templates },
    isReady: caches.length > 0 ? () => caches.every((cache) => cache.isReady()) : undefined,
    certificates,
    attach: (running) => {
      server = running;
    },
    stop: async () => {
      certificates?.stop();
      await Promise.all(caches.map((cache) => cache.stop()));
    },
  };
}

function parseSecretName(value: string): { namespace: string; name: string } {
  const [namespace, name, ...rest] = value.split("/");
  if (!namespace || !name || rest.length > 0) {
    throw new Error(`--self-signed-secret must be NAMESPACE/NAME, got ${JSON.stringify(value)}`);
  }
  return { namespace, name };
}
