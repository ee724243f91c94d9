import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { kindOf, offlineKinds } from "../../src/offline/kinds.js";
import { policyCases } from "../support/policy-cases.js";
import {
  crdFindings,
  type Disagreement,
  decodedCase,
  disagreements,
  nativeRules,
  policyFindings,
  schemaRefuses,
  webhookFindings,
} from "../support/policy-parity.js";

const kinds = offlineKinds();

describe("the native policies agree with the webhook, rule by rule (evaluated offline)", () => {
  it("on every case table, spec example, corpus object and README example, CREATE and UPDATE", async () => {
    const found: { name: string; side: string; disagreement: Disagreement }[] = [];
    let compared = 0;
    let refused = 0;
    const fired = new Map<string, number>();
    for (const c of policyCases()) {
      const kind = kindOf(kinds, c.object);
      if (!kind) continue;
      const { object, oldObject } = decodedCase(kind, c);
      // The API server refuses what its schema refuses before any rule of ours; an old object it could
      // not have stored (a corpus fragment without a spec) is no update it will ever see.
      if (
        schemaRefuses(kind, object, oldObject) ||
        (oldObject !== undefined && schemaRefuses(kind, oldObject, undefined))
      ) {
        refused++;
        continue;
      }
      compared++;
      const rules = nativeRules(kind);
      const webhook = await webhookFindings(kind, object, oldObject, c.operation);
      for (const [rule] of webhook) fired.set(rule, (fired.get(rule) ?? 0) + 1);
      const crdRules = rules.filter((rule) => rule.native.by === "crd");
      const sides = {
        // A cluster with our CRDs: the CRD's rules and the policies written for their rules.
        "CRD + policies": new Map([
          ...policyFindings(kind, object, oldObject, c.operation, ["declaration"]),
          ...crdFindings(kind, object, oldObject),
        ]),
        // A cluster whose CRD is the operator's: the policies standing for our CRD's rules.
        "policies for the CRD's rules": policyFindings(kind, object, oldObject, c.operation, ["crd"]),
      };
      for (const d of disagreements(rules, webhook, sides["CRD + policies"]))
        found.push({ name: c.name, side: "CRD + policies", disagreement: d });
      for (const d of disagreements(crdRules, webhook, sides["policies for the CRD's rules"]))
        found.push({ name: c.name, side: "policies for the CRD's rules", disagreement: d });
    }
    const report = found.map((f) => `${f.name} [${f.side}] ${JSON.stringify(f.disagreement)}`);
    console.log(
      `compared ${compared} requests (${refused} refused by the schema first); native rules that fired: ${[...fired].map(([r, n]) => `${r}×${n}`).join(", ")}`,
    );
    assert.deepEqual(report, []);
  });
});
