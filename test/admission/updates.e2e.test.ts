import assert from "node:assert/strict";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { offlineKinds } from "../../src/offline/kinds.js";
import { type ApiClient, apiClient } from "../control-plane-diff/api-client.js";
import type { Input } from "../control-plane-diff/inputs.js";
import { judgeAll, report, storedUpdates, tally } from "../control-plane-diff/run.js";
import { type Probe, serverVerdict, type Verdict } from "../control-plane-diff/verdicts.js";
import { builtCli } from "../support/built-cli.js";
import { registerServeWithoutLookups, yamlStream } from "../support/chart-webhooks.js";
import { manifestDir } from "../support/cli.js";
import { useControlPlane } from "../support/control-plane.js";
import { Random } from "../support/differential/random.js";
import { eventually } from "../support/eventually.js";
import { withoutGo } from "../support/go-tools.js";
import { kedaReleaseMeta } from "../support/modulereleasemetas.js";
import { helmModule } from "../support/modules.js";
import { kedaTemplate } from "../support/moduletemplates.js";
import { unplacedObjects } from "../support/unplaced-objects.js";

type Json = Record<string, unknown>;
type Item = Record<string, string>;

/**
 * Every list-map of the kinds whose items a user writes (Kyma's; the Forkspacer kinds' only list-maps
 * are status.conditions, which an UPDATE of the object cannot change, and a ConfigMap has none): the
 * object holding it, where the list is, its key, a bad item stored before today's rules refused it,
 * whether the API server's own schema refuses that item (else only the webhook's rule does), and
 * whether a new bad value there is denied at all (a spec.info link only warns: issue 43).
 */
interface ListMap {
  name: string;
  object: () => Json;
  list: (object: Json) => Item[];
  key: string;
  good: (i: number) => Item;
  bad: Item;
  /** The bad item given another bad value: what makes it a new problem. */
  changedBad: Item;
  schemaRefuses: boolean;
  /** Whether serve denies the bad item given another bad value (spec.info's links only warn). */
  changeDenied: boolean;
}

const spec = (object: Json) => object.spec as Json;

const listMaps: ListMap[] = [
  {
    name: "ModuleReleaseMeta spec.channels (key channel; Regular breaks the CRD's pattern)",
    object: () => kedaReleaseMeta({}) as unknown as Json,
    list: (object) => {
      spec(object).channels ??= [];
      return spec(object).channels as Item[];
    },
    key: "channel",
    good: (i) => ({
      channel: `channel${"abcdefghij"[i % 10]}${"klmnopqrst"[Math.floor(i / 10) % 10]}`,
      version: "1.2.0",
    }),
    bad: { channel: "Regular", version: "1.2.0" },
    changedBad: { channel: "Fast", version: "1.2.0" },
    schemaRefuses: true,
    changeDenied: true,
  },
  {
    name: "ModuleTemplate spec.resources (key name; a relative link the CRD's format: uri refuses)",
    object: () => kedaTemplate() as unknown as Json,
    list: (object) => spec(object).resources as Item[],
    key: "name",
    good: (i) => ({ name: `resource-${i}`, link: `https://example.com/${i}.yaml` }),
    bad: { name: "legacy", link: "docs/manifest.yaml" },
    changedBad: { name: "legacy", link: "docs/other.yaml" },
    schemaRefuses: true,
    changeDenied: true,
  },
  {
    name: "ModuleTemplate spec.info.icons (key name; a relative link the webhook only warns about)",
    object: () => kedaTemplate() as unknown as Json,
    list: (object) => (spec(object).info as Json).icons as Item[],
    key: "name",
    good: (i) => ({ name: `icon-${i}`, link: `https://example.com/${i}.svg` }),
    bad: { name: "legacy", link: "icons/keda.svg" },
    changedBad: { name: "legacy", link: "icons/other.svg" },
    schemaRefuses: false,
    changeDenied: false,
  },
];

/** One generated update: what it does to the list, and whether it changes the bad item. */
interface Case extends Input {
  listMap: ListMap;
  changesBad: boolean;
}

