import { generateAll, staleFiles, writeFiles } from "../codegen/generate.js";

/** `npm run generate`: writes every artifact; with --check, only reports stale ones (exit 1). */
const root = process.cwd();
const files = await generateAll(root);
if (process.argv.includes("--check")) {
  const stale = staleFiles(root, files);
  if (stale.length > 0) {
    console.error(`stale generated files (run npm run generate):\n  ${stale.join("\n  ")}`);
    process.exit(1);
  }
  console.log(`${files.length} generated files up to date`);
} else {
  writeFiles(root, files);
  for (const file of files) console.log(`wrote ${file.path}`);
}
