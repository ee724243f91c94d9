import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { load } from "js-yaml";
import { type ApiServerVerdict, apiServerCheck } from "../support/apiserver-check.js";
import { useControlPlane } from "../support/control-plane.js";
import { withoutGo } from "../support/go-tools.js";

type Anything = any;
const crdsDir = new URL("../../charts/module-admission/files/crds/", import.meta.url);
const generated = readdirSync(crdsDir)
  .sort()
  .map((file) => load(readFileSync(new URL(file, crdsDir), "utf8")) as Anything);
const moduleCrd = () =>
  structuredClone(generated.find((crd) => crd.metadata.name === "modules.batch.forkspacer.com"));

/** The Module CRD with one more field under spec, carrying these CEL rules. */
function withRule(rule: string, field: Anything = { type: "array", items: { type: "string" } }): Anything {
  const crd = moduleCrd();
  const spec = crd.spec.versions.find((v: Anything) => v.storage).schema.openAPIV3Schema.properties.spec;
  spec.properties.tags = { ...field, description: "A test field.", "x-kubernetes-validations": [{ rule }] };
  return crd;
}

/** Cases the server must refuse, each for a reason only its own validation knows. */
const refused: Record<string, Anything> = {
  // Every pair of an unbounded list of unbounded strings, each a regex match: far over the cost limit.
  "a rule too costly for the server's estimate": withRule("self.all(x, self.all(y, x.matches(y)))"),
  "a rule that does not type-check (string compared with int)": withRule("self.size() > 'a'"),
  "a rule naming a field the schema does not have": withRule("self.replicas > 1", {
    type: "object",
    properties: { count: { type: "integer" } },
  }),
  // What this project generated until the real server refused it (issue 31).
  "a description on the root metadata": (() => {
    const crd = moduleCrd();
    crd.spec.versions[0].schema.openAPIV3Schema.properties.metadata.description = "Standard object metadata.";
    return crd;
  })(),
};

/**
 * `npm run generate -- --check`'s CRD check (kube-apiserver's validation, run by a Go program) against
 * the real API server: the same acceptance, and for a refused CRD the same message, on the generated
 * CRDs and on CRDs made to fail each way the server checks that a schema cannot.
 */
describe("apiserver-check agrees with kube-apiserver on CRDs", { skip: withoutGo }, () => {
  const cluster = useControlPlane();

  /**
   * The server's answer to a dry-run create: null when accepted, else its message. Sent as it is
   * (client-node's typed client would drop the x-kubernetes-* keys of a plain object).
   */
  async function serverAnswer(crd: Anything): Promise<string | null> {
    const path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions?dryRun=All";
    const reply = await cluster().send("POST", path, crd);
    if (reply.status === 201) return null;
    return (JSON.parse(reply.body) as { message?: string }).message ?? reply.body;
  }

  it("accepts every generated CRD, as the server does", async () => {
    const verdicts = await apiServerCheck(generated);
    assert.deepEqual(
      verdicts.map((v: ApiServerVerdict) => [v.name, v.errors]),
      generated.map((crd) => [crd.metadata.name, []]),
    );
    for (const crd of generated) assert.equal(await serverAnswer(crd), null, crd.metadata.name);
  });

  for (const [name, crd] of Object.entries(refused)) {
    it(`refuses ${name}, with the server's own message`, async () => {
      const [verdict] = await apiServerCheck([crd]);
      assert.ok(verdict?.message, `the check refuses it: ${JSON.stringify(verdict)}`);
      assert.equal(verdict.message, await serverAnswer(crd));
    });
  }
});
