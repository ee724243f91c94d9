import { existsSync } from "node:fs";
import { isIPv6 } from "node:net";
import { homedir } from "node:os";
import { join } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";

const serviceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount";

export interface ClusterAccess {
  kubeConfig: KubeConfig;
  /** Where the credentials came from, for the start-up log: a file path or `in-cluster`. */
  source: string;
}

/**
 * The cluster to talk to, found as kubectl finds it: an explicit kubeconfig file, $KUBECONFIG,
 * ~/.kube/config, then the in-cluster service account. Undefined when there is none: unlike
 * KubeConfig.loadFromDefault we do not fall back to an unauthenticated http://localhost:8080.
 * `root` prefixes the service account's directory (tests put one in a temporary directory).
 */
export function findClusterAccess(
  explicitPath?: string,
  env: NodeJS.ProcessEnv = process.env,
  root = "",
): ClusterAccess | undefined {
  const kubeConfig = new KubeConfig();
  const file =
    explicitPath ??
    env.KUBECONFIG?.split(":").find((path) => path !== "") ??
    defaultKubeconfig(env.HOME ?? homedir());
  if (file !== undefined) {
    if (!existsSync(file)) throw new Error(`kubeconfig ${file} does not exist`);
    kubeConfig.loadFromFile(file);
    if (!kubeConfig.getCurrentCluster()) throw new Error(`kubeconfig ${file} has no current cluster`);
    return { kubeConfig, source: file };
  }
  const host = env.KUBERNETES_SERVICE_HOST;
  const tokenFile = `${root}${serviceAccountDir}/token`;
  if (!host || !existsSync(tokenFile)) return undefined;
  // As KubeConfig.loadFromCluster, but from `env`; the token file is read again every minute (bound
  // service account tokens rotate).
  kubeConfig.loadFromClusterAndUser(
    {
      name: "inCluster",
      server: `https://${isIPv6(host) ? `[${host}]` : host}:${env.KUBERNETES_SERVICE_PORT ?? "443"}`,
      caFile: `${root}${serviceAccountDir}/ca.crt`,
      skipTLSVerify: false,
    },
    { name: "inClusterUser", authProvider: { name: "tokenFile", config: { tokenFile } } },
  );
  return { kubeConfig, source: "in-cluster" };
}

function defaultKubeconfig(home: string): string | undefined {
  const path = join(home, ".kube", "config");
  return existsSync(path) ? path : undefined;
}
