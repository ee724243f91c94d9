import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseManifests } from "../../src/manifests/manifests.js";
import type { Client } from "../../src/offline/client.js";
import { kindOf, type OfflineKind } from "../../src/offline/kinds.js";
import { admissionCases } from "../support/admission-cases.js";
import { corpusPath } from "../support/corpus.js";
import { hostileModules } from "../support/hostile-modules.js";
import { kedaReleaseMeta } from "../support/modulereleasemetas.js";
import { helmModule } from "../support/modules.js";
import { kedaTemplate, specExampleTemplates } from "../support/moduletemplates.js";
import { workspace } from "../support/workspaces.js";

/** An object to judge both ways, and for an UPDATE the object the cluster held before it. */
export interface Input {
  name: string;
  object: Record<string, unknown>;
  oldObject?: Record<string, unknown>;
}

/** The YAML reading of each client (kubectl apply -f reads YAML 1.1, GitOps tools YAML 1.2). */
const readers: Record<Client, "kubectl" | "gitops"> = {
  kubectl: "kubectl",
  "kubectl-create": "kubectl",
  gitops: "gitops",
};

/**
 * Every object of the corpora this project serves (the Forkspacer operator's Modules and Workspaces,
 * Kyma's ModuleTemplates and ModuleReleaseMetas), read as `client` reads the files; objects of other
 * kinds in those files are skipped (counted by the caller), addon-operator's ConfigMaps are another test's.
 */
export function corpusInputs(kinds: OfflineKind[], client: Client): Input[] {
  const dirs = [corpusPath("forkspacer", "manifests"), corpusPath("kyma", "moduletemplates")];
  const inputs: Input[] = [];
  for (const dir of dirs) {
    for (const file of readdirSync(dir)
      .filter((f) => /\.ya?ml$/.test(f))
      .sort()) {
      const path = join(dir, file);
      let manifests: ReturnType<typeof parseManifests>;
      try {
        manifests = parseManifests(path, readFileSync(path, "utf8"), readers[client]);
      } catch {
        continue; // a file its client cannot read never reaches a server
      }
      manifests.forEach((manifest, i) => {
        if (kindOf(kinds, manifest.object)) inputs.push({ name: `${file}#${i}`, object: manifest.object });
      });
    }
  }
  return inputs;
}

/**
 * Each input as an UPDATE that only adds a label (what controllers write): the old object is the input
 * as the cluster stores it, the new one the same with a label more.
 */
export function labelAdded(inputs: Input[]): Input[] {
  return inputs.map((input) => {
    const metadata = (input.object.metadata ?? {}) as Record<string, unknown>;
    const labels = (metadata.labels ?? {}) as Record<string, unknown>;
    return {
      name: `${input.name} (UPDATE: a label added)`,
      object: { ...input.object, metadata: { ...metadata, labels: { ...labels, touched: "yes" } } },
      oldObject: input.object,
    };
  });
}

const asRecord = (value: unknown) => structuredClone(value) as Record<string, unknown>;

/**
 * The case tables of the test suite, every kind: the end-to-end admission cases (CREATE and UPDATE
 * Modules, the denial table, the ratcheting cases with their stored invalid old objects), the hostile
 * Modules of issue 15, Workspaces, the spec's ModuleTemplates, ModuleReleaseMetas and a downgrade.
 */
export function caseInputs(): Input[] {
  const inputs: Input[] = [];
  for (const c of admissionCases()) {
    const request = c.review.request;
    if (!request || (request.operation !== "CREATE" && request.operation !== "UPDATE")) continue;
    inputs.push({
      name: `admission case: ${c.name}`,
      object: asRecord(request.object),
      ...(request.oldObject ? { oldObject: asRecord(request.oldObject) } : {}),
    });
  }
  for (const hostile of hostileModules()) {
    inputs.push({
      name: `hostile: ${hostile.name}`,
      object: asRecord(hostile.object),
      ...(hostile.oldObject ? { oldObject: asRecord(hostile.oldObject) } : {}),
    });
  }
  inputs.push({ name: "workspace", object: asRecord(workspace()) });
  inputs.push({ name: "workspace in another namespace", object: asRecord(workspace("ws", "team-a")) });
  inputs.push({ name: "keda ModuleTemplate", object: asRecord(kedaTemplate()) });
  for (const example of specExampleTemplates()) {
    inputs.push({ name: `ModuleTemplate spec example ${example.title}`, object: asRecord(example.template) });
  }
  inputs.push(...issue31Inputs());
  inputs.push({ name: "keda ModuleReleaseMeta", object: asRecord(kedaReleaseMeta()) });
  inputs.push({
    name: "ModuleReleaseMeta channel downgraded",
    object: asRecord(kedaReleaseMeta({ regular: "1.2.0" })),
    oldObject: asRecord(kedaReleaseMeta({ regular: "1.3.0" })),
  });
  return inputs;
}