function shuffle<T>(random: Random, items: T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = random.int(0, i);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/**
 * Updates around a stored bad item: its list holds 0–3 good items and the bad one at a random place;
 * the update reorders it, inserts new good items anywhere, removes good ones (any mix, at least one),
 * and in a quarter of the cases also gives the bad item another bad value.
 */
function generateCases(random: Random, perList: number): Case[] {
  const cases: Case[] = [];
  for (const listMap of listMaps) {
    for (let n = 0; n < perList; n++) {
      const stored = listMap.object();
      const goods = Array.from({ length: random.int(0, 3) }, (_, i) => listMap.good(i));
      const items = [...goods];
      items.splice(random.int(0, items.length), 0, listMap.bad);
      listMap.list(stored).splice(0, Infinity, ...items);
      let next = [...items];
      const edits: string[] = [];
      if (random.chance(0.6) || goods.length === 0) {
        next = shuffle(random, next);
        edits.push("reordered");
      }
      if (random.chance(0.5)) {
        const inserted = random.int(1, 2);
        for (let i = 0; i < inserted; i++)
          next.splice(random.int(0, next.length), 0, listMap.good(10 + n * 3 + i));
        edits.push(`${inserted} inserted`);
      }
      const removable = next.filter((item) => item !== listMap.bad);
      if (removable.length > 0 && random.chance(0.4)) {
        const gone = random.pick(removable);
        next = next.filter((item) => item !== gone);
        edits.push("1 removed");
      }
      const changesBad = random.chance(0.25);
      if (changesBad) {
        next = next.map((item) => (item === listMap.bad ? listMap.changedBad : item));
        edits.push("the bad item given another bad value");
      }
      const updated = structuredClone(stored);
      listMap.list(updated).splice(0, Infinity, ...structuredClone(next));
      cases.push({
        name: `${listMap.name}: ${JSON.stringify(items.map((i) => i[listMap.key]))} -> ${JSON.stringify(next.map((i) => i[listMap.key]))} (${edits.join(", ")})`,
        object: updated,
        oldObject: stored,
        listMap,
        changesBad,
      });
    }
  }
  return cases;
}

/** Generated updates per list-map: a short run in `npm test`; MODULE_ADMISSION_RATCHET_CASES for more. */
const perList = Number(process.env.MODULE_ADMISSION_RATCHET_CASES ?? 16);

/**
 * Issue 46: the API server's own ratcheting (KEP-4008) correlates the items of a list-map by their keys;
 * `serve` (registered in the real kube-apiserver) and `validate --old` (admitOffline) must admit an
 * update that only reorders, inserts or removes items around an old bad one, as the API server alone
 * does, and deny one that changes the bad item as it denies it (or, for a problem only the webhook's
 * rule finds, as that rule does on CREATE).
 */
describe("UPDATEs as the API server takes them: serve in the real API server, the built validate --old, the API server alone", {
  skip: withoutGo,
}, () => {
  const plane = useControlPlane();
  const kinds = offlineKinds();
  let api: ApiClient;
  let unregister: () => Promise<void>;

  before(async () => {
    ({ unregister } = await registerServeWithoutLookups(plane()));
    api = apiClient(plane().kubeconfigPath);
    plane().defer(() => api.close());
  });

  it("a managed Workspace applied without connection, then updated unchanged: admitted by the API server with serve and by validate --old (issue 43)", async () => {
    const manifest = {
      apiVersion: "batch.forkspacer.com/v1",
      kind: "Workspace",
      metadata: { name: "team-a", namespace: "default" },
      spec: { type: "managed" },
    };
    const applied = await plane().kubectl(["apply", "-f", "-"], { input: JSON.stringify(manifest) });
    assert.equal(applied.code, 0, applied.stderr);
    // Stored mutated: the webhook connected it through its managed cluster's kubeconfig Secret.
    const read = await api.request(
      "GET",
      "/apis/batch.forkspacer.com/v1/namespaces/default/workspaces/team-a",
    );
    const stored = read.body as { metadata: { resourceVersion: string }; spec: { connection?: unknown } };
    assert.equal((stored.spec.connection as { type?: string } | undefined)?.type, "kubeconfig");
    // A GitOps tool sends the manifest as written again (an UPDATE without connection): admitted.
    const put = await api.request(
      "PUT",
      "/apis/batch.forkspacer.com/v1/namespaces/default/workspaces/team-a",
      { ...manifest, metadata: { ...manifest.metadata, resourceVersion: stored.metadata.resourceVersion } },
      { dryRun: "All" },
    );
    assert.equal(put.status, 200, JSON.stringify(put.body));
    const file = join(manifestDir({ "workspace.yaml": [manifest] }), "workspace.yaml");
    const run = builtCli(["validate", "--old", file, file]);
    assert.equal(run.status, 0, run.stdout + run.stderr);
  });

  it("objects of every namespaced kind without a namespace in the file, updated: admitted as the API server admits them, in --namespace (issue 43)", async () => {
    const namespace = "gitops-target";
    await plane().kubectl(["create", "namespace", namespace]);
    const { objects, labelled } = unplacedObjects();
    for (const version of [objects, labelled]) {
      const run = await plane().kubectl(["apply", "--namespace", namespace, "-f", "-"], {
        input: yamlStream(version),
      });
      assert.equal(run.code, 0, run.stderr);
    }
    const dir = manifestDir({ "old.yaml": objects, "new.yaml": labelled });
    const run = builtCli([
      "validate",
      "--namespace",
      namespace,
      "--old",
      join(dir, "old.yaml"),
      join(dir, "new.yaml"),
      "-o",
      "json",
    ]);
    assert.equal(run.status, 0, run.stdout + run.stderr);
    const { summary } = JSON.parse(run.stdout) as { summary: { withoutNamespace?: unknown } };
    assert.deepEqual(summary.withoutNamespace, { namespace, objects: 4 });
    // Without --namespace, kubectl's default: the same verdict, said so.
    const plain = builtCli(["validate", "--old", join(dir, "old.yaml"), join(dir, "new.yaml")]);
    assert.equal(plain.status, 0, plain.stdout + plain.stderr);
    assert.match(plain.stdout, /4 objects without a namespace judged in default \(--namespace\)/);
  });

  it("generated reorders, insertions and removals around old bad items of every list-map, and changes of them", async (t) => {
    const cases = generateCases(new Random(46), perList);
    const updates = await storedUpdates(api, kinds, cases, "listmap");
    const probes: Probe[] = (["gitops", "kubectl"] as const).flatMap((client) =>
      updates.map((update) => ({ ...update, client })),
    );
    const caseOf = (probe: Probe) => cases.find((c) => c.name === probe.name) as Case;

    // serve in the API server against validate --old: the same verdicts, causes, warnings, stored object.
    const judged = await judgeAll(api, probes);
    const counts = tally(judged);
    assert.equal(counts.unexplained.length, 0, report(counts.unexplained));

    // The API server alone: the webhooks removed (waited on: a Module only the webhook refuses is admitted).
    await unregister();
    const outOfRange = helmModule();
    outOfRange.metadata = { name: "probe", namespace: "webhook-probe" };
    outOfRange.spec.config = { ...outOfRange.spec.config, replicas: 99 };
    await eventually(
      "the API server no longer calls the webhooks",
      async () =>
        (
          await plane().kubectl(["create", "--dry-run=server", "-o", "name", "-f", "-"], {
            input: JSON.stringify(outOfRange),
          })
        ).code === 0,
      120_000,
    );
    const alone = new Map<Probe, Verdict>();
    for (const probe of probes) alone.set(probe, await serverVerdict(api, probe));

    const wrong: string[] = [];
    let admittedAroundBad = 0;
    let deniedChanged = 0;
    for (const { probe, server } of judged) {
      const { changesBad, listMap } = caseOf(probe);
      const apiServer = alone.get(probe) as Verdict;
      // The API server alone refuses a changed bad item its schema refuses, and admits the rest.
      const aloneExpected = !(changesBad && listMap.schemaRefuses);
      if (apiServer.allowed !== aloneExpected)
        wrong.push(
          `${probe.name} (${probe.client}): the API server alone ${apiServer.allowed ? "admitted" : `denied: ${apiServer.causes.join("; ")}${apiServer.refused ?? ""}`}`,
        );
      if (server.allowed !== !(changesBad && listMap.changeDenied))
        wrong.push(
          `${probe.name} (${probe.client}): serve ${server.allowed ? "admitted" : `denied: ${server.causes.join("; ")}${server.refused ?? ""}`}`,
        );
      if (changesBad && listMap.changeDenied) deniedChanged++;
      else if (!changesBad) admittedAroundBad++;
    }
    t.diagnostic(
      `${updates.length} generated UPDATE pairs × 2 clients over ${listMaps.length} list-maps: ${admittedAroundBad} reorders/insertions/removals around an old bad item admitted by serve, validate --old and the API server alone; ${deniedChanged} changes of the bad item denied (${probes.filter((p) => caseOf(p).changesBad && caseOf(p).listMap.schemaRefuses).length} by the API server alone too); serve and validate agree on all ${counts.probes}`,
    );
    assert.deepEqual(wrong, []);
    assert.ok(
      admittedAroundBad > 0 && deniedChanged > 0,
      `${admittedAroundBad} admitted, ${deniedChanged} denied`,
    );
  });
});
