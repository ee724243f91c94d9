import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { after, before, describe, it } from "node:test";
import { dump } from "js-yaml";
import { parseRuleActions } from "../../src/admission/rule-actions.js";
import { createResourceKinds, resourceKinds } from "../../src/resources/index.js";
import { builtCli, builtFindings } from "../support/built-cli.js";
import { splitCauseMessage } from "../support/cause-message.js";
import { manifestDir } from "../support/cli.js";
import { type LiveServer, startLiveServer } from "../support/live-server.js";
import { kedaReleaseMeta, releaseMetaReview } from "../support/modulereleasemetas.js";
import { helmModule } from "../support/modules.js";
import { kedaTemplate } from "../support/moduletemplates.js";
import { admissionReview } from "../support/reviews.js";
import { buildCommand } from "../support/serve-process.js";
import { workspace } from "../support/workspaces.js";

/** The built CLI with `stdin` on its standard input. */
function withStdin(args: string[], stdin: string) {
  const run = spawnSync(process.execPath, [buildCommand(), ...args], { input: stdin, encoding: "utf8" });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** serve's answer, as a client reads it: errors as `field: message`, and the warnings. */
async function served(server: LiveServer, path: string, review: unknown) {
  const reply = await server.post(path, review);
  const response = reply.json.response;
  const causes = (response.status?.details?.causes ?? []) as { field: string; message: string }[];
  return {
    allowed: response.allowed as boolean,
    errors: causes.map((cause) => `${cause.field}: ${splitCauseMessage(cause.message).message}`).sort(),
    warnings: ((response.warnings ?? []) as string[]).sort(),
  };
}

/** validate's answer on one file, in the same terms. */
function validated(run: { stdout: string; status: number }) {
  const findings = builtFindings(run);
  return {
    allowed: run.status === 0,
    errors: findings
      .filter((f) => f.severity === "error")
      .map((f) => f.message)
      .sort(),
    warnings: findings
      .filter((f) => f.severity === "warning")
      .map((f) => f.message)
      .sort(),
  };
}

describe("validate --krm reads stdin when no path is given", () => {
  it("answers the ResourceList on stdin with its results, as a KRM function", () => {
    const module = helmModule();
    const list = {
      apiVersion: "config.kubernetes.io/v1",
      kind: "ResourceList",
      items: [{ ...module, kind: "Modul" }],
    };
    const run = withStdin(["validate", "--krm"], dump(list));
    assert.equal(run.status, 1, run.stderr);
    assert.match(run.stdout, /kind: ResourceList/);
    assert.match(run.stdout, /results:\n {2}- message: .*did you mean batch\.forkspacer\.com\/v1 Module\?/);
    // The lookup it could not make, once, as an info result.
    const inWorkspace = { ...list, items: [module] };
    const clean = withStdin(["validate", "--krm"], dump(inWorkspace));
    assert.equal(clean.status, 0, clean.stderr);
    assert.match(
      clean.stdout,
      /- message: 'not checked \(1 objects\): Module spec\.workspace names a Workspace that exists[^']*'\n {4}severity: info\n {4}tags:\n {6}rule: module\.workspace-exists/,
    );
    const none = withStdin(["validate"], dump(list));
    assert.equal(none.status, 2);
    assert.match(none.stderr, /no input/);
  });
});

describe("--rule-action means in validate what it means in serve", () => {
  const misspelt = helmModule();
  Object.assign(misspelt.spec.helm ?? {}, { relaseName: "typo" });
  misspelt.spec.config = { ...misspelt.spec.config, replicas: 7 };
  const cases: { actions: string[]; expect: { allowed: boolean; warnings: number } }[] = [
    { actions: [], expect: { allowed: false, warnings: 1 } },
    { actions: ["module.unknown-field=off"], expect: { allowed: false, warnings: 0 } },
    {
      actions: ["module.unknown-field=off", "module.config-value=warn"],
      expect: { allowed: true, warnings: 1 },
    },
    { actions: ["module.config-value=off"], expect: { allowed: true, warnings: 1 } },
  ];
  for (const { actions, expect } of cases) {
    it(`${actions.join(", ") || "no rule action"}: the same verdict, errors and warnings`, async () => {
      const server = await startLiveServer(resourceKinds, { ruleActions: parseRuleActions(actions) });
      try {
        const serve = await served(
          server,
          "/validate-batch-forkspacer-com-v1-module",
          admissionReview({ operation: "CREATE", object: misspelt }),
        );
        const dir = manifestDir({ "m.yaml": [misspelt] });
        const run = builtCli([
          "validate",
          "-o",
          "json",
          ...actions.flatMap((a) => ["--rule-action", a]),
          dir,
        ]);
        assert.deepEqual(validated(run), serve);
        assert.deepEqual({ allowed: serve.allowed, warnings: serve.warnings.length }, expect);
      } finally {
        await server.close();
      }
    });
  }
});

