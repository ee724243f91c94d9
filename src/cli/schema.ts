import { Command } from "commander";
import { buildEditorDispatchSchema, buildEditorSchema } from "../codegen/editor-schema.js";
import { schemasDir } from "../offline/kinds.js";
import { loadSchemaSources } from "../schema/schema-source.js";
import { type Outcome, UsageError } from "./command.js";

export function schemaDefinition(outcome: Outcome): Command {
  const kinds = loadSchemaSources(schemasDir)
    .map((source) => source.crd.names.kind)
    .join(", ");
  return new Command("schema")
    .summary("print the JSON Schema of a kind, for editors (yaml-language-server, VS Code)")
    .description("Print the JSON Schema of a kind, for editors (yaml-language-server, VS Code).")
    .argument(
      "[kind]",
      `the kind, its plural, singular or a short name: ${kinds}; without it, one schema for every kind, applied by apiVersion and kind`,
    )
    .action((kind: string | undefined) => {
      process.stdout.write(schemaFor(kind));
      outcome.status = 0;
    });
}

const editor = { celRules: true };

/**
 * The editor JSON Schema generated from the kind's schema source, or for every kind (the same text as
 * schemas/editor/): the structure schema with what JSON Schema can say of the CEL rules and served kinds.
 */
export function schemaFor(requested: string | undefined): string {
  const sources = loadSchemaSources(schemasDir);
  const names = (s: (typeof sources)[number]) =>
    [
      s.name,
      s.crd.names.kind,
      s.crd.names.singular,
      s.crd.names.plural,
      ...(s.crd.names.shortNames ?? []),
    ].map((n) => n.toLowerCase());
  if (requested === undefined)
    return `${JSON.stringify(buildEditorDispatchSchema(sources, editor), null, 2)}\n`;
  const matches = sources.filter((s) => names(s).includes(requested.toLowerCase()));
  const known = sources.map((s) => s.crd.names.kind).join(", ");
  if (matches.length !== 1) throw new UsageError(`no kind ${JSON.stringify(requested)}: kinds are ${known}`);
  return `${JSON.stringify(buildEditorSchema(matches[0] as (typeof sources)[number], editor), null, 2)}\n`;
}
