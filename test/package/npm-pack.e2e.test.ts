import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { loadAll } from "js-yaml";

/**
 * The npm package as a user gets it: `npm run compile` and `npm pack` in a copy of the sources,
 * so the worktree's dist/ that other tests run is never removed under them, then `npm install` of the
 * tarball into an empty folder (dependencies from the registry) and `npx module-admission ...` there.
 * docs/deployment.md's package section shows these commands.
 */
const root = new URL("../../", import.meta.url).pathname;
const run = promisify(execFile);
const packageJson = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const work = mkdtempSync(join(tmpdir(), "module-admission-pack-"));
const source = join(work, "source");
const user = join(work, "user");
let tarball: string;
let packed: string[];

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}
async function npx(args: string[], cwd = user): Promise<Result> {
  try {
    const { stdout, stderr } = await run("npx", ["--no-install", "module-admission", ...args], {
      cwd,
      env: { ...process.env, npm_config_update_notifier: "false" },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as Result;
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

before(async () => {
  // What a clone has that `npm pack` reads: the Dockerfile copies the same (see the Dockerfile test).
  mkdirSync(source);
  for (const entry of [
    "package.json",
    "package-lock.json",
    "tsconfig.json",
    "README.md",
    "bin",
    "src",
    "scripts",
    "schemas",
    "examples",
  ]) {
    cpSync(join(root, entry), join(source, entry), { recursive: true });
  }
  symlinkSync(join(root, "node_modules"), join(source, "node_modules"));
  await run("npm", ["run", "compile"], { cwd: source });
  // The page `serve --playground` serves: built before packing, as the Dockerfile does.
  await run("npm", ["run", "build:playground"], { cwd: source });
  const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", work], { cwd: source });
  const [pack] = JSON.parse(stdout.slice(stdout.indexOf("["))) as {
    filename: string;
    files: { path: string }[];
  }[];
  assert.ok(pack);
  tarball = join(work, pack.filename);
  packed = pack.files.map((file) => file.path).sort();
  mkdirSync(user);
  await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", tarball], { cwd: user });
});
after(() => rmSync(work, { recursive: true, force: true }));

describe("npm pack, installed into an empty folder", () => {
  test("the tarball holds the command, the built CLI, its sources, the schemas, package.json and README: no tests or maps", () => {
    assert.ok(packed.includes("bin/module-admission.js"));
    assert.ok(packed.includes("dist/cli/main.js"));
    assert.ok(packed.includes("schemas/module.yaml"));
    assert.ok(packed.includes("schemas/dist/module.schema.json"));
    // The playground page, and not its build's scratch (the compiled validators) nor test screenshots.
    assert.deepEqual(
      packed.filter((path) => path.startsWith("dist/playground")),
      ["dist/playground/app.js", "dist/playground/index.html", "dist/playground/style.css"],
    );
    const tops = new Set(packed.map((path) => path.split("/")[0]));
    assert.deepEqual([...tops].sort(), ["README.md", "bin", "dist", "package.json", "schemas", "src"]);
    assert.deepEqual(
      packed.filter((path) => path.endsWith(".map") || (path.endsWith(".ts") && !path.startsWith("src/"))),
      [],
    );
  });

  test("npx module-admission --version prints package.json's version", async () => {
    const result = await npx(["--version"]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, `${packageJson.version}\n`);
  });

  test("validate gives the README's findings for examples/modules and exits 1", async () => {
    cpSync(join(root, "examples", "modules"), join(user, "examples", "modules"), { recursive: true });
    const result = await npx(["validate", "-f", "examples/modules"]);
    assert.equal(result.code, 1, result.stderr);
    assert.equal(
      result.stdout,
      [
        "examples/modules/redis.yaml:48: Module default/redis: spec.config.replicas: Invalid value: 7: must be less than or equal to 5",
        'examples/modules/redis.yaml:34: warning: Module default/redis: unknown field "spec.helm.relaseName"',
        "2 files, 3 objects read; 3 checked (1 denied, 1 warned); 0 skipped; judged as a GitOps tool sends it",
        "not checked: module.workspace-exists (3 objects): Module spec.workspace names a Workspace that exists: a cluster lookup; give the Workspaces with --cluster-objects FILE|DIR",
        "",
      ].join("\n"),
    );
  });

  test("install-crds --dry-run prints the Module and Workspace CRDs from the packed schemas", async () => {
    const result = await npx(["install-crds", "--dry-run"]);
    assert.equal(result.code, 0, result.stderr);
    const crds = loadAll(result.stdout) as { kind: string; metadata: { name: string } }[];
    assert.deepEqual(
      crds.map((crd) => `${crd.kind}/${crd.metadata.name}`),
      [
        "CustomResourceDefinition/modules.batch.forkspacer.com",
        "CustomResourceDefinition/workspaces.batch.forkspacer.com",
      ],
    );
  });

  test("serve generates dev certificates and answers an AdmissionReview over HTTPS; --playground serves the page", async () => {
    const child = spawn(
      join(user, "node_modules", ".bin", "module-admission"),
      [
        "serve",
        "--cert-dir",
        "certs",
        "--port",
        "0",
        "--metrics-bind-address",
        "0",
        "--playground",
        "127.0.0.1:0",
      ],
      { cwd: user, stdio: ["ignore", "pipe", "pipe"] },
    );
    try {
      let playgroundPort: number | undefined;
      const port = await new Promise<number>((resolve, reject) => {
        createInterface({ input: child.stdout }).on("line", (line) => {
          const entry = JSON.parse(line) as { port?: number; playgroundPort?: number };
          playgroundPort ??= entry.playgroundPort;
          if (entry.port !== undefined) resolve(entry.port);
        });
        child.once("exit", (code) => reject(new Error(`serve exited with ${code}`)));
      });
      // The installed package's page, as the image's `serve --playground` serves it.
      const page = await fetch(`http://127.0.0.1:${playgroundPort}/`);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /<title>module-admission playground<\/title>/);
      const script = await fetch(`http://127.0.0.1:${playgroundPort}/app.js`);
      assert.equal(
        Buffer.from(await script.arrayBuffer()).length,
        readFileSync(join(user, "node_modules/module-admission/dist/playground/app.js")).length,
      );
      const ca = readFileSync(join(user, "certs", "ca.crt"), "utf8");
      const body = readFileSync(join(root, "examples", "create-invalid-module.json"));
      const answer = await new Promise<string>((resolve, reject) => {
        const req = request(
          `https://localhost:${port}/validate-batch-forkspacer-com-v1-module`,
          { method: "POST", ca, headers: { "content-type": "application/json" } },
          (res) => {
            let text = "";
            res.on("data", (chunk) => (text += chunk));
            res.on("end", () => resolve(text));
          },
        );
        req.on("error", reject);
        req.end(body);
      });
      const { response } = JSON.parse(answer);
      assert.equal(response.allowed, false);
      assert.match(response.status.message, /spec\.helm\.releaseName: Invalid value: "Redis_Main"/);
    } finally {
      child.kill("SIGTERM");
    }
  });
});

describe("a validate-only install: npm install --omit=optional, without the Kubernetes client", () => {
  const lean = join(work, "lean");
  before(async () => {
    mkdirSync(lean);
    await run("npm", ["install", "--omit=optional", "--no-audit", "--no-fund", "--prefer-offline", tarball], {
      cwd: lean,
    });
  });

  test("has no @kubernetes/client-node; validate and lint-modules work", async () => {
    assert.ok(!existsSync(join(lean, "node_modules", "@kubernetes", "client-node")));
    cpSync(join(root, "examples", "modules"), join(lean, "examples", "modules"), { recursive: true });
    const validate = await npx(["validate", "-f", "examples/modules"], lean);
    assert.equal(validate.code, 1, validate.stderr);
    assert.match(validate.stdout, /3 checked \(1 denied, 1 warned\)/);
    const lint = await npx(["lint-modules", "examples"], lean);
    assert.equal(lint.code, 0, lint.stderr);
  });

  test("a cluster command says what it needs and how to install it, exit 2; help lists it so", async () => {
    const serve = await npx(["serve"], lean);
    assert.equal(serve.code, 2);
    assert.equal(
      serve.stderr,
      "module-admission serve: needs @kubernetes/client-node, an optional dependency left out of this install: npm install @kubernetes/client-node\n",
    );
    const help = await npx(["--help"], lean);
    assert.match(help.stdout, /audit +\(needs @kubernetes\/client-node/);
  });
});

test("docs/deployment.md's package section shows the commands this file runs", () => {
  const deployment = readFileSync(join(root, "docs/deployment.md"), "utf8");
  const install = deployment.slice(
    deployment.indexOf("## The npm package and the image"),
    deployment.indexOf("## The Helm chart"),
  );
  assert.ok(install.length > 0, "docs/deployment.md has its package section");
  for (const command of [
    "npm pack",
    `npm install ../${packageJson.name}-${packageJson.version}.tgz`,
    "npx module-admission --version",
    "npx module-admission validate -f examples/modules",
    "npx module-admission install-crds --dry-run",
    "npx module-admission serve --cert-dir certs --port 0 --metrics-bind-address 0",
  ]) {
    assert.ok(install.includes(`\n${command}`), command);
  }
});

describe("Dockerfile: the image is what npm pack ships", () => {
  const dockerfile = readFileSync(join(root, "Dockerfile"), "utf8").replace(/\\\n/g, " ");
  const stages = dockerfile.split(/^FROM /m).slice(1);
  const instructions = (stage: string, name: string) =>
    stage
      .split("\n")
      .filter((line) => line.startsWith(`${name} `))
      .map((line) => line.slice(name.length + 1).trim());
  const [build, runtime] = stages as [string, string];

  test("the build stage copies exactly what npm pack reads: the packed top-level entries and the build inputs", () => {
    const copied = instructions(build, "COPY").flatMap((args) => args.split(/\s+/).slice(0, -1));
    // dist/ is built from src/ with tsconfig.json and scripts/ (the CLI's bundle); package-lock.json
    // pins the dependencies npm ci installs.
    // examples/ is the playground's (its examples and module trees, embedded in the page at build).
    const buildInputs = ["package-lock.json", "tsconfig.json", "src", "scripts", "examples"];
    const packedTops = [...new Set(packed.map((path) => path.split("/")[0]))].filter((top) => top !== "dist");
    assert.deepEqual(copied.sort(), [...new Set([...packedTops, ...buildInputs])].sort());
    const ignored = readFileSync(join(root, ".dockerignore"), "utf8")
      .split("\n")
      .filter((line) => line && !line.startsWith("#"));
    assert.deepEqual(
      copied.filter((entry) => ignored.includes(entry)),
      [],
    );
  });

  test("/app is the unpacked tarball plus production dependencies, and the runtime stage takes only /app", () => {
    const runs = instructions(build, "RUN").join("\n");
    assert.match(runs, /npm run compile && npm run build:playground +&& npm pack --pack-destination \/pack/);
    assert.match(runs, /tar -xzf \/pack\/module-admission-\*\.tgz -C \/app --strip-components=1/);
    assert.match(runs, /npm ci --omit=dev --ignore-scripts/);
    assert.deepEqual(instructions(runtime, "COPY"), ["--from=build /app /app"]);
    assert.deepEqual(instructions(runtime, "RUN"), []);
  });

  test("non-root, and the entrypoint is the package's bin", () => {
    assert.deepEqual(instructions(runtime, "USER"), ["65532:65532"]);
    const [entrypoint] = instructions(runtime, "ENTRYPOINT");
    assert.deepEqual(JSON.parse(entrypoint ?? "[]"), [
      "/nodejs/bin/node",
      packageJson.bin["module-admission"],
    ]);
    assert.deepEqual(instructions(runtime, "WORKDIR"), ["/app"]);
  });
});
