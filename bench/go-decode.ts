import { ensureBuilt, type GoTool, withoutGo } from "../test/support/go-tools.js";

/**
 * The benchmark's Go comparison (bench/go-decode-webhook): a standard-library webhook that decodes the
 * review and the object, as the least a controller-runtime webhook does. Built with the machine's Go
 * through the project's Go-tools layer (cached by its files and the Go version, outside the clone).
 */
export const goDecodeTool: GoTool = {
  name: "bench-go-decode-webhook",
  module: "../bench/go-decode-webhook",
  packages: ["module-admission/bench/go-decode-webhook"],
  firstBuild: "a few seconds (standard library only)",
};

/** The built binary, or why there is none (no Go on PATH): the benchmark then says so and skips it. */
export async function goDecodeWebhook(): Promise<{ binary: string } | { skipped: string }> {
  if (withoutGo) return { skipped: "go not found on PATH: the Go webhook comparison is not measured" };
  const dir = await ensureBuilt(goDecodeTool, (line) => process.stderr.write(`go-tools: ${line}\n`));
  return { binary: `${dir}/go-decode-webhook` };
}
