/**
 * Cost per parse of src/go/template (parseTemplate, analysis included) on the templates of the real
 * Forkspacer manifests and on a few larger ones. A measurement script, not a test:
 * `npx tsx bench/go-template.ts`.
 */
import { readdirSync, readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";
import { hasTemplate, parseTemplate } from "../src/go/template/index.js";
import { corpusUrl } from "../test/support/corpus.js";

const dir = corpusUrl("forkspacer/manifests/");
const real: string[] = [];
const walk = (v: unknown): void => {
  if (typeof v === "string" && hasTemplate(v)) real.push(v);
  else if (typeof v === "object" && v !== null) for (const x of Object.values(v)) walk(x);
};
for (const f of readdirSync(dir))
  for (const d of parseAllDocuments(readFileSync(new URL(f, dir), "utf8"))) walk(d.toJS());

const sets: Record<string, string[]> = {
  "real manifests' templates": real,
  "if/else with comparisons (80 chars)": [
    '{{ if eq .config.env "production" }}{{ .config.replicas }}{{ else }}1{{ end }}',
  ],
  "1 KB of actions": ['{{.config.a}}-{{ printf "%s" .releaseName | len }}'.repeat(20)],
  "100 KB of actions": ['{{.config.a}}-{{ printf "%s" .releaseName | len }}'.repeat(2000)],
};

for (const [label, texts] of Object.entries(sets)) {
  const options = { functions: ["randBase62"] };
  const bytes = texts.reduce((n, t) => n + t.length, 0);
  const rounds = Math.max(20, Math.ceil(2_000_000 / bytes));
  for (let i = 0; i < Math.min(rounds, 200); i++) for (const t of texts) parseTemplate(t, options); // warm-up
  const start = process.hrtime.bigint();
  for (let i = 0; i < rounds; i++) for (const t of texts) parseTemplate(t, options);
  const ns = Number(process.hrtime.bigint() - start) / (rounds * texts.length);
  console.log(`${label}: ${texts.length} template(s), ${(ns / 1000).toFixed(2)} µs per parse`);
}
