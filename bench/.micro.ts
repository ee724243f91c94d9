import { join } from "node:path";
import { mutate, validate } from "../src/admission/handler.js";
import { reviewResponse } from "../src/admission/review.js";
import { addonOperatorConfigMapKind } from "../src/resources/addon-operator-configmap/index.js";
import { moduleKind } from "../src/resources/module/index.js";
import { moduleTemplateKind } from "../src/resources/moduletemplate/index.js";
import { WebhookMetrics } from "../src/server/metrics.js";
import * as r from "./requests.js";

function time(label: string, n: number, f: () => unknown) {
  for (let i = 0; i < n / 5; i++) f();
  const t = process.cpuUsage();
  for (let i = 0; i < n; i++) f();
  const u = process.cpuUsage(t);
  console.log(`${label}: ${((u.user + u.system) / n).toFixed(1)} µs`);
}
const cm = addonOperatorConfigMapKind({
  modulesDir: join(r.deckhouseDir, "modules"),
  globalHooksDir: join(r.deckhouseDir, "global-hooks"),
  configMap: { namespace: "addon-operator", name: "addon-operator" },
});
time("JSON.parse validate body", 20000, () => JSON.parse(r.validateBody));
time("validate", 20000, () => validate(moduleKind as never, JSON.parse(r.validateBody).request));
time("mutate", 20000, () => mutate(moduleKind as never, JSON.parse(r.mutateBody).request));
time("update", 20000, () => validate(moduleKind as never, JSON.parse(r.updateBody).request));
time("moduletemplate", 20000, () =>
  validate(moduleTemplateKind as never, JSON.parse(r.moduleTemplateBody).request),
);
time("configmap", 2000, () => validate(cm as never, JSON.parse(r.configMapBody).request));
const m = new WebhookMetrics();
time("metrics", 20000, () => m.started("/validate-batch-forkspacer-com-v1-module")(200));
time(
  "log line stringify",
  20000,
  () =>
    `${JSON.stringify({ time: new Date().toISOString(), msg: "admission review", path: "/validate-batch-forkspacer-com-v1-module", uid: "705ab4f5-6393-11e8-b7cc-42010a800003", kind: "Module", object: "team-payments/redis-cache", operation: "CREATE", dryRun: false, allowed: true, patched: false, durationMs: 0.123 })}\n`,
);
const ans = reviewResponse({ uid: "705ab4f5-6393-11e8-b7cc-42010a800003", allowed: true });
time("answer stringify", 20000, () => JSON.stringify(ans));
