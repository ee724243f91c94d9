import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/**
 * The real-data corpus (real CRDs, manifests, module trees, spec documents), read in place, never copied
 * in: `../shared` beside the project, or the directory MODULE_ADMISSION_CORPUS names. A clone without it
 * still passes its tests: the tests that read it are reported as skipped, with one line saying where it
 * was looked for. `.ci/run` requires it.
 */
export const corpusDir = resolve(
  process.env.MODULE_ADMISSION_CORPUS || fileURLToPath(new URL("../../../shared", import.meta.url)),
);

export const corpusFound = existsSync(corpusDir);

/** node:test's `skip` for a corpus test: false when the corpus is there, else the reason, one line. */
export const withoutCorpus: string | false = corpusFound
  ? false
  : `corpus not found at ${corpusDir} (expected beside the project, or MODULE_ADMISSION_CORPUS): skipped`;

/** A path inside the corpus. */
export function corpusPath(...parts: string[]): string {
  return join(corpusDir, ...parts);
}

/** A file URL inside the corpus (a trailing `/` kept, so that `new URL(name, it)` resolves inside). */
export function corpusUrl(...parts: string[]): URL {
  return pathToFileURL(corpusPath(...parts));
}

/** Every .yaml and .yml file below `dir`, depth first. */
export function yamlFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) yamlFiles(path, out);
    else if (/\.ya?ml$/.test(entry)) out.push(path);
  }
  return out;
}