/**
 * The probes on which issue 31 found `validate` and the real API server to disagree: root metadata,
 * an embedded resource's metadata, a link with a bad percent-escape, a null config value (kubectl
 * drops it), an integer 1e20, and UPDATEs that only reorder a list around an old invalid item.
 */
function issue31Inputs(): Input[] {
  const module = (change: (m: Record<string, unknown>) => void, base = helmModule()) => {
    const object = asRecord(base);
    change(object);
    return object;
  };
  const meta = (object: Record<string, unknown>) => object.metadata as Record<string, unknown>;
  const spec = (object: Record<string, unknown>) => object.spec as Record<string, unknown>;
  const template = (change: (t: Record<string, unknown>) => void) => {
    const object = asRecord(kedaTemplate());
    change(object);
    return object;
  };
  const data = (t: Record<string, unknown>) => spec(t).data as Record<string, unknown>;
  const inputs: [string, Record<string, unknown>][] = [
    ["a name that is no DNS subdomain", module((m) => Object.assign(meta(m), { name: "Redis_Main" }))],
    ["a label key and value", module((m) => Object.assign(meta(m), { labels: { "a b": "x", ok: "-bad" } }))],
    ["an annotation key", module((m) => Object.assign(meta(m), { annotations: { "x/y/z": "v" } }))],
    [
      "finalizers",
      module((m) => Object.assign(meta(m), { finalizers: ["a/b/c", "orphan", "foregroundDeletion"] })),
    ],
    [
      "finalizers a server warns about",
      module((m) => Object.assign(meta(m), { finalizers: ["cleanup", "a.b"] })),
    ],
    ["a namespace that is no DNS label", module((m) => Object.assign(meta(m), { namespace: "Team_A" }))],
    ["a numeric label value", module((m) => Object.assign(meta(m), { labels: { replicas: 3 } }))],
    [
      "an owner reference without uid",
      module((m) =>
        Object.assign(meta(m), { ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "x" }] }),
      ),
    ],
    ["an unknown metadata field", module((m) => Object.assign(meta(m), { colour: "red" }))],
    [
      "a generateName",
      module((m) => Object.assign(m, { metadata: { generateName: "redis-", namespace: "default" } })),
    ],
    [
      "spec.data.metadata: finalizer names",
      template((t) => Object.assign(data(t), { metadata: { name: "x", finalizers: ["a/b/c"] } })),
    ],
    [
      "spec.data.metadata: orphan with foregroundDeletion",
      template((t) =>
        Object.assign(data(t), { metadata: { name: "x", finalizers: ["orphan", "foregroundDeletion"] } }),
      ),
    ],
    [
      "spec.data.metadata: an owner reference without uid",
      template((t) =>
        Object.assign(data(t), {
          metadata: { ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "x" }] },
        }),
      ),
    ],
    [
      "spec.data.metadata: an unparseable timestamp",
      template((t) => Object.assign(data(t), { metadata: { name: "x", creationTimestamp: "yesterday" } })),
    ],
    [
      "spec.data.metadata: an unknown field",
      template((t) => Object.assign(data(t), { metadata: { name: "x", colour: "red" } })),
    ],
    [
      "a link with a bad percent-escape",
      template((t) =>
        Object.assign(spec(t), { resources: [{ name: "raw", link: "https://example.com/a%zz" }] }),
      ),
    ],
    [
      "config: {tag: ~}",
      module((m) => Object.assign(spec(m), { config: { ...(spec(m).config as object), tag: null } })),
    ],
    [
      "an integer 1e20",
      module((m) => {
        const items = m.config as { integer?: Record<string, unknown> }[];
        const replicas = items.find((item) => item.integer);
        if (replicas?.integer) replicas.integer.max = 1e20;
      }),
    ],
  ];
  const reordered = (old: Record<string, unknown>, list: string) => {
    const object = structuredClone(old);
    (spec(object)[list] as unknown[]).reverse();
    return object;
  };
  const oldTemplate = template((t) =>
    Object.assign(spec(t), {
      resources: [
        { name: "raw", link: "not a url" },
        { name: "docs", link: "https://example.com/docs" },
      ],
    }),
  );
  const oldMeta = asRecord(kedaReleaseMeta({ regular: "1.2.0", fast: "not-a-version" }));
  return [
    ...inputs.map(([name, object]) => ({ name: `issue 31: ${name}`, object })),
    {
      name: "issue 31: spec.resources reordered around an old invalid link",
      object: reordered(oldTemplate, "resources"),
      oldObject: oldTemplate,
    },
    {
      name: "issue 31: spec.channels reordered around an old invalid version",
      object: reordered(oldMeta, "channels"),
      oldObject: oldMeta,
    },
  ];
}
