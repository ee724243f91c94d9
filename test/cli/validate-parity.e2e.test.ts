import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import jsonpatch from "fast-json-patch";
import { FieldPath } from "../../src/admission/field-path.js";
import type { AdmissionResponse, StatusCause } from "../../src/admission/review.js";
import { finalizerWarnings } from "../../src/apiextensions/embedded-object-meta.js";
import { reportedByCel } from "../../src/offline/duplicates.js";
import { offlineKinds } from "../../src/offline/kinds.js";
import { dns1123LabelProblems } from "../../src/validation/names.js";
import { pruneAndDefault } from "../../src/validation/prune-default.js";
import { admissionCases } from "../support/admission-cases.js";
import { splitCauseMessage } from "../support/cause-message.js";
import { jsonFindings, manifestDir, validateCli } from "../support/cli.js";
import { type LiveServer, startLiveServer } from "../support/live-server.js";
import { admissionReview, clone } from "../support/reviews.js";

const metadataOf = (object: unknown) => (object as { metadata?: unknown } | null | undefined)?.metadata;

const mutatePath = "/mutate-batch-forkspacer-com-v1-module";
const validatePath = "/validate-batch-forkspacer-com-v1-module";

const moduleCrdSchema = offlineKinds().find((k) => k.kind.kind === "Module")?.crdSchema;

/**
 * Objects as the API server hands them to webhooks: decoded with the CRD's defaults applied and unknown
 * fields pruned; the API server itself warns about the pruned fields (field validation "Warn").
 */
function asDecoded(posted: ReturnType<typeof admissionReview>) {
  assert.ok(moduleCrdSchema && posted.request);
  const pruned: string[] = [];
  const decode = (object: unknown) => {
    if (!object) return object;
    const structured = pruneAndDefault(moduleCrdSchema, object);
    pruned.push(...structured.pruned.map(String));
    return structured.object;
  };
  const request = { ...posted.request, oldObject: decode(posted.request.oldObject) };
  pruned.length = 0; // only the new object's fields draw warnings
  request.object = decode(posted.request.object);
  return {
    review: { ...posted, request },
    // It warns about the finalizers the object adds, too (test/control-plane-diff checks these warnings
    // against the real API server).
    apiServerWarnings: [
      ...pruned.map((field) => `unknown field "${field}"`),
      ...finalizerWarnings(metadataOf(request.object), metadataOf(request.oldObject)),
    ],
  };
}

/** A rendered path of these cases (dots and indexes, no dotted keys) as segments, to compare fields. */
const pathOf = (field: string) =>
  FieldPath.of(
    field
      .split(/[.[\]]/)
      .filter((step) => step !== "")
      .map((step) => (/^\d+$/.test(step) ? Number(step) : step)),
  );

/** What the cluster does with the live server: decode with defaults, mutate, apply the patch, validate. */
async function serverVerdict(server: LiveServer, posted: ReturnType<typeof admissionReview>) {
  const { review, apiServerWarnings } = asDecoded(posted);
  const request = review.request;
  assert.ok(request);
  const mutated = (await server.post(mutatePath, review)).json.response as AdmissionResponse;
  assert.equal(mutated.allowed, true);
  const operations = mutated.patch ? JSON.parse(Buffer.from(mutated.patch, "base64").toString("utf8")) : [];
  const object = jsonpatch.applyPatch(clone(request.object), operations, true, false).newDocument;
  const { operation, oldObject } = request;
  const validated = (
    await server.post(validatePath, admissionReview({ operation, object, oldObject: oldObject ?? undefined }))
  ).json.response as AdmissionResponse;
  const causes = (validated.status?.details?.causes ?? []) as StatusCause[];
  return {
    allowed: validated.allowed,
    // Each cause as validate reports it: the message without the rule suffix, the rule id beside it.
    // Each cause as validate reports it: the message without the rule suffix, the rule id beside it
    // (validate stops at the schema layer where the webhook's own structure check denies).
    causes: causes.map((cause) => {
      const { message, rule } = splitCauseMessage(cause.message);
      const layer = rule?.endsWith(".schema") ? "schema" : `validating-webhook/${rule}`;
      return {
        message: cause.field ? `${cause.field}: ${message}` : message,
        layer,
        rule,
        field: pathOf(cause.field),
      };
    }),
    warnings: [...apiServerWarnings, ...(mutated.warnings ?? []), ...(validated.warnings ?? [])].sort(),
  };
}

describe("validate gives the live server's verdict on every end-to-end case", () => {
  let server: LiveServer;
  before(async () => {
    server = await startLiveServer();
  });
  after(() => server.close());

  const cases = admissionCases();
  // DELETE and CONNECT carry no manifest to apply: there is nothing for validate to read. A namespace
  // that is no DNS label is refused by the API server before any webhook (validate says so too).
  const applicable = cases.filter(
    (c) =>
      (c.review.request?.operation === "CREATE" || c.review.request?.operation === "UPDATE") &&
      dns1123LabelProblems(String(c.review.request.namespace ?? "default")).length === 0,
  );

  it("covers the whole suite but the DELETE and CONNECT cases and a namespace no cluster can have", () => {
    assert.deepEqual(
      cases.filter((c) => !applicable.includes(c)).map((c) => c.name),
      ["no release name, namespace starting with a digit and too long", "delete", "connect"],
    );
    assert.ok(applicable.length >= 15, `${applicable.length} cases`);
  });

  for (const { name, review } of applicable) {
    it(name, async () => {
      const request = review.request;
      assert.ok(request);
      const expected = await serverVerdict(server, review);
      const dir = manifestDir({
        "object.yaml": [request.object],
        ...(request.oldObject ? { "old.yaml": [request.oldObject] } : {}),
      });
      const old = request.oldObject ? ["--old", join(dir, "old.yaml")] : [];
      const run = await validateCli(["-f", join(dir, "object.yaml"), ...old, "-o", "json"]);
      const findings = jsonFindings(run);
      const errors = findings.filter((f) => f.severity === "error");

      assert.equal(
        run.status,
        expected.allowed ? 0 : 1,
        `${run.stdout}\nserver: ${JSON.stringify(expected)}`,
      );
      // The webhook checks the structure itself; CEL findings are the CRD's layer, which the webhook mirrors.
      const webhookLayer = errors
        .filter((f) => !f.rule.startsWith("cel/"))
        .map((f) => [f.message, f.rule.startsWith("schema/") ? "schema" : f.rule]);
      // A webhook error that a CEL error reports too is reported once, as the CEL error (issue 24).
      const cel = errors
        .filter((f) => f.rule.startsWith("cel/"))
        .map((f) => ({ ...f, field: pathOf(f.field ?? "") }));
      const once = expected.causes.filter((cause) => !reportedByCel(cause, cel));
      assert.deepEqual(
        webhookLayer,
        once.map((cause) => [cause.message, cause.layer]),
      );
      if (expected.allowed) assert.deepEqual(errors, []);
      assert.deepEqual(
        findings
          .filter((f) => f.severity === "warning")
          .map((f) => f.message)
          .sort(),
        expected.warnings,
      );
    });
  }
});
