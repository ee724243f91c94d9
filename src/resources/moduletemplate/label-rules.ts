import { byRule, type FieldErrorList, fieldError } from "../../admission/field-errors.js";
import { errorRules, formatMessage, warningRules } from "../../admission/rule-catalogue.js";
import { type FieldWarning, warningAt } from "../../admission/warning.js";
import { FieldPath } from "../../base/field-path.js";
import { celMessage, celString, isUpdate, quoted } from "../../cel/policy-cel.js";

/** The labels lifecycle-manager reads as booleans: true when `strings.ToLower(value) == "true"`. */
export const booleanLabels = ["operator.kyma-project.io/internal", "operator.kyma-project.io/beta"] as const;
/** Compared exactly with "true" by lifecycle-manager: "True" silently means false. */
export const clusterScopedAnnotation = "operator.kyma-project.io/is-cluster-scoped";
/** How lifecycle-manager lists a module's templates. */
export const moduleNameLabel = "operator.kyma-project.io/module-name";

// The native policies' CEL. Label values are ASCII (the API server refuses others), so lowerAscii is
// JavaScript's toLowerCase on them.
const annotated = (object: string) =>
  `(has(${object}.metadata.annotations) && ${celString(clusterScopedAnnotation)} in ${object}.metadata.annotations)`;
const annotation = (object: string) =>
  `${object}.metadata.annotations[${celString(clusterScopedAnnotation)}]`;

/** The rules' wording (apimachinery's for the annotation), for the checks below and the policies alike. */
const clusterScoped = { unsupported: 'supported values: "true", "false"' } as const;
const labelMessages = {
  notBoolean: "{value} is neither true nor false: read as false",
  moduleName:
    "module-name label {label} is not spec.moduleName {moduleName}: lifecycle-manager lists the template by the label",
} as const;

/** The annotations and labels lifecycle-manager reads from a template's metadata. */
export const labelRules = [
  ...errorRules({
    "moduletemplate.cluster-scoped": {
      summary: 'the is-cluster-scoped annotation neither "true" nor "false"',
      realSystem: 'compares it exactly with "true": "True" silently means namespaced',
      stricter: "a value other than true or false is a typo that changes the module's scope silently",
      upstream:
        "kyma-project/lifecycle-manager@c5b83f1 internal/service/kyma/status/modules/generator/generator.go:97",
      messages: clusterScoped,
      native: {
        by: "policy",
        policy: {
          judgesMetadata: true,
          validations: [
            {
              expression: `!${annotated("object")} || ${annotation("object")} in ['true', 'false'] || (${isUpdate} && ${annotated("oldObject")} && ${annotation("oldObject")} == ${annotation("object")})`,
              messageExpression: `'metadata.annotations[${clusterScopedAnnotation}]: Unsupported value: ' + ${quoted(annotation("object"))} + ': ' + ${celMessage(clusterScoped.unsupported)}`,
            },
          ],
        },
      },
    },
  }),
  ...warningRules({
    "moduletemplate.labels": {
      summary:
        "a beta/internal label neither true nor false, or a module-name label that is not spec.moduleName",
      realSystem:
        'reads beta/internal as strings.ToLower(v) == "true"; lists a module\'s templates by module-name',
      upstream:
        "kyma-project/lifecycle-manager@c5b83f1 api/v1beta2/moduletemplate_types.go:220-232 (strings.ToLower); internal/repository/moduletemplate/moduletemplate_repo.go:27-30 (listed by the module-name label)",
      messages: labelMessages,
      native: {
        by: "policy",
        policy: {
          validations: [
            ...booleanLabels.map((key) => ({
              expression: `!(has(object.metadata.labels) && ${celString(key)} in object.metadata.labels) || object.metadata.labels[${celString(key)}].lowerAscii() in ['true', 'false']`,
              messageExpression: `'metadata.labels[${key}]: ' + ${celMessage(labelMessages.notBoolean, { value: quoted(`object.metadata.labels[${celString(key)}]`) })}`,
            })),
            {
              expression: `!(has(object.metadata.labels) && ${celString(moduleNameLabel)} in object.metadata.labels) || object.metadata.labels[${celString(moduleNameLabel)}] == '' || !(has(object.spec) && has(object.spec.moduleName) && object.spec.moduleName != '') || object.metadata.labels[${celString(moduleNameLabel)}] == object.spec.moduleName`,
              messageExpression: `'metadata.labels[${moduleNameLabel}]: ' + ${celMessage(labelMessages.moduleName, { label: quoted(`object.metadata.labels[${celString(moduleNameLabel)}]`), moduleName: quoted("object.spec.moduleName") })}`,
            },
          ],
        },
      },
    },
  }),
];

const labelsPath = FieldPath.root("metadata").child("labels");
const annotationsPath = FieldPath.root("metadata").child("annotations");
const exactBooleans = ["true", "false"];

type Metadata = { labels?: Record<string, unknown>; annotations?: Record<string, unknown> } | undefined;

/**
 * The is-cluster-scoped annotation is "true" or "false", exactly (rule moduletemplate.cluster-scoped):
 * stricter than lifecycle-manager, which takes any other value for false, because "True" or "yes"
 * would silently declare a cluster-scoped module namespaced.
 */
export function validateClusterScopedAnnotation(metadata: Metadata): FieldErrorList {
  const annotations = metadata?.annotations;
  if (!annotations || !Object.hasOwn(annotations, clusterScopedAnnotation)) return [];
  const value = annotations[clusterScopedAnnotation];
  if (exactBooleans.includes(value as string)) return [];
  return byRule("moduletemplate.cluster-scoped", [
    fieldError.notSupported(annotationsPath.key(clusterScopedAnnotation), value, exactBooleans),
  ]);
}

/**
 * Warnings about labels: a beta/internal value that is neither true nor false in any case (read as
 * false), and a module-name label that differs from spec.moduleName (the template is listed under
 * the wrong module).
 */
export function labelWarnings(metadata: Metadata, moduleName: string | undefined): FieldWarning[] {
  const labels = metadata?.labels ?? {};
  const warnings = booleanLabels
    .filter((key) => Object.hasOwn(labels, key))
    .filter((key) => !exactBooleans.includes(labelText(labels[key]).toLowerCase()))
    .map((key) => {
      const field = labelsPath.key(key);
      return warningAt(
        field,
        `${field}: ${formatMessage(labelMessages.notBoolean, { value: JSON.stringify(labels[key]) })}`,
      );
    });
  const label = labels[moduleNameLabel];
  if (typeof label === "string" && label !== "" && moduleName && label !== moduleName) {
    warnings.push(
      warningAt(
        labelsPath.key(moduleNameLabel),
        formatMessage(labelMessages.moduleName, {
          label: JSON.stringify(label),
          moduleName: JSON.stringify(moduleName),
        }),
      ),
    );
  }
  return warnings;
}

/** A label's value as text; a value no label can hold (an object: a hand-made review) reads as none. */
const labelText = (value: unknown): string =>
  value !== null && typeof value === "object" ? "" : String(value);
