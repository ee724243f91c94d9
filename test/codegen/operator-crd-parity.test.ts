import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { isDeepStrictEqual } from "node:util";
import { load } from "js-yaml";
import { corpusPath, withoutCorpus } from "../support/corpus.js";

type Schema = Record<string, any>;

const read = (path: string | URL) => load(readFileSync(path, "utf8")) as Schema;
const ours = (name: string) =>
  read(new URL(`../../charts/module-admission/files/crds/${name}`, import.meta.url));
// The operator's own CRDs (controller-gen output of forkspacer v0.1.24), read in place.
const operators = (name: string) => read(corpusPath("forkspacer/crds", name));

/** What decides how the API server treats a field; descriptions and CEL rules are compared apart. */
const keywords = [
  "type",
  "format",
  "required",
  "default",
  "enum",
  "pattern",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "minimum",
  "maximum",
  "maxProperties",
  "nullable",
  "x-kubernetes-preserve-unknown-fields",
  "x-kubernetes-list-type",
  "x-kubernetes-list-map-keys",
  "x-kubernetes-int-or-string",
];

/** Every schema node by its path, e.g. `.spec.helm.releaseName`, `.config[*].alias`. */
function nodes(schema: Schema, path = ""): Map<string, Schema> {
  const found = new Map<string, Schema>([[path, schema]]);
  for (const [key, child] of Object.entries(schema.properties ?? {}))
    for (const [p, n] of nodes(child as Schema, `${path}.${key}`)) found.set(p, n);
  if (schema.items) for (const [p, n] of nodes(schema.items, `${path}[*]`)) found.set(p, n);
  return found;
}

const normalise = (keyword: string, value: unknown) =>
  keyword === "required" && Array.isArray(value) ? [...value].sort() : value;

/** `path keyword: ours ≠ operator's` for every difference between two CRDs' schemas. */
function differences(our: Schema, their: Schema): string[] {
  const [a, b] = [nodes(our), nodes(their)];
  const found: string[] = [];
  for (const path of new Set([...a.keys(), ...b.keys()])) {
    const [x, y] = [a.get(path), b.get(path)];
    if (!x || !y) {
      found.push(`${path || "."} ${x ? "only ours" : "only the operator's"}`);
      continue;
    }
    for (const keyword of keywords) {
      const [u, v] = [normalise(keyword, x[keyword]), normalise(keyword, y[keyword])];
      if (!isDeepStrictEqual(u, v))
        found.push(`${path || "."} ${keyword}: ${JSON.stringify(u)} ≠ ${JSON.stringify(v)}`);
    }
  }
  return found.sort();
}

function compare(ourCrd: Schema, theirCrd: Schema, allowed: Record<string, string>) {
  for (const key of ["group", "names", "scope"]) assert.deepEqual(ourCrd.spec[key], theirCrd.spec[key], key);
  const [ourVersion, theirVersion] = [ourCrd.spec.versions[0], theirCrd.spec.versions[0]];
  assert.equal(ourVersion.name, theirVersion.name);
  assert.deepEqual(ourVersion.subresources, theirVersion.subresources);
  const columns = (version: Schema) =>
    (version.additionalPrinterColumns ?? []).map((c: Schema) =>
      JSON.stringify([c.name, c.type, c.format, c.jsonPath]),
    );
  const extraColumns = columns(ourVersion).filter((c: string) => !columns(theirVersion).includes(c));
  assert.deepEqual(
    columns(ourVersion).filter((c: string) => !extraColumns.includes(c)),
    columns(theirVersion),
    "the operator's printer columns, in its order",
  );
  const found = differences(ourVersion.schema.openAPIV3Schema, theirVersion.schema.openAPIV3Schema);
  const unlisted = found.filter(
    (difference) => !Object.keys(allowed).some((key) => difference.startsWith(key)),
  );
  assert.deepEqual(unlisted, [], "differences from the operator's CRD that are not listed with a reason");
  const stale = Object.keys(allowed).filter((key) => !found.some((difference) => difference.startsWith(key)));
  assert.deepEqual(stale, [], "listed differences that no longer exist");
  return extraColumns;
}

describe("our CRDs against the Forkspacer operator's (v0.1.24), path by path", {
  skip: withoutCorpus,
}, () => {
  it("Module: the same fields, types, required, minLength, enums and defaults", () => {
    const extra = compare(
      ours("modules.batch.forkspacer.com.yaml"),
      operators("batch.forkspacer.com_modules.yaml"),
      {
        // Each difference, with its reason. Everything else must be as the operator's CRD has it.
        ".spec.helm.releaseName pattern":
          "DNS-1035 (a CEL rule with our message) instead of the operator's DNS-1123 subdomain: the mission's rule for names users write",
        ".spec.helm.releaseName maxLength":
          "53, Helm's limit for release names; also bounds the CEL rules that compare releaseName",
      },
    );
    assert.deepEqual(extra, [JSON.stringify(["Release", "string", undefined, ".spec.helm.releaseName"])]);
  });

  it("Workspace: the same fields, types, required, minLength, enums and defaults", () => {
    const extra = compare(
      ours("workspaces.batch.forkspacer.com.yaml"),
      operators("batch.forkspacer.com_workspaces.yaml"),
      {},
    );
    assert.deepEqual(extra, []);
  });
});
