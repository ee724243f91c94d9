import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { loadAll } from "js-yaml";
import { admissionResponse } from "../../src/admission/answer.js";
import { judgeMutation, judgeValidation, validate } from "../../src/admission/handler.js";
import { type ResourceKind, webhooksOf } from "../../src/admission/resource-kind.js";
import { type AdmissionRequest, encodeReview } from "../../src/admission/review.js";
import type { ReviewVerdict } from "../../src/admission/verdict.js";
import { limits, truncate } from "../../src/base/limits.js";
import { type Problem, verdictProblems } from "../../src/offline/admit.js";
import { resourceKinds } from "../../src/resources/index.js";
import { admissionCases } from "../support/admission-cases.js";
import { splitCauseMessage } from "../support/cause-message.js";
import { type LiveServer, startLiveServer } from "../support/live-server.js";
import { kedaReleaseMeta, releaseMetaReview } from "../support/modulereleasemetas.js";
import { helmModule } from "../support/modules.js";
import { kedaTemplate, specExampleTemplates, templateReview } from "../support/moduletemplates.js";
import { admissionReview } from "../support/reviews.js";
import { workspace } from "../support/workspaces.js";

/**
 * The server and `validate` answer from one verdict: the AdmissionResponse (`admissionResponse`) and
 * validate's problems (`verdictProblems`) must say the same thing, cause by cause and warning by
 * warning, within the same bounds. The response is read as a client reads it (the rule id from the
 * cause text); the problems as validate reports them.
 */

interface Named {
  name: string;
  kind: ResourceKind;
  request: AdmissionRequest;
}

const kindFor = (request: AdmissionRequest): ResourceKind => {
  const kind = resourceKinds.find((k) => k.group === request.kind.group && k.kind === request.kind.kind);
  assert.ok(kind, `a served kind for ${request.kind.kind}`);
  return kind;
};

const named = (name: string, review: { request?: AdmissionRequest }): Named => {
  assert.ok(review.request);
  return { name, kind: kindFor(review.request), request: review.request };
};

/** Every case of the suites: the end-to-end table (with its denial cases), each kind's examples, and bounds. */
function cases(): Named[] {
  const module = admissionCases().map((c) => named(c.name, c.review));
  const templates = [
    named("keda ModuleTemplate", templateReview({ operation: "CREATE", object: kedaTemplate() })),
    ...specExampleTemplates().map((t) =>
      named(`template ${t.title}`, templateReview({ operation: "CREATE", object: t.template })),
    ),
  ];
  const downgrade = kedaReleaseMeta({ regular: "1.2.0" });
  const metas = [
    named("keda ModuleReleaseMeta", releaseMetaReview({ operation: "CREATE", object: kedaReleaseMeta() })),
    named(
      "a channel downgraded",
      releaseMetaReview({
        operation: "UPDATE",
        object: downgrade,
        oldObject: kedaReleaseMeta({ regular: "1.3.0" }),
      }),
    ),
  ];
  const workspaces = [
    named(
      "a Workspace",
      admissionReview({
        operation: "CREATE",
        object: workspace(),
        version: "v1",
        kind: "Workspace",
        resource: "workspaces",
      }),
    ),
  ];
  return [...module, ...templates, ...metas, ...workspaces, ...boundsCases()];
}

/** Objects whose answers reach the bounds: more than 100 errors, more than 4 KiB of warnings. */
function boundsCases(): Named[] {
  const manyErrors = helmModule();
  Object.assign(manyErrors.spec, {
    helm: { ...manyErrors.spec.helm, migration: { pvcs: Array.from({ length: 300 }, () => 7) } },
  });
  const manyWarnings = helmModule();
  manyWarnings.spec.config = Object.fromEntries(
    Array.from({ length: 120 }, (_, i) => [`undeclared-key-with-a-rather-long-name-${i}`, i]),
  );
  return [
    named("300 wrong-typed items: 100 causes", admissionReview({ operation: "CREATE", object: manyErrors })),
    named(
      "120 undeclared keys: 4 KiB of warnings",
      admissionReview({ operation: "CREATE", object: manyWarnings }),
    ),
  ];
}

/** Real manifests of the corpora, when the corpus is beside the project: each a CREATE. */
function corpusCases(): Named[] {
  const dirs = ["../../../shared/kyma/moduletemplates/", "../../../shared/forkspacer/manifests/"].map((dir) =>
    fileURLToPath(new URL(dir, import.meta.url)),
  );
  return dirs.filter(existsSync).flatMap((dir) =>
    readdirSync(dir)
      .filter((file) => file.endsWith(".yaml"))
      .flatMap((file) => {
        let documents: unknown[];
        try {
          documents = loadAll(readFileSync(`${dir}${file}`, "utf8"));
        } catch {
          return [];
        }
        return documents.flatMap((object, i) => {
          const { apiVersion, kind: name } = (object ?? {}) as { apiVersion?: string; kind?: string };
          const kind = resourceKinds.find((k) => apiVersion === `${k.group}/${k.version}` && name === k.kind);
          if (!kind) return [];
          const review = admissionReview({
            operation: "CREATE",
            object,
            group: kind.group,
            version: kind.version,
            kind: kind.kind,
          });
          return [named(`${file}#${i}`, review)];
        });
      }),
  );
}

