import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AggregatorRegistry, Counter, Gauge, Histogram, Registry } from "prom-client";
import { CounterSeries, PathHistogram, type RegistrableMetric } from "../../src/server/path-series.js";

const register = (registry: Registry, metric: RegistrableMetric) =>
  registry.registerMetric(metric as unknown as Parameters<Registry["registerMetric"]>[0]);

/** The same observations through prom-client's own metrics and through ours render the same text. */
describe("path series", () => {
  const observations: [string, number][] = [
    ["/validate-a", 0.0004],
    ["/validate-a", 0.005],
    ["/validate-a", 0.0051],
    ["/mutate-b", 0.3],
    ["/mutate-b", 12],
    ["/validate-a", 2.5],
  ];
  const codes: [string, string][] = [
    ["/validate-a", "200"],
    ["/validate-a", "400"],
    ["/mutate-b", "200"],
    ["/validate-a", "200"],
  ];

  function theirs() {
    const registry = new Registry();
    const histogram = new Histogram({
      name: "h",
      help: "a histogram",
      labelNames: ["webhook"],
      registers: [registry],
    });
    const counter = new Counter({
      name: "c",
      help: "a counter",
      labelNames: ["webhook", "code"],
      registers: [registry],
    });
    const gauge = new Gauge({ name: "g", help: "a gauge", labelNames: ["webhook"], registers: [registry] });
    for (const [path, seconds] of observations) histogram.labels(path).observe(seconds);
    for (const [path, code] of codes) counter.labels(path, code).inc();
    gauge.labels("/validate-a").inc();
    gauge.labels("/validate-a").inc();
    gauge.labels("/validate-a").dec();
    return registry;
  }

  function ours() {
    const registry = new Registry();
    const histogram = new PathHistogram("h", "a histogram", "webhook");
    const counter = new CounterSeries("counter", "c", "a counter", ["webhook", "code"]);
    const gauge = new CounterSeries("gauge", "g", "a gauge", ["webhook"]);
    for (const metric of [histogram, counter, gauge]) register(registry, metric);
    for (const [path, seconds] of observations) histogram.observe(histogram.cell(path), seconds);
    for (const [path, code] of codes) counter.cell(path, code).value++;
    gauge.cell("/validate-a").value++;
    gauge.cell("/validate-a").value++;
    gauge.cell("/validate-a").value--;
    return registry;
  }

  it("render as prom-client's Histogram, Counter and Gauge do", async () => {
    assert.equal(await ours().metrics(), await theirs().metrics());
  });

  it("sum across workers as prom-client's do", async () => {
    const aggregate = async (make: () => Registry) => {
      const workers = [await make().getMetricsAsJSON(), await make().getMetricsAsJSON()];
      return AggregatorRegistry.aggregate(workers).metrics();
    };
    const summed = await aggregate(ours);
    assert.equal(summed, await aggregate(theirs));
    assert.match(summed, /^h_count\{webhook="\/validate-a"\} 8$/m);
  });
});
