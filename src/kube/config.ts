import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";

const serviceAccountToken = "/var/run/secrets/kubernetes.io/serviceaccount/token";

export interface ClusterAccess {
  kubeConfig: KubeConfig;
  /** Where the credentials came from, for the start-up log: a file path or `in-cluster`. */
  source: string;
}

/**
 * The cluster to talk to, found as kubectl finds it: an explicit kubeconfig file, $KUBECONFIG,
 * ~/.kube/config, then the in-cluster service account. Undefined when there is none: unlike
 * KubeConfig.loadFromDefault we do not fall back to an unauthenticated http://localhost:8080.
 */
export function findClusterAccess(
  explicitPath?: string,
  env: NodeJS.ProcessEnv = process.env,
  tokenPath = serviceAccountToken,
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
  if (env.KUBERNETES_SERVICE_HOST && existsSync(tokenPath)) {
    kubeConfig.loadFromCluster();
    return { kubeConfig, source: "in-cluster" };
  }
  return undefined;
}

function defaultKubeconfig(home: string): string | undefined {
  const path = join(home, ".kube", "config");
  return existsSync(path) ? path : undefined;
}
