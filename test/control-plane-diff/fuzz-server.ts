import { offlineKinds } from "../../src/offline/kinds.js";
import { registerChartWebhooks, startLocalServe } from "../support/chart-webhooks.js";
import { startControlPlane } from "../support/control-plane.js";
import { apiClient } from "./api-client.js";
import { generatedDifferential, report } from "./run.js";

/**
 * `npm run fuzz:server [-- --objects N --seed S]`: the generated differential at scale (10,000 objects
 * by default) against a real kube-apiserver 1.37 with the chart's webhooks registered against a local
 * `serve`, each object as a GitOps tool and as kubectl apply sends it, a fifth of them UPDATE pairs on
 * legacy stored objects. Prints the counts; exits 1 on any unexplained difference.
 */
const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const objects = option("objects", 10_000);
const seed = option("seed", Date.now() % 1_000_000);

const started = Date.now();
const plane = await startControlPlane({ apiServerFlags: ["--request-timeout=15s"] });
let status = 1;
try {
  const serve = await startLocalServe(plane, ["--workspace-check", "off", "--moduletemplate-check", "off"]);
  await registerChartWebhooks(plane, serve, {
    forkspacer: { mode: "replace" },
    kyma: { webhook: { enabled: true } },
  });
  const api = apiClient(plane.kubeconfigPath);
  plane.defer(() => api.close());
  const ready = Date.now();
  const outcome = await generatedDifferential(api, offlineKinds(), objects, seed);
  const { creates, updates } = outcome;
  const unexplained = [...creates.unexplained, ...updates.unexplained];
  console.log(
    [
      `fuzz:server seed ${seed}: ${outcome.objects} objects generated (${outcome.pairs} UPDATE pairs), each as a GitOps tool and as kubectl apply`,
      `  creates: ${creates.probes} (${creates.denied} denied, ${creates.warned} warned)`,
      `  updates: ${updates.probes} (${updates.denied} denied, ${updates.warned} warned)`,
      `  mutations: ${JSON.stringify(outcome.mutations)}`,
      `  differences: ${creates.limits + updates.limits} explained by a documented limit, ${unexplained.length} unexplained`,
      ...Object.entries({ ...creates.byLimit }).map(([name, n]) => `    creates, ${n}: ${name}`),
      ...Object.entries({ ...updates.byLimit }).map(([name, n]) => `    updates, ${n}: ${name}`),
      `  time: ${Math.round((ready - started) / 1000)} s to start, ${Math.round((Date.now() - ready) / 1000)} s to judge`,
    ].join("\n"),
  );
  if (unexplained.length > 0) console.log(report(unexplained.slice(0, 50)));
  status = unexplained.length === 0 ? 0 : 1;
} finally {
  await plane.stop();
}
process.exit(status);
