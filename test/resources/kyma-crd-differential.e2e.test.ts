import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { loadAll } from "js-yaml";
import { FieldPath } from "../../src/base/field-path.js";
import type { OfflineVerdict } from "../../src/offline/admit.js";
import { kubectlApply } from "../support/chart-webhooks.js";
import { useControlPlane } from "../support/control-plane.js";
import { corpusPath, withoutCorpus } from "../support/corpus.js";
import {
  generateModuleReleaseMeta,
  generateModuleTemplate,
  kymaNamespace,
} from "../support/differential/kyma.js";
import {
  dryRunClient,
  kymaDifferential,
  kymaDisagreement,
  type ServerVerdict,
  sameMessages,
} from "../support/differential/kyma-crds.js";
import { describeDisagreements, Random } from "../support/differential/random.js";
import { withoutGo } from "../support/go-tools.js";

type Json = Record<string, unknown>;

/** Generated objects per kind: a short run in `npm test`; MODULE_ADMISSION_KYMA_CASES for a long one. */
const cases = Number(process.env.MODULE_ADMISSION_KYMA_CASES ?? 300);

const yamlObjects = (...folder: string[]): { file: string; object: Json }[] => {
  const dir = corpusPath(...folder);
  return readdirSync(dir)
    .filter((file) => file.endsWith(".yaml"))
    .sort()
    .flatMap((file) =>
      (loadAll(readFileSync(join(dir, file), "utf8")) as Json[])
        .filter((object) => object?.kind)
        .map((object) => ({ file, object })),
    );
};

/**
 * lifecycle-manager's own CRDs (../shared/kyma/crds, its config/crd/bases at c5b83f1) in the real API
 * server are the oracle for ModuleTemplate and ModuleReleaseMeta: the corpus's real templates and
 * generated objects of both kinds, created there with dryRun and judged by `admitOffline` (what
 * `validate` runs). See test/support/differential/kyma-crds.ts for what must agree.
 */
describe("Kyma's kinds: lifecycle-manager's CRDs in the real API server against our schemas and rules", {
  skip: withoutGo || withoutCorpus,
}, () => {
  const cluster = useControlPlane();
  let serverVerdict: (object: Json) => Promise<ServerVerdict>;

  before(async () => {
    const crds = yamlObjects("kyma", "crds")
      .filter(({ file }) => file.startsWith("operator.kyma-project.io_"))
      .map(({ object }) => object);
    assert.equal(crds.length, 2);
    await kubectlApply(cluster(), crds, ["--server-side"]);
    await kubectlApply(cluster(), [
      { apiVersion: "v1", kind: "Namespace", metadata: { name: kymaNamespace } },
    ]);
    const wait = await cluster().kubectl([
      "wait",
      "--for=condition=Established",
      "--timeout=120s",
      "crd/moduletemplates.operator.kyma-project.io",
      "crd/modulereleasemetas.operator.kyma-project.io",
    ]);
    assert.equal(wait.code, 0, wait.stderr);
    serverVerdict = await dryRunClient(cluster());
  });

  it("the 75 real ModuleTemplates of ../shared/kyma/moduletemplates", async () => {
    const templates = yamlObjects("kyma", "moduletemplates").map(({ object }) => ({
      ...object,
      metadata: { ...(object.metadata as Json), namespace: kymaNamespace },
    }));
    assert.equal(templates.length, 75);
    const run = await kymaDifferential(serverVerdict, "corpus templates", templates);
    assert.equal(run.refused, 0, "the server stores every real template");
    assert.equal(run.disagreements.length, 0, describeDisagreements(run));
  });

  it(`${cases} generated ModuleTemplates`, async () => {
    const random = new Random(33);
    const templates = Array.from({ length: cases }, () => generateModuleTemplate(random));
    const run = await kymaDifferential(serverVerdict, "generated templates", templates);
    console.error(summary("ModuleTemplates", run));
    assert.equal(run.disagreements.length, 0, describeDisagreements(run, 20));
    // The generator reaches both sides of the server, and our stricter rules.
    assert.ok(run.refused > cases / 10 && run.refused < cases - cases / 10, summary("ModuleTemplates", run));
    assert.ok(run.deniedStricter > 0, summary("ModuleTemplates", run));
  });

  it(`${cases} generated ModuleReleaseMetas`, async () => {
    const random = new Random(33);
    const metas = Array.from({ length: cases }, () => generateModuleReleaseMeta(random));
    const run = await kymaDifferential(serverVerdict, "generated release metas", metas);
    console.error(summary("ModuleReleaseMetas", run));
    assert.equal(run.disagreements.length, 0, describeDisagreements(run, 20));
    assert.ok(
      run.refused > cases / 10 && run.refused < cases - cases / 10,
      summary("ModuleReleaseMetas", run),
    );
  });
});

const summary = (kind: string, run: { cases: number; refused: number; deniedStricter: number }) =>
  `${kind}: ${run.cases} generated, ${run.refused} refused by the API server, ${run.deniedStricter} stored by it and denied by a rule declared stricter`;

describe("the Kyma differential's comparison sees a difference", () => {
  const verdict = (errors: string[], allowed = errors.length === 0): OfflineVerdict => ({
    allowed,
    errors: errors.map((message) => ({
      stage: "schema" as const,
      field: FieldPath.empty,
      type: "x",
      message,
    })),
    warnings: [],
    patch: [],
  });
  const server = (causes: string[], code = causes.length === 0 ? 201 : 422): ServerVerdict => ({
    allowed: code === 201,
    code,
    causes,
    warnings: [],
    ...(code === 201 ? { stored: {} } : {}),
  });
  const judged = (s: ServerVerdict, ours: OfflineVerdict) => ({
    server: s,
    ours,
    stored: {},
    decodeMessages: [],
  });

  it("a refusal we admit, other causes, a cause of our CRD the server has not", () => {
    const cause = "spec.channel: Invalid value: \"ab\": spec.channel in body should match '^$|^[a-z]{3,}$'";
    assert.ok(kymaDisagreement({}, judged(server([cause]), verdict([]))));
    assert.ok(kymaDisagreement({}, judged(server([cause]), verdict(["spec.channel: Required value"]))));
    assert.ok(kymaDisagreement({}, judged(server([]), verdict([cause]))));
    assert.equal(kymaDisagreement({}, judged(server([cause]), verdict([cause]))), undefined);
  });

  it("a webhook denial of a stored object is explained only by a rule declared stricter", () => {
    const denied = (rule: string) => ({
      ...verdict([], false),
      errors: [
        { stage: "validating-webhook" as const, field: FieldPath.empty, type: "x", message: "m", rule },
      ],
    });
    assert.equal(kymaDisagreement({}, judged(server([]), denied("moduletemplate.link"))), undefined);
    assert.ok(kymaDisagreement({}, judged(server([]), denied("moduletemplate.unique-name"))));
  });

  it("a value cut at 200 characters matches the server's whole value, nothing else does", () => {
    const whole = `metadata.name: Invalid value: "${"k".repeat(300)}": must be no more than 253 characters`;
    const cut = `metadata.name: Invalid value: "${"k".repeat(199)}...: must be no more than 253 characters`;
    assert.ok(sameMessages([cut], [whole]));
    assert.ok(!sameMessages([cut], [whole.replace("253", "63")]));
    assert.ok(!sameMessages([cut, cut], [whole]));
  });
});
