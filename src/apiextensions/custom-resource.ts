import { type FieldError, formatFieldError } from "../admission/field-errors.js";
import { FieldPath } from "../base/field-path.js";
import { crdRuleValidator } from "../cel/crd-validator.js";
import type { JsonSchema } from "../schema/schema-source.js";
import { type Decoded, decodeCustomResource } from "./decode.js";
import { embeddedResourceErrors } from "./embedded-object-meta.js";
import { listSetAndMapErrors } from "./list-type.js";
import {
  finalizerWarnings,
  type ObjectMeta,
  pathSegmentNameErrors,
  validateObjectMeta,
  validateObjectMetaUpdate,
} from "./object-meta.js";
import { schemaValidator } from "./schema-validation.js";

/** A CRD's served version, as the API server's custom resource handler sees it. */
export interface CustomResourceDefinitionVersion {
  openAPIV3Schema: JsonSchema;
  kind: string;
  version: string;
  namespaced: boolean;
}

/** A warning the API server sends with its answer, at the field it is about when it names one. */
export interface ServerWarning {
  field: FieldPath;
  message: string;
  /** A CEL rule this offline evaluator could not run: a note, not the server's. */
  notEvaluated?: true;
}

/** Which of the strategy's checks found an error. */
export type StrategyStage = "metadata" | "schema" | "cel";

export interface StrategyVerdict {
  errors: { stage: StrategyStage; error: FieldError }[];
  warnings: ServerWarning[];
}

/**
 * The API server's handling of one kind of custom resource, from its CRD: how a request body is decoded
 * (`decode`, see ./decode.ts) and how the custom resource strategy validates the object on CREATE and
 * UPDATE (`validate`), in its order and with its messages: the metadata (ObjectMeta), the schema
 * (kube-openapi, ratcheted on UPDATE), embedded resources, list-type uniqueness (on UPDATE only when
 * the old object had none of those errors), then the CEL rules, which it skips with "some validation
 * rules were not checked" when an error above blocks them (an unsupported value, a required field,
 * something too long, too many, or of the wrong type); then its own name check and its warnings.
 */
export class CustomResourceStrategy {
  private readonly checkSchema: ReturnType<typeof schemaValidator>;
  private readonly checkRules: ReturnType<typeof crdRuleValidator>;

  private readonly hasRules: boolean;

  constructor(readonly definition: CustomResourceDefinitionVersion) {
    this.hasRules = JSON.stringify(definition.openAPIV3Schema).includes('"x-kubernetes-validations":[{');
    this.checkSchema = schemaValidator(definition.openAPIV3Schema);
    this.checkRules = crdRuleValidator(definition.openAPIV3Schema);
  }

  decode(body: Record<string, unknown>, strict: boolean): Decoded {
    const { openAPIV3Schema: schema, kind, version } = this.definition;
    return decodeCustomResource({ schema, kind, version }, body, strict);
  }

  validate(object: Record<string, unknown>, oldObject?: Record<string, unknown>): StrategyVerdict {
    const meta = metaOf(object);
    const metadata = FieldPath.root("metadata");
    const { namespaced, openAPIV3Schema: schema } = this.definition;
    const errors: StrategyVerdict["errors"] = [];
    const add = (stage: StrategyStage, found: FieldError[]) => {
      for (const error of found) errors.push({ stage, error });
    };
    if (oldObject !== undefined) {
      // An update's generic checks (path-segment names, then the update rules) come before the strategy.
      const pathSegment = { name: "pathSegment", requiresNamespace: namespaced } as const;
      add("metadata", validateObjectMeta(meta, metadata, pathSegment));
      add("metadata", validateObjectMetaUpdate(meta, metaOf(oldObject), metadata));
    }
    // What blocks the CEL rules is judged on the strategy's own errors, its metadata check among them.
    const strategyStart = errors.length;
    if (oldObject === undefined) {
      const subdomain = { name: "subdomain", requiresNamespace: namespaced } as const;
      add("metadata", validateObjectMeta(meta, metadata, subdomain));
    } else add("metadata", validateObjectMetaUpdate(meta, metaOf(oldObject), metadata));
    add("schema", this.checkSchema(object, oldObject));
    add("schema", embeddedResourceErrors(schema, object));
    const oldListErrors = oldObject === undefined ? [] : listSetAndMapErrors(schema, oldObject);
    if (oldListErrors.length === 0) add("schema", listSetAndMapErrors(schema, object).map(verbatim));
    const warnings: ServerWarning[] = [];
    // A CRD without rules has no CEL validator at all: nothing to skip, nothing said.
    if (!this.hasRules) {
    } else if (errors.slice(strategyStart).some(({ error }) => blocksRules(error)))
      add("cel", [rulesNotChecked]);
    else {
      const rules = this.checkRules(object, oldObject);
      add("cel", rules.errors);
      warnings.push(...rules.warnings);
    }
    if (oldObject === undefined && errors.length === 0)
      add("metadata", pathSegmentNameErrors(meta, metadata));
    if (errors.length === 0) {
      const added = finalizerWarnings(
        meta.finalizers ?? [],
        oldObject ? (metaOf(oldObject).finalizers ?? []) : [],
      );
      warnings.push(...added.map((message) => ({ field: metadata.child("finalizers"), message })));
    }
    return { errors: onceEach(errors), warnings };
  }
}

/**
 * Each error once: the API server's Invalid status lists a message that several checks produce (two
 * labels with the same bad value) a single time, as field.ErrorList's aggregate does.
 */
function onceEach(errors: StrategyVerdict["errors"]): StrategyVerdict["errors"] {
  const seen = new Set<string>();
  return errors.filter(({ error }) => {
    const text = formatFieldError(error);
    if (seen.has(text)) return false;
    seen.add(text);
    return true;
  });
}

/** The errors after which the API server does not run the CEL rules (apiextensions' hasBlockingErr). */
function blocksRules(error: FieldError): boolean {
  return ["notSupported", "required", "tooLong", "tooMany", "typeInvalid"].includes(error.type);
}

/** A field error with no field: Go prints the nil path as `<nil>`, and the cause carries that. */
export const nilField = FieldPath.root("<nil>");

const rulesNotChecked: FieldError = {
  type: "invalid",
  field: nilField,
  value: null,
  detail:
    "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
  verbatim: true,
};

const verbatim = (error: FieldError): FieldError => ({ ...error, verbatim: true });

function metaOf(object: Record<string, unknown>): ObjectMeta {
  const metadata = object.metadata;
  return metadata !== null && typeof metadata === "object" && !Array.isArray(metadata)
    ? (metadata as ObjectMeta)
    : {};
}
