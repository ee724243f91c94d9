import { readFileSync } from "node:fs";
import { manifestFiles, parseManifests } from "../../src/offline/manifests.js";

/**
 * The offline baseline: reads and parses every manifest under a directory with the reader `validate`
 * uses, and prints how many objects it found. Usage: node .bench-build/bench/offline/parse-only.js DIR
 */
const objects = manifestFiles([process.argv[2] ?? "."]).flatMap((file) =>
  parseManifests(file, readFileSync(file, "utf8")),
);
process.stdout.write(String(objects.length));
