import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { get as httpsGet } from "node:https";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { dump } from "js-yaml";
import { bundledTrees } from "../../src/playground/trees.js";
import { configMap } from "../support/addon-modules.js";
import { type Browser, launchChromium, type Page } from "../support/chromium.js";
import { corpusPath, withoutCorpus, yamlFiles } from "../support/corpus.js";
import { loadDeckhouseCases } from "../support/deckhouse-cases.js";
import { listeningPorts } from "../support/listening-ports.js";
import { denialCases } from "../support/module-cases.js";
import {
  buildPlayground,
  bundleCli,
  type PageVerdict,
  paste,
  press,
  readVerdict,
  servePlayground,
  settled,
} from "../support/playground.js";
import { startServe } from "../support/serve-process.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const pageDir = join(root, "dist/playground");
/** Screenshots: one of the page for the README, and one of each failing test. */
const shots = join(root, "dist/playground-test");

/** The bundle's budget: what a visitor downloads, gzipped (the issue's target: 400 KiB). */
const gzippedBudget = 400 * 1024;

let cli: string;
let url: string;
let server: ChildProcess | undefined;
let browser: Browser | undefined;
let page: Page;
/** Every request the page made (by URL) and when: before or after its load event. */
const requests: { url: string; afterLoad: boolean }[] = [];
let loaded = false;
let scratch: string;

/** Runs a test's body; on failure saves a screenshot of the page beside the message. */
async function withScreenshot(name: string, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (error) {
    const file = join(shots, `failed-${name.replace(/[^a-z0-9]+/gi, "-")}.png`);
    try {
      writeFileSync(file, await page.screenshot());
      (error as Error).message += `\n(screenshot: ${relative(root, file)})`;
    } catch {}
    throw error;
  }
}

/** The status of a GET over HTTPS to serve's webhook port. */
function httpsStatus(port: number, path: string, ca: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const request = httpsGet({ host: "127.0.0.1", port, path, ca, servername: "localhost" }, (response) => {
      response.resume();
      resolve(response.statusCode);
    });
    request.on("error", reject);
  });
}

/** `validate -o json` of the built command, in `cwd`, with `stdin`. */
function validateWithCli(
  args: string[],
  stdin: string,
  cwd: string,
): Promise<{ status: number; findings: Record<string, unknown>[]; summary: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, "validate", "-o", "json", ...args], {
      cwd,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (text: string) => {
      stdout += text;
    });
    child.stderr.setEncoding("utf8").on("data", (text: string) => {
      stderr += text;
    });
    child.on("error", reject);
    child.on("close", (status) => {
      try {
        const report = JSON.parse(stdout) as {
          findings: Record<string, unknown>[];
          summary: Record<string, unknown>;
        };
        resolve({ status: status ?? -1, findings: report.findings, summary: report.summary });
      } catch {
        reject(new Error(`validate ${args.join(" ")} exited ${status}: ${stderr}${stdout}`));
      }
    });
    child.stdin.end(stdin);
  });
}

/** The page's verdict on an object (and its old version, client and module tree), pasted in. */
async function pageVerdict(
  object: string,
  old: string,
  client: "gitops" | "kubectl",
  tree: string,
): Promise<PageVerdict> {
  await page.evaluate(`(() => {
    const client = document.getElementById("client");
    const modules = document.getElementById("modules");
    if (client.value !== ${JSON.stringify(client)}) { client.value = ${JSON.stringify(client)}; client.dispatchEvent(new Event("change")); }
    if (modules.value !== ${JSON.stringify(tree)}) { modules.value = ${JSON.stringify(tree)}; modules.dispatchEvent(new Event("change")); }
  })()`);
  if ((await page.evaluate<string>(`document.getElementById("old").value`)) !== old)
    await paste(page, "old", old);
  await paste(page, "object", object);
  return readVerdict(page);
}

interface PageInput {
  name: string;
  object: string;
  old: string;
  client: "gitops" | "kubectl";
  /** The module tree chosen in the page: a bundled tree's id, `folder:<name>`, or empty. */
  tree: string;
}

/** The folders picked in the page (`folder:<name>`), by the directory the CLI is given for each. */
const pickedFolders = new Map<string, string>();

