import { execFile } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { goBinary, helmTool } from "./go-tools.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const chartDir = join(root, "charts", "module-admission");

/** helm built from helm.sh/helm/v4 at the version test/helm-build/go.mod pins (npm test builds it). */
export function helmBinary(): string {
  return goBinary(helmTool, "helm");
}

export interface HelmResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs helm with its state in a throwaway place: no user config, cache or plugins leak in. */
export async function helm(args: string[]): Promise<HelmResult> {
  const home = join(root, ".tools", "helm-home");
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: home,
    HELM_CACHE_HOME: join(home, "cache"),
    HELM_CONFIG_HOME: join(home, "config"),
    HELM_DATA_HOME: join(home, "data"),
  };
  try {
    const { stdout, stderr } = await promisify(execFile)(helmBinary(), args, {
      env,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, stdout: failed.stdout ?? "", stderr: failed.stderr ?? String(error) };
  }
}
