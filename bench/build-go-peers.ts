import { withoutGo } from "../test/support/go-tools.js";
import { controllerRuntimeTool, goDecodeTool, goPeer } from "./go-peers.js";
import { kubeconform } from "./kubeconform.js";

/**
 * `npm run build:bench-go-tools`: the benchmark's Go peers and kubeconform built into the Go-tools cache
 * before the benchmark needs them. `npm test`'s bench smoke builds them on first use (a cold machine's
 * 2 cores: about 160 s of CPU, most of it controller-runtime's k8s.io packages); .ci/run builds them in
 * the background beside the installs and the Node 24 unit tests instead, after the tests' own Go tools.
 */
if (withoutGo) {
  console.error(`go-tools: ${withoutGo}`);
} else {
  for (const tool of [goDecodeTool, controllerRuntimeTool]) await goPeer(tool);
  await kubeconform();
}
