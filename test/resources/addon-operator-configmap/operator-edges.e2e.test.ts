import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { addonOperatorConfigMapKind } from "../../../src/resources/addon-operator-configmap/index.js";
import { reviewConfigMap, writeTree } from "../../support/addon-modules.js";
import { type LiveServer, startLiveServer } from "../../support/live-server.js";

/** Issue 23's addon-operator edges, each through the live webhook, against what addon-operator does. */
describe("ConfigMap/addon-operator: go-openapi's integers and enums, Go's YAML, the Enabled flags (live webhook)", () => {
  let server: LiveServer;
  const causes = (reply: Awaited<ReturnType<typeof reviewConfigMap>>) =>
    reply.causes.map((cause) => `${cause.field}: ${cause.message}`);

  before(async () => {
    const schema = {
      type: "object",
      properties: {
        count: { type: "integer" },
        mode: { enum: ["a", null] },
        flag: { type: "boolean" },
        size: { type: "integer", maximum: 10 },
      },
    };
    const modulesDir = writeTree({
      "values.yaml": "flaggedEnabled: true\nswitchedOffEnabled: false\n",
      "001-flagged/openapi/config-values.yaml": schema,
      "002-unflagged/openapi/config-values.yaml": schema,
      "003-switched-off/openapi/config-values.yaml": schema,
    });
    const globalHooksDir = writeTree({
      "openapi/config-values.yaml": {
        type: "object",
        properties: { mode: { type: "integer", maximum: 14 } },
      },
    });
    server = await startLiveServer([
      addonOperatorConfigMapKind({
        modulesDir,
        globalHooksDir,
        configMap: { namespace: "addon-operator", name: "addon-operator" },
      }),
    ]);
  });
  after(() => server.close());

  it("an integer is |n| <= 2^53 - 1 (swag.IsFloat64AJSONInteger): 2^53 - 1 passes, ±2^53 do not", async () => {
    assert.equal((await reviewConfigMap(server, { flagged: "count: 9007199254740991\n" })).allowed, true);
    for (const text of ["9007199254740992", "-9007199254740992", "1e300"]) {
      const reply = await reviewConfigMap(server, { flagged: `count: ${text}\n` });
      assert.equal(reply.allowed, false, text);
      assert.match(
        causes(reply)[0] ?? "",
        /^data\.flagged\.count: .*flagged\.count in body must be of type integer: "number"/,
      );
    }
  });

  it("enum [a, null] without a type refuses null (go-openapi never matches a null member), admits a", async () => {
    assert.equal((await reviewConfigMap(server, { flagged: "mode: a\n" })).allowed, true);
    const reply = await reviewConfigMap(server, { flagged: "mode: null\n" });
    assert.equal(reply.allowed, false);
    assert.deepEqual(causes(reply), [
      "data.flagged.mode: Invalid value: null: flagged.mode in body should be one of [a <nil>] (rule addon-operator-configmap.module-values)",
    ]);
  });

  it("a module section starting with %YAML 1.1 keeps yaml.v3's reading (yes is a string); global reads 0o17 as 15", async () => {
    const yes = await reviewConfigMap(server, { flagged: "%YAML 1.1\n---\nflag: yes\n" });
    assert.equal(yes.allowed, false);
    assert.match(causes(yes)[0] ?? "", /^data\.flagged\.flag: .*must be of type boolean: "string"/);
    assert.equal(
      (await reviewConfigMap(server, { flagged: "%YAML 1.1\n---\nflag: true\nsize: 0o12\n" })).allowed,
      true,
    );
    assert.equal((await reviewConfigMap(server, { global: "mode: 0o17\n" })).allowed, false, "15 > 14");
    assert.equal((await reviewConfigMap(server, { global: "mode: 0o16\n" })).allowed, true);
    assert.equal((await reviewConfigMap(server, { global: "mode: 0x0_E\n" })).allowed, true);
  });

  it("a module with no Enabled flag anywhere starts disabled: its section only warns; a flag that enables it denies", async () => {
    const unflagged = await reviewConfigMap(server, { unflagged: "size: 11\n" });
    assert.equal(unflagged.allowed, true);
    assert.match(
      unflagged.warnings[0] ?? "",
      /^data\.unflagged: module disabled, so not checked by addon-operator/,
    );
    const enabledHere = await reviewConfigMap(server, { unflagged: "size: 11\n", unflaggedEnabled: "true" });
    assert.equal(enabledHere.allowed, false);
    const enabledStatically = await reviewConfigMap(server, { flagged: "size: 11\n" });
    assert.equal(enabledStatically.allowed, false);
    const off = await reviewConfigMap(server, { switchedOff: "size: 11\n" });
    assert.equal(off.allowed, true);
    assert.match(off.warnings[0] ?? "", /module disabled/);
  });
});
