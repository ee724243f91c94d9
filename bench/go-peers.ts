import { ensureBuilt, type GoTool, withoutGo } from "../test/support/go-tools.js";

/**
 * The benchmark's Go peers, each a small Go module of bench/ built with the machine's Go through the
 * project's Go-tools layer (cached by its files and the Go version, outside the clone), only when the
 * benchmark runs: `npm test`'s build step does not build them.
 */

/** bench/go-decode-webhook: the standard library alone, decoding the review and the Module. */
export const goDecodeTool: GoTool = {
  name: "bench-go-decode-webhook",
  module: "../bench/go-decode-webhook",
  packages: ["module-admission/bench/go-decode-webhook"],
  firstBuild: "a few seconds (standard library only)",
};

/**
 * bench/controller-runtime-webhook: the operators' own stack (controller-runtime v0.22.1, k8s.io v0.34.1,
 * from the Go module proxy), decoding the Module into a typed struct and admitting it.
 */
export const controllerRuntimeTool: GoTool = {
  name: "bench-controller-runtime-webhook",
  module: "../bench/controller-runtime-webhook",
  packages: ["module-admission/bench/controller-runtime-webhook"],
  firstBuild: "about a minute on 2 cores (controller-runtime and k8s.io modules), once per version",
};

/** The built binary, or why there is none (no Go on PATH): the benchmark then says so and skips it. */
export async function goPeer(tool: GoTool): Promise<{ binary: string } | { skipped: string }> {
  if (withoutGo) return { skipped: `go not found on PATH: ${tool.name} is not measured` };
  const dir = await ensureBuilt(tool, (line) => process.stderr.write(`go-tools: ${line}\n`));
  const [binary] = tool.packages[0]?.split("/").reverse() ?? [];
  return { binary: `${dir}/${binary}` };
}
