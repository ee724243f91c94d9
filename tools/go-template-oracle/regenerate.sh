#!/bin/sh
# Regenerates test/go-template/fidelity-expected.json and exec-expected.json: the cases of
# test/go-template/fidelity-cases.ts and exec-cases.ts parsed (and, with data, executed) by Go's own
# text/template. Needs Go (Debian: apt-get install golang-go) and the project's node_modules; CI does
# not run this, it only reads the JSON.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
for table in fidelity exec; do
  out=test/go-template/$table-expected.json
  TABLE=$table node --import tsx -e '
    const table = process.env.TABLE;
    const mod = await import(`./test/go-template/${table}-cases.ts`);
    const list = table === "exec" ? mod.execCases : mod.fidelityCases;
    const cases = list.map(({ name, text, funcs, data }) => ({ name, text, funcs, data }));
    process.stdout.write(JSON.stringify({ cases }));
  ' | (cd tools/go-template-oracle && GOFLAGS=-mod=mod go run .) >"$out.tmp"
  mv "$out.tmp" "$out"
  npx biome format --write "$out" >/dev/null
  echo "wrote $out"
done
