import { readFileSync } from "node:fs";
import { manifestFiles } from "../../src/manifests/manifest-files.js";
import { parseManifests } from "../../src/manifests/manifests.js";

/**
 * The offline baseline: reads and parses every manifest under a directory as `validate` does, with
 * js-yaml for every document the port of Go's readings leaves to it (issue 34's baseline: the YAML
 * library `validate` reads with), or with `--plain-reader` as `validate` itself reads (its own reader
 * for plain block YAML first), and prints how many objects it found.
 * Usage: node .bench-build/bench/offline/parse-only.js DIR [--plain-reader]
 */
const plainReader = process.argv[3] === "--plain-reader";
const objects = manifestFiles([process.argv[2] ?? "."]).flatMap((file) =>
  parseManifests(file, readFileSync(file, "utf8"), "gitops", plainReader),
);
process.stdout.write(String(objects.length));