/** `validate`'s flags for the module tree the page judges ConfigMap/addon-operator against. */
function treeArgs(tree: string): string[] {
  if (tree === "") return [];
  const bundled = bundledTrees.find((candidate) => candidate.id === tree);
  const folder = pickedFolders.get(tree);
  const dirs = bundled
    ? {
        modules: join(root, bundled.modulesDir),
        hooks: bundled.globalHooksDir && join(root, bundled.globalHooksDir),
      }
    : folder
      ? // As the page reads a picked checkout: its modules/, and global-hooks/ when it has one.
        {
          modules: join(folder, "modules"),
          hooks: existsSync(join(folder, "global-hooks")) ? join(folder, "global-hooks") : undefined,
        }
      : undefined;
  assert.ok(dirs, `no module tree ${tree}`);
  return ["--modules-dir", dirs.modules, ...(dirs.hooks ? ["--global-hooks-dir", dirs.hooks] : [])];
}

/**
 * Each input's verdict in the page and from `validate -o json`, compared: findings byte for byte, the
 * summary's counts, denied or not. The CLI runs all at once, beside the page: inputs without an old
 * object share one run per client and module tree (each a file of its own, its findings named by it).
 */
async function assertSameVerdicts(inputs: PageInput[]): Promise<PageVerdict[]> {
  const runs = new Map<string, { args: string[]; files: Map<string, PageInput> }>();
  const dir = mkdtempSync(join(scratch, "run-"));
  const cliRuns: Promise<void>[] = [];
  const cliFindings = new Map<
    PageInput,
    { findings: string[]; summary?: Record<string, unknown>; status: number }
  >();
  for (const [index, input] of inputs.entries()) {
    const args = ["--yaml", input.client, ...treeArgs(input.tree)];
    if (input.old !== "") {
      writeFileSync(join(dir, `old-${index}.yaml`), input.old);
      cliRuns.push(
        validateWithCli(
          [...args, "--stdin-filename", "object.yaml", "--old", `old-${index}.yaml`, "-"],
          input.object,
          dir,
        ).then((run) => {
          cliFindings.set(input, {
            findings: run.findings.map((f) => JSON.stringify(f)),
            summary: run.summary,
            status: run.status,
          });
        }),
      );
      continue;
    }
    const key = args.join(" ");
    const run = runs.get(key) ?? { args, files: new Map() };
    runs.set(key, run);
    const file = `input-${index}.yaml`;
    writeFileSync(join(dir, file), input.object);
    run.files.set(file, input);
  }
  for (const { args, files } of runs.values()) {
    cliRuns.push(
      validateWithCli([...args, ...files.keys()], "", dir).then((run) => {
        for (const [file, input] of files) {
          const own = run.findings
            .filter((f) => f.file === file)
            .map((f) => JSON.stringify({ ...f, file: "object.yaml" }));
          cliFindings.set(input, {
            findings: own,
            ...(files.size === 1 ? { summary: run.summary } : {}),
            status: -1,
          });
        }
      }),
    );
  }
  const shown: PageVerdict[] = [];
  for (const input of inputs)
    shown.push(await pageVerdict(input.object, input.old, input.client, input.tree));
  await Promise.all(cliRuns);
  for (const [index, input] of inputs.entries()) {
    const page = shown[index] as PageVerdict;
    const cliVerdict = cliFindings.get(input);
    assert.ok(cliVerdict, `${input.name}: no verdict from validate`);
    assert.deepEqual(
      page.findings.map((finding) => JSON.stringify(finding)),
      cliVerdict.findings,
      `${input.name}: the page's findings differ from validate's`,
    );
    const denied = cliVerdict.findings.some(
      (f) => (JSON.parse(f) as { severity: string }).severity === "error",
    );
    assert.equal(page.verdict === "denied" || page.verdict === "unreadable", denied, `${input.name}: denied`);
    if (cliVerdict.summary && page.summary) {
      const counts = (summary: Record<string, unknown>) => ({ ...summary, files: 0, unreadable: 0 });
      assert.deepEqual(counts(page.summary), counts(cliVerdict.summary), `${input.name}: summary`);
    }
  }
  return shown;
}

