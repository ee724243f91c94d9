import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { webhookPath } from "../../src/admission/resource-kind.js";
import { judgeOf } from "../../src/admission/review-protocol.js";
import { resourceKinds } from "../../src/resources/index.js";
import { fuzzKinds, grown, growthsOf } from "./complexity-fuzz.js";

/**
 * Run as its own process (node --import tsx, young generation fixed at 64 MiB so that no collection
 * falls inside a review): judges each review of argv (`KIND FIELD N CREATE|KEPT`) through the worker's
 * judge, then says on stdout, as JSON, how many bytes the review allocated and how many of them a
 * young-generation collection after it still found alive (what V8 would copy and promote), the least
 * share of five.
 */
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as (options?: { type: "minor" | "major" }) => void;
const heapUsed = () => process.memoryUsage().heapUsed;
const { judge } = judgeOf(resourceKinds);
const results: { review: string; allocated: number; alive: number }[] = [];
for (const spec of process.argv.slice(2)) {
  const [kindName, field, n, operation] = spec.split(" ");
  const kind = fuzzKinds().find((k) => k.name === kindName);
  const growth = kind && growthsOf(kind).find((g) => g.path.join(".") === field);
  if (!kind || !growth) throw new Error(`no fuzz growth ${spec}`);
  const object = grown(kind, growth, Number(n));
  const review = kind.review(object);
  if (operation === "KEPT" && review.request) {
    const oldObject = structuredClone(object) as { metadata?: { labels?: Record<string, string> } };
    oldObject.metadata = { ...oldObject.metadata, labels: { ...oldObject.metadata?.labels, before: "yes" } };
    Object.assign(review.request, { operation: "UPDATE", oldObject });
  }
  const body = new TextEncoder().encode(JSON.stringify(review));
  const path = webhookPath(kind.kind, "validate");
  for (let warm = 0; warm < 2; warm++) await judge(path, body);
  // A collection the heap began on its own may still fall inside one: the least share alive of five.
  let least: { allocated: number; alive: number } | undefined;
  for (let attempt = 0; attempt < 5; attempt++) {
    gc({ type: "major" });
    const before = heapUsed();
    await judge(path, body);
    await new Promise((resolve) => setImmediate(resolve));
    const allocated = heapUsed() - before;
    gc({ type: "minor" });
    const alive = heapUsed() - before;
    if (allocated > 0 && (!least || alive / allocated < least.alive / least.allocated))
      least = { allocated, alive };
  }
  results.push({ review: spec, allocated: least?.allocated ?? 0, alive: least?.alive ?? 0 });
}
process.stdout.write(JSON.stringify(results));