describe("lookups validate cannot make are named, and --cluster-objects makes them", () => {
  let server: LiveServer;
  before(async () => {
    // serve with a cluster holding the Workspace dev-environment and ModuleTemplate keda-1.2.0.
    const workspaces = new Set(["default/dev-environment"]);
    const templates = new Set(["kcp-system/keda-1.2.0"]);
    server = await startLiveServer(
      createResourceKinds({
        workspaceExists: (namespace, name) => workspaces.has(`${namespace}/${name}`),
        moduleTemplateExists: (namespace, name) => templates.has(`${namespace}/${name}`),
      }),
    );
  });
  after(() => server.close());

  const elsewhere = () => {
    const module = helmModule();
    module.metadata = { ...module.metadata, name: "elsewhere" };
    module.spec.workspace = { name: "absent" };
    return module;
  };

  it("without --cluster-objects: passes, and names each lookup once with its count (text, JSON, SARIF)", () => {
    const dir = manifestDir({
      "m.yaml": [helmModule(), elsewhere(), kedaReleaseMeta({ regular: "1.2.0", fast: "9.9.9" })],
    });
    const text = builtCli(["validate", dir]);
    assert.equal(text.status, 0, text.stdout);
    const notes = text.stdout.split("\n").filter((line) => line.startsWith("not checked: "));
    assert.deepEqual(notes, [
      "not checked: module.workspace-exists (2 objects): Module spec.workspace names a Workspace that exists: a cluster lookup; give the Workspaces with --cluster-objects FILE|DIR",
      "not checked: modulereleasemeta.template-exists (1 object): ModuleReleaseMeta each assigned version has its ModuleTemplate <moduleName>-<version>: a cluster lookup; give the ModuleTemplates with --cluster-objects FILE|DIR",
    ]);
    const json = JSON.parse(builtCli(["validate", "-o", "json", dir]).stdout);
    assert.deepEqual(
      json.summary.notChecked.map((n: { check: string; objects: number }) => [n.check, n.objects]),
      [
        ["module.workspace-exists", 2],
        ["modulereleasemeta.template-exists", 1],
      ],
    );
    const sarif = JSON.parse(builtCli(["validate", "-o", "sarif", dir]).stdout);
    const notifications = sarif.runs[0].invocations[0].toolExecutionNotifications;
    assert.deepEqual(
      notifications.map((n: { descriptor: { id: string } }) => n.descriptor.id),
      ["module.workspace-exists", "modulereleasemeta.template-exists"],
    );
  });

  it("without --cluster-objects: the input's own objects answer the lookups they can, the rest are named", () => {
    // The Workspace `absent` and the template keda-1.2.0 are in the input; dev-environment is not.
    const dir = manifestDir({
      "m.yaml": [
        workspace("absent"),
        elsewhere(),
        helmModule(),
        kedaTemplate(),
        kedaReleaseMeta({ regular: "1.2.0" }),
      ],
    });
    const text = builtCli(["validate", dir]);
    assert.equal(text.status, 0, text.stdout);
    const notes = text.stdout.split("\n").filter((line) => line.startsWith("not checked: "));
    assert.deepEqual(notes, [
      "not checked: module.workspace-exists (1 object): Module spec.workspace names a Workspace that exists: a cluster lookup; give the Workspaces with --cluster-objects FILE|DIR",
    ]);
    const answered = manifestDir({ "m.yaml": [workspace("absent"), elsewhere()] });
    const json = JSON.parse(builtCli(["validate", "-o", "json", answered]).stdout);
    assert.equal(json.summary.notChecked, undefined);
  });

  it("with --cluster-objects: serve's verdict, the input's own Workspaces counted as existing", async () => {
    const clusterDir = manifestDir({ "cluster.yaml": [workspace(), kedaTemplate()] });
    const cases = [
      {
        name: "Module in an existing Workspace",
        object: helmModule(),
        path: "/validate-batch-forkspacer-com-v1-module",
        review: admissionReview({ operation: "CREATE", object: helmModule() }),
      },
      {
        name: "Module in an absent Workspace",
        object: elsewhere(),
        path: "/validate-batch-forkspacer-com-v1-module",
        review: admissionReview({ operation: "CREATE", object: elsewhere() }),
      },
      {
        name: "a channel without its template",
        object: kedaReleaseMeta({ regular: "1.2.0", fast: "9.9.9" }),
        path: "/validate-operator-kyma-project-io-v1beta2-modulereleasemeta",
        review: releaseMetaReview({
          operation: "CREATE",
          object: kedaReleaseMeta({ regular: "1.2.0", fast: "9.9.9" }),
        }),
      },
    ];
    for (const c of cases) {
      const dir = manifestDir({ "m.yaml": [c.object] });
      const run = builtCli(["validate", "-o", "json", "--cluster-objects", clusterDir, dir]);
      assert.deepEqual(validated(run), await served(server, c.path, c.review), c.name);
      assert.equal(JSON.parse(run.stdout).summary.notChecked, undefined, c.name);
    }
    // The absent Workspace given in the input beside its Module: it exists when the Module is admitted.
    const together = manifestDir({ "m.yaml": [workspace("absent"), elsewhere()] });
    const run = builtCli(["validate", "--cluster-objects", clusterDir, together]);
    assert.equal(run.status, 0, run.stdout);
  });
});
