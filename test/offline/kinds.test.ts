import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { offlineKinds } from "../../src/offline/kinds.js";
import { type KindRegistration, kindRegistrations } from "../../src/resources/index.js";

const registration = (name: string): KindRegistration => {
  const found = kindRegistrations.find((each) => each.name === name);
  assert.ok(found, name);
  return found;
};

describe("offline kinds come from the registrations", () => {
  it("gives every registration with a schema its kinds, each with the source it names", () => {
    const kinds = offlineKinds();
    const expected = kindRegistrations.flatMap((each) =>
      each.schema === undefined ? [] : each.create({}).map((kind) => [kind.kind, each.schema]),
    );
    assert.deepEqual(
      kinds.map((each) => [each.kind.kind, each.source.name]),
      expected,
    );
    assert.ok(expected.length >= 4, "Module, Workspace, ModuleTemplate, ModuleReleaseMeta");
  });

  it("refuses a registration whose schema source is of another kind, never dropping it", () => {
    const misnamed = { ...registration("module"), schema: "workspace" };
    assert.throws(
      () => offlineKinds({}, [misnamed]),
      /kind batch\.forkspacer\.com\/Module: its registration names schema workspace, a CRD of batch\.forkspacer\.com\/Workspace/,
    );
  });

  it("refuses a registration whose schema source does not exist", () => {
    const missing = { ...registration("workspace"), schema: "workspaces" };
    assert.throws(
      () => offlineKinds({}, [missing]),
      /kind Workspace: its schema source workspaces\.yaml is not in /,
    );
  });
});
