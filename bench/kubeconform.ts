import { ensureBuilt, type GoTool, withoutGo } from "../test/support/go-tools.js";

/**
 * The offline benchmark's Go comparison: kubeconform (github.com/yannh/kubeconform, the version
 * bench/kubeconform/go.mod pins as a `tool`), built from the Go module proxy with the machine's Go through the
 * project's Go-tools layer (cached by version outside the clone). A benchmark comparison, not a
 * dependency of the product: nothing of it is vendored or shipped.
 */
export const kubeconformTool: GoTool = {
  name: "bench-kubeconform",
  module: "../bench/kubeconform",
  packages: ["github.com/yannh/kubeconform/cmd/kubeconform"],
  firstBuild: "about a minute on 2 cores, once per version",
};

/** The built binary, or why there is none (no Go on PATH): the benchmark then says "not measured". */
export async function kubeconform(): Promise<{ binary: string } | { skipped: string }> {
  if (withoutGo) return { skipped: "go not found on PATH: kubeconform is not measured" };
  const dir = await ensureBuilt(kubeconformTool, (line) => process.stderr.write(`go-tools: ${line}\n`));
  return { binary: `${dir}/kubeconform` };
}
