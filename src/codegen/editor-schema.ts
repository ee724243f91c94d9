import {
  inlineRefs,
  type JsonSchema,
  mapSchemaNodes,
  type SchemaSource,
  withoutDefaultedRequired,
  withoutKeys,
} from "../schema/schema-source.js";
import { editorConstraints } from "./editor-rules.js";

export interface EditorSchemaOptions {
  /**
   * The editor layer (schemas/editor/, `module-admission schema`): the CEL rules JSON Schema can say
   * (editor-rules.ts) and, for every kind, which kinds its group serves. Without it, the schema the
   * webhook's structure gate and `validate` compile (schemas/dist/): types and formats only, since the
   * CEL rules run as CEL there, with the API server's messages and ratcheting.
   */
  celRules?: boolean;
}

/**
 * A plain JSON Schema (draft-07) of the whole resource, for editors and for offline checks. Objects are
 * closed (`additionalProperties: false`) unless the source marks them free-form, so a typo shows in the
 * editor instead of being pruned silently by the API server. A property with a `default` is not
 * required here: the API server fills it in before anything checks it, so a manifest may omit it.
 */
export function buildEditorSchema(source: SchemaSource, options: EditorSchemaOptions = {}): JsonSchema {
  const { crd } = source;
  const closed = mapSchemaNodes(inlineRefs(source.schema), (node) => {
    const freeForm = node["x-kubernetes-preserve-unknown-fields"] === true;
    const plain = withRules(
      withoutKeys(node, (key) => key.startsWith("x-kubernetes-")),
      options.celRules ? editorConstraints(node) : [],
    );
    if (freeForm) return { ...plain, additionalProperties: true };
    const open = withoutDefaultedRequired(plain);
    if (open.type === "object" && open.properties && open.additionalProperties === undefined) {
      return { ...open, additionalProperties: false };
    }
    return open;
  });
  const properties = { ...(closed.properties as Record<string, JsonSchema>) };
  properties.apiVersion = { ...properties.apiVersion, const: `${crd.group}/${crd.version}` };
  properties.kind = { ...properties.kind, const: crd.names.kind };
  properties.metadata = { ...properties.metadata, additionalProperties: true };
  return {
    $schema: "http://json-schema.org/draft-07/schema#",
    $id: `https://module-admission.dev/schemas/${crd.group}/${crd.version}/${crd.names.singular}.json`,
    ...closed,
    required: [...new Set(["apiVersion", "kind", ...((closed.required as string[]) ?? [])])],
    properties,
  };
}

/**
 * One schema for every kind, for a whole repository's YAML: each kind's schema applies where
 * `apiVersion` and `kind` name it (if/then), and nothing applies to anything else, so a file that holds
 * a Workspace and a Module, a Deployment or a `kustomization.yaml` gets no false errors.
 */
export function buildEditorDispatchSchema(
  sources: readonly SchemaSource[],
  options: EditorSchemaOptions = {},
): JsonSchema {
  const definitions: Record<string, JsonSchema> = {};
  const branches = sources.map((source) => {
    const { $schema: _schema, $id: _id, ...schema } = buildEditorSchema(source, options);
    definitions[source.name] = schema;
    const apiVersion = `${source.crd.group}/${source.crd.version}`;
    return {
      if: {
        required: ["apiVersion", "kind"],
        properties: { apiVersion: { const: apiVersion }, kind: { const: source.crd.names.kind } },
      },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then, never awaited
      then: { $ref: `#/definitions/${source.name}` },
    };
  });
  return {
    $schema: "http://json-schema.org/draft-07/schema#",
    $id: "https://module-admission.dev/schemas/module-admission.json",
    title: `module-admission: ${sources.map((source) => source.crd.names.kind).join(", ")}`,
    description:
      "Checks the kinds module-admission knows, by apiVersion and kind; other objects are left alone.",
    allOf: options.celRules ? [...branches, ...servedKindRules(sources)] : branches,
    definitions,
  };
}

/**
 * A single schema merged into the node where its keywords are new to it (a string's `pattern`), any
 * other as `allOf` entries.
 */
function withRules(node: JsonSchema, rules: JsonSchema[]): JsonSchema {
  if (rules.length === 0) return node;
  const [only] = rules;
  if (rules.length === 1 && only && Object.keys(only).every((key) => !(key in node))) {
    return { ...node, ...only };
  }
  return { ...node, allOf: [...((node.allOf as JsonSchema[] | undefined) ?? []), ...rules] };
}

/**
 * What the API server serves in the groups of these kinds, as `validate` reports a near miss: at a
 * served group and version, `kind` is one the group serves there (ours, and `crd.groupKinds`, other
 * products' kinds in the group); one of our kinds in its group at another version is not served.
 */
function servedKindRules(sources: readonly SchemaSource[]): JsonSchema[] {
  const byGroupVersion = new Map<string, Set<string>>();
  for (const { crd } of sources) {
    const apiVersion = `${crd.group}/${crd.version}`;
    const kinds = byGroupVersion.get(apiVersion) ?? new Set<string>();
    for (const kind of [crd.names.kind, ...(crd.groupKinds ?? [])]) kinds.add(kind);
    byGroupVersion.set(apiVersion, kinds);
  }
  const kindRules = [...byGroupVersion].map(([apiVersion, kinds]) => {
    const served = [...kinds].sort();
    return {
      if: { required: ["apiVersion", "kind"], properties: { apiVersion: { const: apiVersion } } },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then, never awaited
      then: {
        properties: {
          kind: {
            enum: served,
            errorMessage: `not a kind ${apiVersion} serves: ${served.join(", ")}`,
          },
        },
      },
    };
  });
  const versionRules = sources.map(({ crd }) => {
    const apiVersion = `${crd.group}/${crd.version}`;
    return {
      if: {
        required: ["apiVersion", "kind"],
        properties: {
          apiVersion: { pattern: `^${crd.group.replaceAll(".", "\\.")}/` },
          kind: { const: crd.names.kind },
        },
      },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then, never awaited
      then: {
        properties: {
          apiVersion: {
            const: apiVersion,
            errorMessage: `${crd.group} serves ${crd.names.kind} at ${apiVersion}`,
          },
        },
      },
    };
  });
  return [...kindRules, ...versionRules];
}
