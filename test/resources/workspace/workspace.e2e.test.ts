import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Workspace } from "../../../src/generated/workspace.js";
import { createResourceKinds } from "../../../src/resources/index.js";
import { type LiveServer, startLiveServer } from "../../support/live-server.js";
import { admissionReview } from "../../support/reviews.js";

const validatePath = "/validate-batch-forkspacer-com-v1-workspace";
const mutatePath = "/mutate-batch-forkspacer-com-v1-workspace";

const workspace = (spec: Workspace["spec"] = {}): Workspace => ({
  apiVersion: "batch.forkspacer.com/v1",
  kind: "Workspace",
  metadata: { name: "dev", namespace: "default" },
  spec,
});
const review = (operation: "CREATE" | "UPDATE", object: Workspace, oldObject?: Workspace) =>
  admissionReview({ operation, object, oldObject, kind: "Workspace", resource: "workspaces" });

describe("Workspace webhooks over HTTPS, on the operator's paths", () => {
  let server: LiveServer;
  before(async () => {
    // A cluster with one Workspace, default/prod, for the `from` check.
    const kinds = createResourceKinds({ workspaceExists: (ns, name) => ns === "default" && name === "prod" });
    server = await startLiveServer(kinds);
  });
  after(() => server.close());

  const causes = async (body: unknown) => {
    const { response } = (await server.post(validatePath, body)).json;
    return response.allowed
      ? []
      : response.status.details.causes.map(
          (c: { field: string; message: string }) => `${c.field}: ${c.message}`,
        );
  };

  it("admits the operator's kinds of Workspace: in-cluster, kubeconfig with a Secret, forked, scheduled", async () => {
    assert.deepEqual(await causes(review("CREATE", workspace())), []);
    const kubeconfig = workspace({ connection: { type: "kubeconfig", secretReference: { name: "kc" } } });
    assert.deepEqual(await causes(review("CREATE", kubeconfig)), []);
    const forked = workspace({
      from: { name: "prod" },
      autoHibernation: { schedule: "0 18 * * 1-5", wakeSchedule: "@every 12h" },
    });
    assert.deepEqual(await causes(review("CREATE", forked)), []);
  });

  it("denies what the operator's webhook denies, each cause on its field", async () => {
    const bad = workspace({
      from: { name: "gone" },
      connection: { type: "kubeconfig" },
      autoHibernation: { schedule: "0 25 * * *", wakeSchedule: "0 7 * * *" },
    });
    assert.deepEqual(await causes(review("CREATE", bad)), [
      'spec.autoHibernation.schedule: Invalid value: "0 25 * * *": end of range (25) above maximum (23): 25 (rule workspace.schedule)',
      "spec.connection.secretReference: Required value: secretReference is required when connection type is kubeconfig (rule workspace.kubeconfig-secret)",
      'spec.from: Not found: "default/gone" (rule workspace.from)',
    ]);
    const same = workspace({ autoHibernation: { schedule: "@daily", wakeSchedule: "@daily" } });
    assert.deepEqual(await causes(review("CREATE", same)), [
      'spec.autoHibernation.wakeSchedule: Invalid value: "@daily": wakeSchedule cannot be the same as schedule (rule workspace.wake-schedule)',
    ]);
  });

  it("keeps type, from and connection immutable; other updates pass, the from check runs only on CREATE", async () => {
    const old = workspace({ from: { name: "gone" }, connection: { type: "in-cluster" } });
    const relabelled = {
      ...old,
      metadata: { ...old.metadata, labels: { team: "a" } },
      spec: { ...old.spec, hibernated: true },
    };
    assert.deepEqual(await causes(review("UPDATE", relabelled, old)), []);
    const changed = workspace({ type: "managed", from: { name: "prod" }, connection: { type: "local" } });
    assert.deepEqual(await causes(review("UPDATE", changed, old)), [
      'spec.type: Invalid value: "managed": field is immutable (rule workspace.type-immutable)',
      'spec.from: Invalid value: {"name":"prod"}: field is immutable (rule workspace.from-immutable)',
      'spec.connection: Invalid value: {"type":"local"}: field is immutable (rule workspace.connection-immutable)',
    ]);
  });

  it("connects a managed Workspace through its cluster's kubeconfig Secret, as the operator's defaulter", async () => {
    const { response } = (await server.post(mutatePath, review("CREATE", workspace({ type: "managed" }))))
      .json;
    assert.equal(response.allowed, true);
    const patch = JSON.parse(Buffer.from(response.patch, "base64").toString("utf8"));
    assert.deepEqual(patch, [
      {
        op: "add",
        path: "/spec/connection",
        value: {
          type: "kubeconfig",
          secretReference: { name: "vc-kubeconfig-dev", namespace: "forkspacer-dev", key: "config" },
        },
      },
    ]);
    const plain = (await server.post(mutatePath, review("CREATE", workspace()))).json.response;
    assert.equal(plain.allowed, true);
    assert.equal(plain.patch, undefined);
  });
});
