import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  type MetricsServer,
  registryCollector,
  startMetricsServer,
  WebhookMetrics,
} from "../../src/server/metrics.js";
import { type LiveServer, startLiveServer } from "../support/live-server.js";
import { httpGet, sample } from "../support/metrics-text.js";
import { helmModule } from "../support/modules.js";
import { admissionReview } from "../support/reviews.js";

const validatePath = "/validate-batch-forkspacer-com-v1-module";
const mutatePath = "/mutate-batch-forkspacer-com-v1-module";

describe("metrics", () => {
  let server: LiveServer;
  let metricsServer: MetricsServer;
  before(async () => {
    const metrics = new WebhookMetrics();
    server = await startLiveServer(undefined, { metrics });
    metricsServer = await startMetricsServer(0, registryCollector(metrics.registry), "127.0.0.1");
  });
  after(async () => {
    await server.close();
    await metricsServer.close();
  });

  it("names them as controller-runtime does, counts by webhook and code, and denials by kind and cause", async () => {
    const invalid = helmModule();
    if (invalid.spec.helm) invalid.spec.helm.releaseName = "Bad_Name";
    // Two Invalid causes and a Forbidden one (a multipleOptions value); repliacs only warns.
    invalid.spec.config = { ...invalid.spec.config, replicas: 9, repliacs: 1, features: ["logging"] };
    await server.post(validatePath, admissionReview({ operation: "CREATE", object: helmModule() }));
    await server.post(validatePath, admissionReview({ operation: "CREATE", object: invalid }));
    await server.post(validatePath, "not json");
    await server.post(mutatePath, admissionReview({ operation: "CREATE", object: helmModule() }));
    const { status, text } = await httpGet(metricsServer.port, "/metrics");
    assert.equal(status, 200);
    const requests = "controller_runtime_webhook_requests_total";
    assert.equal(sample(text, requests, { webhook: validatePath, code: "200" }), 2);
    assert.equal(sample(text, requests, { webhook: validatePath, code: "400" }), 1);
    assert.equal(sample(text, requests, { webhook: mutatePath, code: "200" }), 1);
    assert.equal(
      sample(text, "controller_runtime_webhook_latency_seconds_count", { webhook: validatePath }),
      3,
    );
    assert.equal(sample(text, "controller_runtime_webhook_requests_in_flight", { webhook: validatePath }), 0);
    const denials = "module_admission_denials_total";
    assert.equal(sample(text, denials, { kind: "Module", cause: "FieldValueInvalid" }), 1);
    assert.equal(sample(text, denials, { kind: "Module", cause: "FieldValueForbidden" }), 1);
    assert.ok(
      !text.includes("repliacs") && !text.includes("spec.helm"),
      "no field paths or user keys in labels",
    );
    assert.ok((sample(text, "process_resident_memory_bytes") ?? 0) > 0);
    assert.ok((sample(text, "process_cpu_seconds_total") ?? 0) > 0);
    assert.ok((sample(text, "nodejs_heap_size_used_bytes") ?? 0) > 0);
    const utilization = sample(text, "nodejs_eventloop_utilization") ?? -1;
    assert.ok(utilization >= 0 && utilization <= 1, `event loop utilization ${utilization}`);
    assert.equal((await httpGet(metricsServer.port, "/other")).status, 404);
  });

  it("counts updates admitted only because of ratcheting, by kind", async () => {
    // Stored with a multipleOptions value (the operator refuses every one).
    const stored = helmModule();
    stored.spec.config = { ...stored.spec.config, features: ["logging"] };
    const hibernated = structuredClone(stored);
    hibernated.spec.hibernated = true;
    const worse = structuredClone(stored);
    const version = worse.config?.[0];
    if (version?.option) version.option.default = "1.0";
    const valid = helmModule();
    const validUpdate = structuredClone(valid);
    validUpdate.spec.hibernated = true;
    const post = (object: unknown, oldObject: unknown) =>
      server.post(validatePath, admissionReview({ operation: "UPDATE", object, oldObject }));
    await post(hibernated, stored); // admitted only because ratcheting spared spec.config.features
    await post(hibernated, stored);
    await post(worse, stored); // denied: a new problem
    await post(validUpdate, valid); // admitted: nothing to spare
    const { text } = await httpGet(metricsServer.port, "/metrics");
    assert.equal(sample(text, "module_admission_ratcheted_total", { kind: "Module" }), 2);
  });
});
