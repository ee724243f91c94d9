import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { addonOperatorConfigMapKind } from "../../../src/resources/addon-operator-configmap/index.js";
import { reviewConfigMap } from "../../support/addon-modules.js";
import { configMapRows, writeConfigMapRowTrees } from "../../support/configmap-rows.js";
import { type LiveServer, startLiveServer } from "../../support/live-server.js";

describe("ConfigMap/addon-operator agrees with addon-operator on every problem issue 13 lists (live webhook)", () => {
  let server: LiveServer;
  before(async () => {
    const { modulesDir, globalHooksDir } = writeConfigMapRowTrees();
    const kind = addonOperatorConfigMapKind({
      modulesDir,
      globalHooksDir,
      configMap: { namespace: "addon-operator", name: "addon-operator" },
    });
    server = await startLiveServer([kind]);
  });
  after(() => server.close());

  for (const row of configMapRows) {
    it(row.why, async () => {
      const reply = await reviewConfigMap(server, row.data, row.oldData);
      if (row.admit) {
        assert.equal(reply.allowed, true, reply.message);
      } else {
        assert.equal(reply.allowed, false);
        assert.equal(reply.code, 422, reply.message);
        const causes = reply.causes.map((cause) => [cause.field, cause.message] as const).sort();
        assert.equal(causes.length, row.deny?.length, JSON.stringify(causes));
        row.deny?.forEach(([field, message], index) => {
          assert.equal(causes[index]?.[0], field);
          assert.match(causes[index]?.[1] ?? "", message);
        });
      }
      if (row.warning) assert.match(reply.warnings.join("\n"), row.warning);
    });
  }
});
