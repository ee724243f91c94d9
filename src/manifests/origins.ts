import { join } from "node:path";
import { load as loadYaml } from "js-yaml";
import { InputError } from "./input-error.js";
import { type Manifest, parseManifests } from "./manifests.js";
import type { YamlReader } from "./yaml-readings.js";

/** The annotation kustomize adds with `buildMetadata: [originAnnotations]`: where an object came from. */
export const originAnnotation = "config.kubernetes.io/origin";

/** An object's origin: its source file, relative to the kustomization built, and its line where given. */
interface Origin {
  path: string;
  line?: number;
}

/** The origin annotation's local file (not one of a remote repository), if the object has one. */
export function originOf(object: Record<string, unknown>): Origin | undefined {
  const metadata = object.metadata as { annotations?: Record<string, unknown> } | undefined;
  const text = metadata?.annotations?.[originAnnotation];
  if (typeof text !== "string") return undefined;
  let origin: unknown;
  try {
    origin = loadYaml(text);
  } catch {
    return undefined;
  }
  const { path, repo, line } = (origin ?? {}) as { path?: unknown; repo?: unknown; line?: unknown };
  if (typeof path !== "string" || path === "" || repo !== undefined) return undefined;
  return { path, ...(Number.isInteger(line) && (line as number) > 0 ? { line: line as number } : {}) };
}

/**
 * Places the objects of a kustomize build (piped in) in their source files, from their origin
 * annotations: the source file read and the object found in it by kind and name, so that a finding
 * points at the field's line there (the nearest ancestor's, for a field kustomize added); the
 * origin's own line where it gives one and the object is not found. An object whose source cannot be
 * read or does not hold it keeps its place in the build's output. `readSource` reads a source file
 * (bounded), or throws an InputError: injected, as the engine reads no files of its own.
 */
export function originPlacer(
  kustomization: string,
  reader: YamlReader,
  readSource: (file: string) => string,
): (manifest: Manifest) => Manifest {
  const sources = new Map<string, Manifest[] | undefined>();
  const read = (file: string) => {
    if (!sources.has(file)) {
      try {
        sources.set(file, parseManifests(file, readSource(file), reader));
      } catch (error) {
        if (!(error instanceof InputError)) throw error;
        sources.set(file, undefined);
      }
    }
    return sources.get(file);
  };
  return (manifest) => {
    const origin = originOf(manifest.object);
    if (!origin) return manifest;
    const file = join(kustomization, origin.path);
    const source = read(file);
    const found = source && sameObject(source, manifest.object);
    if (found) return { ...manifest, file, lineOf: found.lineOf };
    const { line } = origin;
    if (line === undefined) return manifest;
    return { ...manifest, file, lineOf: () => line };
  };
}

/**
 * The object in its source: of the same kind, named the same, or (kustomize's namePrefix and nameSuffix
 * put around it) the longest source name the built name holds.
 */
function sameObject(source: Manifest[], object: Record<string, unknown>): Manifest | undefined {
  const nameOf = (o: Record<string, unknown>) => {
    const name = (o.metadata as { name?: unknown } | undefined)?.name;
    return typeof name === "string" ? name : "";
  };
  const built = nameOf(object);
  const held = source
    .filter(
      (m) => m.object.kind === object.kind && nameOf(m.object) !== "" && built.includes(nameOf(m.object)),
    )
    .sort((a, b) => nameOf(b.object).length - nameOf(a.object).length);
  const [longest, next] = held;
  return longest && nameOf(longest.object) !== (next && nameOf(next.object)) ? longest : undefined;
}
