import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { loadAll } from "js-yaml";
import { admissionCases } from "./admission-cases.js";
import { corpusFound, corpusPath } from "./corpus.js";
import { denialCases } from "./module-cases.js";
import { kedaReleaseMeta } from "./modulereleasemetas.js";
import { customModule, helmModule } from "./modules.js";
import { kedaTemplate, specExampleTemplates } from "./moduletemplates.js";
import { specExamples } from "./reviews.js";
import { workspace } from "./workspaces.js";

/** One request to judge both ways: by the webhook and by the native policies. */
export interface PolicyCase {
  name: string;
  operation: "CREATE" | "UPDATE";
  object: Record<string, unknown>;
  oldObject?: Record<string, unknown>;
}

const root = new URL("../..", import.meta.url).pathname;
type Obj = Record<string, unknown>;
const isObject = (value: unknown): value is Obj =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** Every object of our kinds in YAML or AdmissionReview JSON files below `dir`. */
function objectsIn(dir: string): { name: string; object: Obj; oldObject?: Obj }[] {
  const found: { name: string; object: Obj; oldObject?: Obj }[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const text = readFileSync(path, "utf8");
    let docs: unknown[];
    try {
      docs = /\.json$/.test(entry.name)
        ? [JSON.parse(text)]
        : /\.ya?ml$/.test(entry.name)
          ? loadAll(text)
          : [];
    } catch {
      continue;
    }
    for (const doc of docs) {
      if (!isObject(doc)) continue;
      const review = isObject(doc.request) ? doc.request : undefined;
      const object = review ? review.object : doc;
      if (!isObject(object) || typeof object.kind !== "string") continue;
      const old = review && isObject(review.oldObject) ? { oldObject: review.oldObject } : {};
      found.push({ name: `${path.slice(root.length)} ${object.kind}`, object, ...old });
    }
  }
  return found;
}

/** The objects of every case table, the spec's examples, the corpus and the README's examples. */
export function sourceObjects(): {
  name: string;
  object: Obj;
  oldObject?: Obj;
  operation?: "CREATE" | "UPDATE";
}[] {
  const cases = admissionCases().flatMap((c) => {
    const request = c.review.request;
    if (!request || !isObject(request.object)) return [];
    if (request.operation !== "CREATE" && request.operation !== "UPDATE") return [];
    return [
      {
        name: `admission case: ${c.name}`,
        operation: request.operation,
        object: request.object,
        ...(isObject(request.oldObject) ? { oldObject: request.oldObject } : {}),
      },
    ];
  });
  const denials = denialCases.map((d) => ({
    name: `denial case: ${d.name}`,
    operation: d.operation,
    object: d.object as unknown as Obj,
    ...(d.oldObject ? { oldObject: d.oldObject as unknown as Obj } : {}),
  }));
  const corpus = corpusFound
    ? [
        ...objectsIn(corpusPath("forkspacer/manifests")),
        ...objectsIn(corpusPath("kyma/moduletemplates")),
        ...specExamples("forkspacer-module-reference.md", "Module").map((object) => ({
          name: "spec example Module",
          object,
        })),
        ...specExamples("forkspacer-workspace-reference.md", "Workspace").map((object) => ({
          name: "spec example Workspace",
          object,
        })),
      ]
    : [];
  const own = [
    { name: "helmModule", object: helmModule() as unknown as Obj },
    { name: "customModule", object: customModule() as unknown as Obj },
    { name: "workspace", object: workspace() as Obj },
    { name: "kedaTemplate", object: kedaTemplate() as unknown as Obj },
    ...specExampleTemplates().map((t) => ({
      name: `template example ${t.title}`,
      object: t.template as unknown as Obj,
    })),
    { name: "kedaReleaseMeta", object: kedaReleaseMeta() as unknown as Obj },
  ];
  return [...cases, ...denials, ...corpus, ...objectsIn(join(root, "examples")), ...own];
}

/** The valid object of a kind that updates start from. */
function baseOf(object: Obj): Obj | undefined {
  switch (object.kind) {
    case "Module":
      return (isObject(object.spec) && object.spec.custom ? customModule() : helmModule()) as unknown as Obj;
    case "Workspace":
      return workspace() as Obj;
    case "ModuleTemplate":
      return kedaTemplate() as unknown as Obj;
    case "ModuleReleaseMeta":
      return kedaReleaseMeta() as unknown as Obj;
    default:
      return undefined;
  }
}

/**
 * Every source object as a CREATE, and as UPDATEs: from its kind's valid object (what the update
 * introduces), to itself with a label added (housekeeping: state rules spare it), to itself changed
 * back into the valid object (what an update that fixes it may do); and each table's own UPDATEs.
 */
export function policyCases(): PolicyCase[] {
  const cases: PolicyCase[] = [];
  for (const source of sourceObjects()) {
    const { name, object } = source;
    if (source.oldObject) {
      cases.push({ name, operation: "UPDATE", object, oldObject: source.oldObject });
      continue;
    }
    cases.push({ name: `${name} (CREATE)`, operation: "CREATE", object });
    const base = baseOf(object);
    if (!base) continue;
    const withName = { ...base, metadata: object.metadata ?? base.metadata };
    cases.push({
      name: `${name} (UPDATE from the valid object)`,
      operation: "UPDATE",
      object,
      oldObject: withName,
    });
    cases.push({
      name: `${name} (UPDATE back to the valid object)`,
      operation: "UPDATE",
      object: withName,
      oldObject: object,
    });
    const labelled = structuredClone(object);
    const metadata = (isObject(labelled.metadata) ? labelled.metadata : {}) as Obj;
    labelled.metadata = {
      ...metadata,
      labels: { ...(isObject(metadata.labels) ? metadata.labels : {}), touched: "yes" },
    };
    cases.push({
      name: `${name} (UPDATE: a label added)`,
      operation: "UPDATE",
      object: labelled,
      oldObject: object,
    });
  }
  return cases;
}