/** What a client reads from a response: each cause's type, field, kubectl line and rule; the warnings. */
function asClientReads(response: ReturnType<typeof admissionResponse>) {
  const causes = response.status?.details?.causes;
  const errors = response.allowed
    ? []
    : causes === undefined
      ? [{ type: response.status?.reason, field: "", message: response.status?.message, rule: null }]
      : causes.map((cause) => {
          const { message, rule } = splitCauseMessage(cause.message);
          return {
            type: cause.reason,
            field: cause.field,
            message: cause.field ? `${cause.field}: ${message}` : message,
            rule: rule ?? null,
          };
        });
  return { errors, warnings: response.warnings ?? [] };
}

/** What validate reports, in the same terms. */
function asValidateReports(problems: { errors: Problem[]; warnings: Problem[] }) {
  return {
    errors: problems.errors.map((problem) => ({
      type: problem.type,
      field: truncate(String(problem.field), limits.fieldChars),
      message: problem.message,
      rule: problem.rule ?? null,
    })),
    warnings: problems.warnings.map((problem) => problem.message),
  };
}

function assertWithinBounds(text: string, response: ReturnType<typeof admissionResponse>) {
  assert.ok(Buffer.byteLength(text) <= limits.answerBytes);
  assert.ok((response.status?.details?.causes?.length ?? 0) <= limits.causes);
  const warnings = response.warnings ?? [];
  assert.ok(warnings.every((warning) => warning.length <= limits.warningChars));
  assert.ok(warnings.reduce((sum, warning) => sum + Buffer.byteLength(warning), 0) <= limits.warningBytes);
}

/** The verdict, its response as the server sends it, and validate's problems from the same verdict. */
function bothFrom(
  kind: ResourceKind,
  request: AdmissionRequest,
  verdict: ReviewVerdict,
  stage: Problem["stage"],
) {
  const response = admissionResponse(kind, request, verdict);
  const text = encodeReview(response);
  assertWithinBounds(text, response);
  return { response, problems: verdictProblems(stage, kind, request, verdict) };
}

describe("one verdict, two answers: the server's response and validate's findings agree", () => {
  const all = [...cases(), ...corpusCases()];

  it("covers every suite, the bounds and (when present) the real corpora", () => {
    assert.ok(all.length >= 60, `${all.length} cases`);
    assert.ok(
      all.some((c) => c.kind.kind === "ModuleTemplate") && all.some((c) => c.kind.kind === "Workspace"),
    );
  });

  it("validating: the same errors (type, field, message, rule) and warnings, within the same bounds", async () => {
    let denied = 0;
    let warned = 0;
    let cut = 0;
    for (const { name, kind, request } of all) {
      const verdict = await judgeValidation(kind, request);
      const { response, problems } = bothFrom(kind, request, verdict, "validating-webhook");
      assert.deepEqual(asValidateReports(problems), asClientReads(response), name);
      // The handler's validate is that same response.
      assert.deepEqual(await validate(kind, request), admissionResponse(kind, request, verdict), name);
      if (!response.allowed) denied++;
      if ((response.warnings ?? []).length > 0) warned++;
      const moreErrors = response.status?.details?.causes?.at(-1)?.message.endsWith("more errors");
      const moreWarnings = response.warnings?.at(-1)?.endsWith("more warnings");
      if (moreErrors || moreWarnings) cut++;
    }
    // Not vacuous: the cases deny, warn and reach the bounds.
    assert.ok(denied >= 20, `${denied} denied`);
    assert.ok(warned >= 5, `${warned} warned`);
    assert.ok(cut >= 2, `${cut} cut by the bounds`);
  });

  it("mutating: the same patch and warnings", () => {
    for (const { name, kind, request } of all) {
      const verdict = judgeMutation(kind, request);
      const { response, problems } = bothFrom(kind, request, verdict, "mutating-webhook");
      assert.deepEqual(asValidateReports(problems), asClientReads(response), name);
      const sent = response.patch ? JSON.parse(Buffer.from(response.patch, "base64").toString("utf8")) : [];
      assert.deepEqual(sent, verdict.patch, name);
    }
  });

  it("bounds: 100 causes with a count of the rest, and 4 KiB of warnings with a count of the rest", async () => {
    const [manyErrors, manyWarnings] = boundsCases();
    assert.ok(manyErrors && manyWarnings);
    const errors = await judgeValidation(manyErrors.kind, manyErrors.request);
    const fromErrors = bothFrom(manyErrors.kind, manyErrors.request, errors, "validating-webhook");
    assert.equal(fromErrors.problems.errors.length, limits.causes);
    assert.match(fromErrors.problems.errors.at(-1)?.message ?? "", /^\.\.\. and \d+ more errors$/);
    const warnings = await judgeValidation(manyWarnings.kind, manyWarnings.request);
    const fromWarnings = bothFrom(manyWarnings.kind, manyWarnings.request, warnings, "validating-webhook");
    assert.match(fromWarnings.problems.warnings.at(-1)?.message ?? "", /^\.\.\. and \d+ more warnings$/);
    assert.ok(fromWarnings.problems.warnings.length < warnings.warnings.length);
  });

  describe("through the real HTTPS server", () => {
    let server: LiveServer;
    before(async () => {
      server = await startLiveServer();
    });
    after(() => server.close());

    it("answers each of a few cases exactly as admissionResponse does from the verdict", async () => {
      const few = all.filter((_, i) => i % 7 === 0).slice(0, 12);
      for (const { name, kind, request } of few) {
        const path = webhooksOf(kind).find((hook) => hook.verb === "validate")?.path;
        assert.ok(path);
        const reply = await server.post(path, {
          apiVersion: "admission.k8s.io/v1",
          kind: "AdmissionReview",
          request,
        });
        const verdict = await judgeValidation(kind, request);
        assert.deepEqual(reply.json.response, admissionResponse(kind, request, verdict), name);
      }
    });
  });
});
