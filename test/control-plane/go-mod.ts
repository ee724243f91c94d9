import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * k8s.io/kubernetes takes 33 of its modules from its own `staging/` folder (`k8s.io/api => ./staging/src/k8s.io/api`
 * in its go.mod), so a module that builds its commands must replace each with the published copy at the
 * matching version (v1.37.2 -> v0.37.2). The list is derived from the kubernetes go.mod the proxy serves, never
 * typed: `node --import tsx test/control-plane/go-mod.ts` rewrites the replace block, `--check` fails when it
 * differs (the build step runs the check before every build).
 */
const goModPath = fileURLToPath(new URL("go.mod", import.meta.url));

export function derivedReplaceBlock(goMod: string): string {
  const version = /^(?:require )?\s*k8s\.io\/kubernetes (v1\.\d+\.\d+)\s*$/m.exec(goMod)?.[1];
  if (!version) throw new Error(`${goModPath}: no k8s.io/kubernetes requirement`);
  const stagingVersion = version.replace(/^v1\./, "v0.");
  const downloaded = JSON.parse(
    execFileSync("go", ["mod", "download", "-json", `k8s.io/kubernetes@${version}`], { encoding: "utf8" }),
  ) as { GoMod: string };
  const staging = [
    ...readFileSync(downloaded.GoMod, "utf8").matchAll(/^\s*(\S+) => \.\/staging\/src\/\S+\s*$/gm),
  ]
    .map((match) => match[1])
    .sort();
  if (staging.length === 0)
    throw new Error(`k8s.io/kubernetes@${version}: no staging replaces in its go.mod`);
  const lines = staging.map((module) => `\t${module} => ${module} ${stagingVersion}`);
  return `// Derived from k8s.io/kubernetes's go.mod by go-mod.ts: do not edit.\nreplace (\n${lines.join("\n")}\n)\n`;
}

const blockPattern = /\/\/ Derived from k8s\.io\/kubernetes's go\.mod[^\n]*\nreplace \([^)]*\)\n/;

export function checkGoMod(): string | null {
  const goMod = readFileSync(goModPath, "utf8");
  const want = derivedReplaceBlock(goMod);
  const have = blockPattern.exec(goMod)?.[0];
  return have === want
    ? null
    : `${goModPath}: the replace block differs from k8s.io/kubernetes's staging list; run node --import tsx test/control-plane/go-mod.ts`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes("--check")) {
    const problem = checkGoMod();
    if (problem) {
      console.error(problem);
      process.exit(1);
    }
  } else {
    const goMod = readFileSync(goModPath, "utf8");
    const block = derivedReplaceBlock(goMod);
    writeFileSync(
      goModPath,
      blockPattern.test(goMod) ? goMod.replace(blockPattern, block) : `${goMod.trimEnd()}\n\n${block}`,
    );
  }
}
