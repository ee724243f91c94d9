import { readFileSync } from "node:fs";
import type { FieldErrorList } from "../admission/field-errors.js";
import type { Defaulter, ResourceKind, Verdict } from "../admission/resource-kind.js";
import type { AdmissionRequest } from "../admission/review.js";
import type { ReviewContext } from "../admission/review-context.js";
import type { RuleDeclaration, RuleId } from "../admission/rule-catalogue.js";
import { generatedSchemaUrl, schemaSourceUrl } from "../schema/generated-schema.js";
import { inlineRefs, type JsonSchema, loadSchemaSource } from "../schema/schema-source.js";
import { behindStructureGate, onReadableSpecs } from "../validation/readable.js";
import { structureChecker } from "../validation/structure.js";

/**
 * A kind with a schema source (`schemas/<name>.yaml`): its identity and its structure check both come
 * from the editor schema generated from it (`schemas/dist/<name>.schema.json`), whose `apiVersion` and
 * `kind` are constants; nothing restates them.
 */
export function schemaKind(name: string): SchemaKind {
  let kind = schemaKinds.get(name);
  if (!kind) {
    kind = readSchemaKind(name);
    schemaKinds.set(name, kind);
  }
  return kind;
}

interface SchemaKind {
  group: string;
  version: string;
  kind: string;
  checkStructure: ReturnType<typeof structureChecker>;
  /** The schema source's schema, references inlined: the list types ratcheting correlates items by. */
  schema(): JsonSchema;
}

// One per schema source however often a kind is built (with each process's lookups): one compilation.
const schemaKinds = new Map<string, SchemaKind>();

function readSchemaKind(name: string): SchemaKind {
  const schema = JSON.parse(readFileSync(generatedSchemaUrl(name), "utf8")) as {
    properties: { apiVersion: { const: string }; kind: { const: string } };
  };
  const apiVersion = schema.properties.apiVersion.const;
  const slash = apiVersion.lastIndexOf("/");
  return {
    group: slash < 0 ? "" : apiVersion.slice(0, slash),
    version: apiVersion.slice(slash + 1),
    kind: schema.properties.kind.const,
    checkStructure: structureChecker(schema),
    // Read on the first ratcheted UPDATE only: a CREATE, or an UPDATE without errors, never needs it.
    schema: once(() => inlineRefs(loadSchemaSource(schemaSourceUrl(name)).schema)),
  };
}

function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => {
    made ??= { value: make() };
    return made.value;
  };
}

/**
 * Where the API server enforces a kind's structural schema itself: the CRD, and what the webhook's copy
 * of the schema finds that the installed CRD may not (CEL on the object: a narrowed webhook is called then).
 */
export interface SchemaEnforcement {
  why: string;
  callWhen?: string;
}

/** The ids of the two rules every kind with a schema source has: a kind adds them to `DeclaredRuleIds`. */
export type GateRuleIds<Name extends string> = Record<`${Name}.schema` | `${Name}.unknown-field`, true>;

/** A schema source whose kind declares its gate's rule ids (`GateRuleIds<name>`). */
type GatedSchema = RuleId extends infer Id ? (Id extends `${infer Name}.schema` ? Name : never) : never;

/** The rules every kind with a schema source has: its structure gate's. */
export function gateRules<Name extends string>(
  name: Name,
  kind: string,
  upstream: string,
  schema: SchemaEnforcement,
): readonly RuleDeclaration<keyof GateRuleIds<Name>>[] {
  return [
    {
      id: `${name}.schema`,
      severity: "error",
      summary: `the ${kind} does not fit its CRD's structural schema (types, enums, bounds, required fields)`,
      realSystem: "the API server refuses it with the same field errors, before any validating webhook runs",
      upstream,
      native: { by: "schema", ...schema },
    },
    {
      id: `${name}.unknown-field`,
      severity: "warning",
      summary: "a field the CRD's schema does not know (often a misspelt name)",
      realSystem: "the API server prunes it silently: the setting has no effect",
      upstream: "apiextensions-apiserver pruning (structural schemas)",
      // Pruned before admission: the webhook in a cluster never sees one either.
      native: {
        by: "webhook",
        why: "the API server prunes unknown fields before admission, so no policy (nor webhook) sees them; kubectl's field validation reports them",
        callWhen: "false",
      },
    },
  ];
}

export interface KindDefinition<T, S> {
  /**
   * The schema source's name, `schemas/<schema>.yaml`; also the prefix of the kind's rule ids. The kind
   * declares its gate's ids (`GateRuleIds<schema>`) beside its own: a schema without them fails `tsc`.
   */
  schema: GatedSchema;
  /** Where the CRD's schema comes from (docs/rules.md's upstream for the schema rule). */
  schemaUpstream: string;
  /** Which CRD enforces the schema in a cluster, and what the webhook checks beyond it. */
  schemaEnforcement: SchemaEnforcement;
  /** The kind's own rules, each declared beside its check; the gate's two are added here. */
  rules: readonly RuleDeclaration[];
  /**
   * The state rules, on the part of the object its schema accepts. With a focus in the context
   * (ratcheting's look at an old object), the checks none of whose rules it names may be skipped;
   * warnings are not used.
   */
  state(readable: T, context: ReviewContext): Verdict;
  /**
   * The update-only rules, never skipped: each side's spec read as far as its values have the right
   * type (a value of the wrong type reads as unset), their errors naming fields as in the object.
   */
  transition?(oldSpec: S | undefined, spec: S | undefined, request: AdmissionRequest): Verdict;
  defaulter?: Defaulter<T>;
  whileInvalid?(preexisting: FieldErrorList): string[];
}

/**
 * A kind: identity and structure gate from its schema source, the field-scoped structure prologue and
 * the transition guard once for every kind, and its rule declarations gathered for the protocol layer.
 * Typed in, erased out (as controller-runtime's typed webhooks): the rules read `T`, the structure gate
 * is what makes an object one, and the protocol layer sees a `ResourceKind` of anything.
 */
export function defineKind<T, S = unknown>(definition: KindDefinition<T, S>): ResourceKind {
  const { checkStructure, schema, ...identity } = schemaKind(definition.schema);
  const declarations = [
    ...gateRules(definition.schema, identity.kind, definition.schemaUpstream, definition.schemaEnforcement),
    ...definition.rules,
  ];
  const { transition } = definition;
  return {
    ...identity,
    declarations,
    rules: declarations.filter((rule) => rule.severity === "error").map((rule) => rule.id),
    warningRules: declarations.filter((rule) => rule.severity === "warning").map((rule) => rule.id),
    validator: {
      validate: (object, context) => {
        const verdict = behindStructureGate<T>(
          checkStructure,
          { schema: `${definition.schema}.schema`, unknownField: `${definition.schema}.unknown-field` },
          object,
          (readable) => definition.state(readable, context),
          context.budget,
        );
        return context.focus ? { errors: verdict.errors, warnings: [] } : verdict;
      },
      ...(transition && {
        validateTransition: (oldObject, object, context) =>
          onReadableSpecs<S>(
            checkStructure,
            oldObject,
            object,
            (before, after) => transition(before, after, context.request),
            context.budget,
          ),
      }),
      ...(definition.whileInvalid && { whileInvalid: definition.whileInvalid }),
      schema,
    },
    ...(definition.defaulter && { defaulter: definition.defaulter }),
  };
}