describe("the playground, in a real Chromium", () => {
  before(async () => {
    buildPlayground();
    cli = bundleCli();
    mkdirSync(shots, { recursive: true });
    scratch = mkdtempSync(join(tmpdir(), "playground-test-"));
    ({ url, server } = await servePlayground(cli));
    browser = await launchChromium();
    page = await browser.newPage();
    await page.send("Network.enable");
    page.on("Network.requestWillBeSent", (event) => {
      requests.push({ url: String((event.request as { url: string }).url), afterLoad: loaded });
    });
    // Recorded from the first line of the page on: every CSP violation, whatever caused it.
    await page.send("Page.addScriptToEvaluateOnNewDocument", {
      source: `window.cspViolations = [];
        document.addEventListener("securitypolicyviolation", (event) =>
          window.cspViolations.push(event.violatedDirective + " " + event.blockedURI));`,
    });
    await page.goto(url);
    loaded = true;
  });

  after(async () => {
    await browser?.close();
    server?.kill();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it("is built within its size budget (app.js gzipped)", () => {
    const bundle = readFileSync(join(pageDir, "app.js"));
    const gzipped = gzipSync(bundle, { level: 9 }).length;
    assert.ok(
      gzipped <= gzippedBudget,
      `app.js is ${gzipped} bytes gzipped (${bundle.length} raw), over the budget of ${gzippedBudget}`,
    );
    assert.ok(statSync(join(pageDir, "index.html")).size > 0);
  });

  it("runs under a strict Content-Security-Policy: no eval, no connection, nothing inline", () =>
    withScreenshot("csp", async () => {
      const policy = await page.evaluate<string>(
        `document.querySelector('meta[http-equiv="Content-Security-Policy"]').content`,
      );
      assert.doesNotMatch(policy, /unsafe-eval|unsafe-inline|\*/);
      assert.match(policy, /default-src 'none'/);
      assert.match(policy, /connect-src 'none'/);
      assert.match(policy, /script-src 'self'(;|$)/);
      // The policy is in force: the page cannot compile code from a string, nor open a connection.
      // Run from a task of the page's own (DevTools' evaluation itself is exempt from the policy).
      const blocked = await page.evaluate<string[]>(`new Promise((resolve) => setTimeout(async () => {
        const results = [];
        try { new Function("return 1")(); results.push("eval ran"); } catch (error) { results.push(error.name); }
        try { await fetch("http://192.0.2.1/"); results.push("fetch ran"); } catch (error) { results.push(error.name); }
        resolve(results);
      }, 0))`);
      assert.deepEqual(blocked, ["EvalError", "TypeError"]);
      const violations = await page.evaluate<string[]>("window.cspViolations");
      assert.deepEqual([...new Set(violations)].sort(), ["connect-src http://192.0.2.1/", "script-src eval"]);
      await page.evaluate("window.cspViolations.length = 0");
    }));

  it("gives the verdict of the first example on load, and each example's as validate gives it", () =>
    withScreenshot("examples", async () => {
      const first = await readVerdict(page);
      assert.equal(first.verdict, "denied");
      // Each finding of a rule links to the rule's entry in the rule reference.
      const links = await page.evaluate<string[]>(
        `[...document.querySelectorAll("#findings li a")].map((a) => a.href)`,
      );
      assert.deepEqual(links, [
        "https://github.com/forkspacer/module-admission/blob/main/docs/rules.md#module.config-value",
        "https://github.com/forkspacer/module-admission/blob/main/docs/rules.md#module.unknown-field",
      ]);
      assert.ok(first.findings.some((finding) => finding.rule === "validating-webhook/module.config-value"));
      const names = await page.evaluate<string[]>(
        `[...document.querySelectorAll("#example option")].map((option) => option.textContent)`,
      );
      assert.ok(names.length >= 8, `only ${names.length} examples`);
      const examples: PageInput[] = [];
      for (const [index, name] of names.entries()) {
        await page.evaluate(`(() => {
          const example = document.getElementById("example");
          example.value = "${index}";
          example.dispatchEvent(new Event("change"));
        })()`);
        await settled(page);
        const input = await page.evaluate<Omit<PageInput, "name" | "client">>(`({
          object: document.getElementById("object").value,
          old: document.getElementById("old").value,
          tree: document.getElementById("modules").value,
        })`);
        for (const client of ["gitops", "kubectl"] as const) examples.push({ name, client, ...input });
      }
      await assertSameVerdicts(examples);
      const kinds = new Set(
        examples.flatMap((e) => [...e.object.matchAll(/^\s*"?kind"?: "?(\w+)/gm)].map((m) => m[1])),
      );
      for (const kind of ["Module", "Workspace", "ModuleTemplate", "ModuleReleaseMeta", "ConfigMap"])
        assert.ok(kinds.has(kind), `no example of ${kind}`);
      // Every bundled module tree has an example ConfigMap judged against it.
      assert.deepEqual(
        [...new Set(examples.map((e) => e.tree).filter((tree) => tree !== ""))].sort(),
        bundledTrees.map((tree) => tree.id).sort(),
      );
      console.log(`# playground and validate agree on ${names.length} examples, both clients`);
    }));

  it("agrees with validate on every case of the Module denial table", () =>
    withScreenshot("cases", async () => {
      // The creates as one stream of documents (one paste), each update with its old object.
      const creates = denialCases.filter((testCase) => !testCase.oldObject);
      const updates = denialCases.filter((testCase) => testCase.oldObject);
      const [shown] = await assertSameVerdicts([
        {
          name: "the create cases",
          object: creates.map((testCase) => dump(testCase.object)).join("---\n"),
          old: "",
          client: "gitops",
          tree: "",
        },
        ...updates.map((testCase) => ({
          name: `case ${testCase.name}`,
          object: dump(testCase.object),
          old: dump(testCase.oldObject),
          client: "gitops" as const,
          tree: "",
        })),
      ]);
      assert.equal(shown?.summary?.objects, creates.length);
      console.log(`# playground and validate agree on ${denialCases.length} denial cases`);
    }));

  it(
    "agrees with validate on every object of the corpus, as a GitOps tool and as kubectl send it",
    {
      skip: withoutCorpus,
    },
    () =>
      withScreenshot("corpus", async () => {
        const files = ["forkspacer", "kyma", "policy-reports"]
          .flatMap((dir) => yamlFiles(corpusPath(dir)))
          .sort();
        // One stream of documents, as `cat files | validate -` reads them: pasted once per client.
        const stream = files.map((file) => readFileSync(file, "utf8")).join("\n---\n");
        const [shown] = await assertSameVerdicts(
          (["gitops", "kubectl"] as const).map((client) => ({
            name: `corpus (${client})`,
            object: stream,
            old: "",
            client,
            tree: "",
          })),
        );
        assert.ok(!shown?.findings.some((finding) => finding.rule === "input/Unreadable"));
        console.log(
          `# playground and validate agree on ${files.length} corpus files (${shown?.summary?.objects} objects), both clients`,
        );
      }),
  );

  it(
    "agrees with validate on ConfigMap/addon-operator against deckhouse's module trees, each picked as a folder",
    { skip: withoutCorpus },
    () =>
      withScreenshot("deckhouse", async () => {
        const counts: string[] = [];
        for (const version of ["deckhouse-v1.43.1", "deckhouse-v1.76.8"]) {
          const folder = corpusPath("addon-operator", version);
          // The folder as a visitor picks it: the whole checkout, through the page's folder input.
          const { root: documentNode } = await page.send<{ root: { nodeId: number } }>("DOM.getDocument");
          const { nodeId } = await page.send<{ nodeId: number }>("DOM.querySelector", {
            nodeId: documentNode.nodeId,
            selector: "#modules-folder",
          });
          await page.send("DOM.setFileInputFiles", { nodeId, files: [folder] });
          // The page says what it read once the folder's files are in; the verdict on it follows.
          const read = await page.evaluate<string>(`new Promise((resolve) => {
            const read = document.getElementById("modules-read");
            const done = () => read.textContent.startsWith(${JSON.stringify(`${version}:`)});
            if (done()) return resolve(read.textContent);
            new MutationObserver((_, observer) => {
              if (done()) { observer.disconnect(); resolve(read.textContent); }
            }).observe(read, { childList: true, characterData: true, subtree: true });
          })`);
          await settled(page);
          assert.match(
            read,
            new RegExp(`modules dir ${version}/modules, global hooks ${version}/global-hooks$`),
          );
          pickedFolders.set(`folder:${version}`, folder);
          // deckhouse's own case tables (configValues), each as the ConfigMap addon-operator reads,
          // the module enabled as deckhouse's harness judges it: one stream of documents per client.
          const v143 = corpusPath("addon-operator/deckhouse-v1.43.1");
          const cases = loadDeckhouseCases(join(v143, "modules"), join(v143, "global-hooks")).filter(
            (c) => c.kind === "configValues",
          );
          const stream = cases
            .map((c) =>
              dump(
                configMap({
                  [c.key]: JSON.stringify(c.values),
                  ...(c.key === "global" ? {} : { [`${c.key}Enabled`]: "true" }),
                }),
              ),
            )
            .join("---\n");
          const shown = await assertSameVerdicts(
            (["gitops", "kubectl"] as const).map((client) => ({
              name: `${version} (${client})`,
              object: stream,
              old: "",
              client,
              tree: `folder:${version}`,
            })),
          );
          const summary = shown[0]?.summary as { checked: number; denied: number; warned: number };
          assert.equal(summary.checked, cases.length);
          counts.push(
            `${version}: ${cases.length} ConfigMaps, ${summary.denied} denied, ${summary.warned} warned`,
          );
        }
        // A share link names the picked folder but cannot carry it: opened in another tab, the page says so.
        const other = await (browser as Browser).newPage();
        await other.goto(await page.evaluate<string>("location.href"));
        const elsewhere = await readVerdict(other);
        assert.equal(elsewhere.verdict, "unreadable");
        assert.match(
          elsewhere.text,
          /^Cannot be judged: the module tree deckhouse-v1\.76\.8 is a folder on the computer it was picked on: pick it here/,
        );
        console.log(
          `# playground and validate agree on deckhouse's trees, both clients: ${counts.join("; ")}`,
        );
      }),
  );

  it("puts the state in the URL fragment: a share link reproduces it in a new tab", () =>
    withScreenshot("share", async () => {
      await pageVerdict(
        readFileSync(join(root, "examples/playground/modulereleasemeta.yaml"), "utf8"),
        readFileSync(join(root, "examples/playground/modulereleasemeta-old.yaml"), "utf8"),
        "kubectl",
        "cluster",
      );
      const original = await readVerdict(page);
      assert.equal(original.verdict, "denied");
      const link = await page.evaluate<string>("location.href");
      assert.match(link, /#s=[A-Za-z0-9_-]+$/);
      const other = await (browser as Browser).newPage();
      await other.goto(link);
      const reproduced = await readVerdict(other);
      assert.deepEqual(reproduced, original);
      const state = await other.evaluate<string[]>(
        `["object", "old", "client", "modules"].map((id) => document.getElementById(id).value)`,
      );
      const first = await page.evaluate<string[]>(
        `["object", "old", "client", "modules"].map((id) => document.getElementById(id).value)`,
      );
      assert.deepEqual(state, first);
    }));

  it("can be used with the keyboard alone: every control labelled and reached by Tab, a finding's line by Enter", () =>
    withScreenshot("keyboard", async () => {
      await pageVerdict(readFileSync(join(root, "examples/modules/redis.yaml"), "utf8"), "", "gitops", "");
      await page.evaluate(`document.getElementById("example").focus()`);
      const reached: string[] = ["example"];
      for (let i = 0; i < 6; i++) {
        await press(page, "Tab");
        reached.push(
          await page.evaluate<string>("document.activeElement.id || document.activeElement.tagName"),
        );
      }
      assert.deepEqual(reached, [
        "example",
        "client",
        "modules",
        "modules-folder",
        "object",
        "old",
        "BUTTON",
      ]);
      const unlabelled = await page.evaluate<string[]>(
        `[...document.querySelectorAll("select, textarea, input")].filter((c) => c.labels.length === 0).map((c) => c.id)`,
      );
      assert.deepEqual(unlabelled, []);
      assert.equal(
        await page.evaluate<string>(`document.getElementById("verdict").getAttribute("aria-live")`),
        "polite",
      );
      // The first finding's "line N" button, pressed with Enter, selects that line in the editor.
      const line = await page.evaluate<number>(`(() => {
        const button = document.querySelector("#findings li button");
        button.focus();
        return Number(button.textContent.replace("line ", ""));
      })()`);
      await press(page, "Enter");
      const selected = await page.evaluate<{ id: string; line: number }>(`(() => {
        const editor = document.activeElement;
        return { id: editor.id, line: editor.value.slice(0, editor.selectionStart).split("\\n").length };
      })()`);
      assert.deepEqual(selected, { id: "object", line });
    }));

  it("is served by `serve --playground` on its own port, never the webhook's; without the flag nothing more listens", () =>
    withScreenshot("serve", async () => {
      // One review worker each: this test sends no review, and starting workers is most of serve's start.
      const flags = (certDir: string) => [
        "--review-workers",
        "1",
        "--cert-dir",
        certDir,
        "--port",
        "0",
        "--metrics-bind-address",
        "127.0.0.1:0",
      ];
      const [onCerts, offCerts] = [
        mkdtempSync(join(scratch, "certs-")),
        mkdtempSync(join(scratch, "certs-")),
      ];
      // Both at once (each its own certificates): with the flag, and without.
      const [served, off] = await Promise.all([
        startServe([...flags(onCerts), "--playground", "127.0.0.1:0"], 1, cli),
        startServe(flags(offCerts), 1, cli),
      ]);
      try {
        const playgroundPort = served.logs.find((entry) => entry.playgroundPort)?.playgroundPort as number;
        assert.deepEqual(
          listeningPorts(served.child.pid as number),
          [served.port, served.metricsPort, playgroundPort].sort((a, b) => a - b),
        );
        // Without the flag: no playground line, and nothing listens but the webhook and its metrics.
        assert.equal(
          off.logs.find((entry) => entry.playgroundPort !== undefined),
          undefined,
        );
        assert.deepEqual(
          listeningPorts(off.child.pid as number),
          [off.port, off.metricsPort].sort((a, b) => a - b),
        );
        // The page from serve's listener, in the browser: the verdict of its first example.
        const tab = await (browser as Browser).newPage();
        await tab.goto(`http://127.0.0.1:${playgroundPort}/`);
        const shown = await readVerdict(tab);
        assert.equal(shown.verdict, "denied");
        assert.ok(
          shown.findings.some((finding) => finding.rule === "validating-webhook/module.config-value"),
        );
        // Static files only: no other path, no method but GET and HEAD, no body read.
        const base = `http://127.0.0.1:${playgroundPort}`;
        assert.equal(
          (await fetch(`${base}/index.html`)).headers
            .get("content-security-policy")
            ?.includes("default-src 'none'"),
          true,
        );
        assert.equal((await fetch(`${base}/../package.json`)).status, 404);
        assert.equal((await fetch(`${base}/`, { method: "POST", body: "x" })).status, 405);
        // The webhook's port knows none of the page's paths.
        const ca = readFileSync(join(onCerts, "ca.crt"), "utf8");
        for (const path of ["/", "/index.html", "/app.js", "/style.css"])
          assert.equal(await httpsStatus(served.port, path, ca), 404, path);
      } finally {
        for (const server of [served, off]) server.child.kill("SIGINT");
        await Promise.all([served.exited, off.exited]);
      }
    }));

  it("made no request after its load, and none outside its own three files; no CSP violation", () =>
    withScreenshot("requests", async () => {
      // The README's screenshot: the README's invalid example, as the page shows it.
      await page.evaluate(`(() => {
        const example = document.getElementById("example");
        example.value = [...example.options].findIndex((o) => o.textContent.includes("README"));
        example.dispatchEvent(new Event("change"));
      })()`);
      await settled(page);
      // Its findings are the CRD's CEL rules': each names its rule in its message, and links to it.
      const links = await page.evaluate<string[]>(
        `[...document.querySelectorAll("#findings li a")].map((a) => a.hash)`,
      );
      assert.deepEqual(links, ["#module.source", "#module.release-name"]);
      const screenshot = await page.screenshot();
      writeFileSync(join(shots, "playground.png"), screenshot);
      // The README's image, replaced only when asked to (the file is committed).
      if (process.env.MODULE_ADMISSION_UPDATE_SCREENSHOT === "1")
        writeFileSync(join(root, "docs/images/playground.png"), screenshot);
      const origin = new URL(url).origin;
      const fetched = requests.map((request) => request.url.replace(origin, "")).sort();
      assert.deepEqual(fetched, ["/", "/app.js", "/style.css"]);
      assert.deepEqual(
        requests.filter((request) => request.afterLoad),
        [],
      );
      assert.deepEqual(await page.evaluate<string[]>("window.cspViolations"), []);
    }));
});
