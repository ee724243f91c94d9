import { byRule, type FieldErrorList, fieldError } from "../../admission/field-errors.js";
import { errorRules, type PolicyValidation } from "../../admission/rule-catalogue.js";
import { FieldPath } from "../../base/field-path.js";
import { celMessage, celString, isUpdate } from "../../cel/policy-cel.js";

// apimachinery's DNS-1123 subdomain (an API group) and DNS-1035 label (an API version such as v1alpha1).
const dns1123Subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const dns1035Label = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

// The native policy's CEL: spec.data's apiVersion as the webhook reads it. The API server refuses
// spec.data without it before any policy runs (an embedded resource), so only its form is left.
const dataValue = (key: string) => `object.spec.data.${key}`;
const dns1035 = (v: string) => `${v}.size() <= 63 && ${v}.matches(${celString(dns1035Label.source)})`;

function dataField(key: string, ok: (v: string) => string, detail: string): PolicyValidation {
  const v = dataValue(key);
  const presentHere = `has(object.spec) && has(object.spec.data) && has(${v})`;
  return {
    expression: `!(${presentHere}) || (type(${v}) == string && ${ok(`string(${v})`)}) || (${isUpdate} && has(oldObject.spec) && has(oldObject.spec.data) && has(oldObject.spec.data.${key}) && oldObject.spec.data.${key} == ${v})`,
    messageExpression: `'spec.data.${key}: ' + (type(${v}) != string ? 'Invalid value: ' + ${celMessage(apiVersionMessages.notString)} : string(${v}) == '' ? 'Required value' : 'Invalid value: "' + string(${v}) + '": ' + ${celMessage(detail)})`,
  };
}

/** moduletemplate.data-api-version's wording, for its check and its policy alike. */
const apiVersionMessages = {
  notString: "must be of type string",
  notGroupVersion:
    'must be group/version (e.g. "operator.kyma-project.io/v1alpha1") or a core version such as "v1"',
} as const;

// The API server accepts a CRD kind whose lower-cased form is a DNS-1035 label.
const kindName = /^[A-Za-z]([-A-Za-z0-9]*[A-Za-z0-9])?$/;

/** The embedded `spec.data`, which lifecycle-manager creates in the runtime cluster. */
export const dataRules = errorRules({
  "moduletemplate.data-api-version": {
    summary: "spec.data without an apiVersion, or one that is not a GroupVersion",
    realSystem:
      "the API server refuses a missing apiVersion; no API server serves an invalid group or version",
    stricter:
      "a group that is not a DNS subdomain or a version that is not a DNS-1035 label: the create would fail",
    upstream: "kubernetes apiextensions-apiserver pkg/apiserver/schema/objectmeta/validation.go",
    messages: apiVersionMessages,
    native: {
      by: "policy",
      policy: {
        validations: [
          dataField(
            "apiVersion",
            (v) =>
              `${v} != '' && (${v}.split('/').size() == 1 ? (${dns1035(v)}) : (${v}.split('/').size() == 2 && ${v}.split('/')[0] != '' && ${v}.split('/')[0].size() <= 253 && ${v}.split('/')[0].matches(${celString(dns1123Subdomain.source)}) && ${dns1035(`${v}.split('/')[1]`)}))`,
            apiVersionMessages.notGroupVersion,
          ),
        ],
      },
    },
  },
  "moduletemplate.data-kind": {
    summary: "spec.data without a kind, or with an invalid kind name",
    realSystem: "the API server refuses a missing kind; the create of an invalid kind fails",
    stricter: "an invalid kind name: no API server serves it",
    upstream: "kubernetes apiextensions-apiserver pkg/apiserver/schema/objectmeta/validation.go",
    // The API server checks an embedded resource's kind itself: present, a mixed-case DNS-1035 label.
    native: {
      by: "schema",
      why: "the API server validates spec.data's kind itself (x-kubernetes-embedded-resource): present, a DNS-1035 label in any case",
    },
  },
});

const dataPath = FieldPath.root("spec").child("data");

/**
 * spec.data is the resource the lifecycle manager creates: the API server wants an apiVersion that is a
 * GroupVersion (`group/version`, or `v1` for the core group) and a kind. Beyond that we deny a group or
 * version that no API server can serve (not a DNS subdomain / DNS-1035 label) and an invalid kind name:
 * the create would certainly fail at reconcile.
 */
export function validateData(data: Record<string, unknown>): FieldErrorList {
  return [
    ...byRule("moduletemplate.data-api-version", apiVersionErrors(data.apiVersion)),
    ...byRule("moduletemplate.data-kind", kindErrors(data.kind)),
  ];
}

function apiVersionErrors(apiVersion: unknown): FieldErrorList {
  const path = dataPath.child("apiVersion");
  if (apiVersion === undefined || apiVersion === "") {
    return [fieldError.required(path, "the group/version of the resource to create")];
  }
  if (typeof apiVersion !== "string")
    return [fieldError.invalid(path, apiVersion, apiVersionMessages.notString)];
  const parts = apiVersion.split("/");
  // schema.ParseGroupVersion: "v1" is the core group's version, "group/version" any other.
  const [group = "", version = ""] = parts.length === 1 ? ["", apiVersion] : parts;
  const valid =
    parts.length <= 2 &&
    (group === "" ? parts.length === 1 : group.length <= 253 && dns1123Subdomain.test(group)) &&
    version.length <= 63 &&
    dns1035Label.test(version);
  return valid ? [] : [fieldError.invalid(path, apiVersion, apiVersionMessages.notGroupVersion)];
}

function kindErrors(kind: unknown): FieldErrorList {
  const path = dataPath.child("kind");
  if (kind === undefined || kind === "")
    return [fieldError.required(path, "the kind of the resource to create")];
  if (typeof kind !== "string") return [fieldError.invalid(path, kind, "must be of type string")];
  if (kind.length <= 63 && kindName.test(kind)) return [];
  return [
    fieldError.invalid(
      path,
      kind,
      "must be a valid kind name: at most 63 letters, digits or '-', starting with a letter and ending with a letter or digit (e.g. 'Keda')",
    ),
  ];
}
