import * as clientNode from "@kubernetes/client-node";
import { Certificate, Issuer } from "@kubernetes-models/cert-manager/cert-manager.io/v1";
import {
  MutatingWebhookConfiguration,
  ValidatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding,
  ValidatingWebhookConfiguration,
} from "kubernetes-models/admissionregistration.k8s.io/v1";
import { CustomResourceDefinition } from "kubernetes-models/apiextensions.k8s.io/v1";
import { Deployment } from "kubernetes-models/apps/v1";
import { CronJob } from "kubernetes-models/batch/v1";
import { NetworkPolicy } from "kubernetes-models/networking.k8s.io/v1";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import {
  ClusterRole,
  ClusterRoleBinding,
  Role,
  RoleBinding,
} from "kubernetes-models/rbac.authorization.k8s.io/v1";
import { Pod, Service, ServiceAccount } from "kubernetes-models/v1";

interface Model {
  validate(): void;
}

/**
 * Per apiVersion/kind: the kubernetes-models class (the kind's OpenAPI schema: types, required fields,
 * enums, formats) and the @kubernetes/client-node model name whose field list catches unknown fields,
 * which the OpenAPI schemas allow but the API server prunes or rejects (kubectl's strict validation).
 */
const kinds: Record<string, { model: new (data: never) => Model; fields?: string }> = {
  "apps/v1/Deployment": { model: Deployment, fields: "V1Deployment" },
  "v1/Service": { model: Service, fields: "V1Service" },
  "v1/Pod": { model: Pod, fields: "V1Pod" },
  "batch/v1/CronJob": { model: CronJob, fields: "V1CronJob" },
  "v1/ServiceAccount": { model: ServiceAccount, fields: "V1ServiceAccount" },
  "policy/v1/PodDisruptionBudget": { model: PodDisruptionBudget, fields: "V1PodDisruptionBudget" },
  "rbac.authorization.k8s.io/v1/Role": { model: Role, fields: "V1Role" },
  "rbac.authorization.k8s.io/v1/RoleBinding": { model: RoleBinding, fields: "V1RoleBinding" },
  "rbac.authorization.k8s.io/v1/ClusterRole": { model: ClusterRole, fields: "V1ClusterRole" },
  "rbac.authorization.k8s.io/v1/ClusterRoleBinding": {
    model: ClusterRoleBinding,
    fields: "V1ClusterRoleBinding",
  },
  "admissionregistration.k8s.io/v1/MutatingWebhookConfiguration": {
    model: MutatingWebhookConfiguration,
    fields: "V1MutatingWebhookConfiguration",
  },
  "admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration": {
    model: ValidatingWebhookConfiguration,
    fields: "V1ValidatingWebhookConfiguration",
  },
  "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy": {
    model: ValidatingAdmissionPolicy,
    fields: "V1ValidatingAdmissionPolicy",
  },
  "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding": {
    model: ValidatingAdmissionPolicyBinding,
    fields: "V1ValidatingAdmissionPolicyBinding",
  },
  "networking.k8s.io/v1/NetworkPolicy": { model: NetworkPolicy, fields: "V1NetworkPolicy" },
  "apiextensions.k8s.io/v1/CustomResourceDefinition": {
    model: CustomResourceDefinition,
    fields: "V1CustomResourceDefinition",
  },
  "cert-manager.io/v1/Certificate": { model: Certificate },
  "cert-manager.io/v1/Issuer": { model: Issuer },
};

/** Problems of one manifest against the schema of its kind; a kind not known here is a problem too. */
export function schemaProblems(manifest: { apiVersion?: string; kind?: string }): string[] {
  const key = `${manifest.apiVersion}/${manifest.kind}`;
  const kind = kinds[key];
  if (!kind) return [`no schema for ${key}`];
  const problems: string[] = [];
  try {
    new kind.model(manifest as never).validate();
  } catch (error) {
    const errors = (error as { errors?: { instancePath: string; message?: string }[] }).errors;
    if (!errors) throw error;
    problems.push(...errors.map((e) => `${e.instancePath || "/"}: ${e.message}`));
  }
  if (kind.fields) problems.push(...unknownFields(manifest, kind.fields, ""));
  return problems;
}

type FieldMap = { baseName: string; type: string }[];

function fieldMap(typeName: string): FieldMap | undefined {
  const model = (clientNode as unknown as Record<string, { attributeTypeMap?: FieldMap } | undefined>)[
    typeName
  ];
  return model?.attributeTypeMap;
}

/** Walks the object along the client-node model types; reports every field the type does not declare. */
function unknownFields(value: unknown, type: string, path: string): string[] {
  if (value === null || typeof value !== "object") return [];
  const array = /^Array<(.+)>$/.exec(type);
  if (array?.[1]) {
    const itemType = array[1];
    return Array.isArray(value)
      ? value.flatMap((item, i) => unknownFields(item, itemType, `${path}/${i}`))
      : [];
  }
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map?.[1]) {
    const valueType = map[1];
    return Object.entries(value).flatMap(([key, item]) => unknownFields(item, valueType, `${path}/${key}`));
  }
  const fields = fieldMap(type);
  if (!fields) return []; // a primitive, IntOrString, or a free-form object
  return Object.entries(value).flatMap(([key, item]) => {
    const field = fields.find((f) => f.baseName === key);
    if (!field) return [`${path}/${key}: unknown field (not in ${type})`];
    return unknownFields(item, field.type, `${path}/${key}`);
  });
}
