import { AdmissionregistrationV1Api, type KubeConfig } from "@kubernetes/client-node";
import { httpStatus } from "./api-errors.js";
import { splitPemBundle } from "./pem.js";

interface WebhookConfiguration {
  webhooks?: { clientConfig?: { caBundle?: string } }[];
}

/**
 * Makes every webhook of the Mutating- and ValidatingWebhookConfiguration named `name` trust each CA of
 * `caBundle`. A configuration that already trusts them all is left alone, so replicas agreeing on the
 * Secret do not write, and a replica holding an older bundle never removes a newer CA. Returns the kinds
 * patched and those not found (not installed yet: the next refresh tries again).
 */
export async function injectCaBundle(
  kubeConfig: KubeConfig,
  name: string,
  caBundle: string,
): Promise<{ patched: string[]; missing: string[] }> {
  const api = kubeConfig.makeApiClient(AdmissionregistrationV1Api);
  const kinds = [
    {
      kind: "MutatingWebhookConfiguration",
      read: () => api.readMutatingWebhookConfiguration({ name }),
      patch: (body: object[]) => api.patchMutatingWebhookConfiguration({ name, body }),
    },
    {
      kind: "ValidatingWebhookConfiguration",
      read: () => api.readValidatingWebhookConfiguration({ name }),
      patch: (body: object[]) => api.patchValidatingWebhookConfiguration({ name, body }),
    },
  ];
  const wanted = splitPemBundle(caBundle);
  const encoded = Buffer.from(caBundle).toString("base64");
  const result = { patched: [] as string[], missing: [] as string[] };
  for (const { kind, read, patch } of kinds) {
    let configuration: WebhookConfiguration;
    try {
      configuration = (await read()) as WebhookConfiguration;
    } catch (error) {
      if (httpStatus(error) !== 404) throw error;
      result.missing.push(kind);
      continue;
    }
    const operations = (configuration.webhooks ?? []).flatMap((webhook, index) => {
      const trusted = splitPemBundle(
        Buffer.from(webhook.clientConfig?.caBundle ?? "", "base64").toString("utf8"),
      );
      if (wanted.every((ca) => trusted.includes(ca))) return [];
      return [{ op: "add", path: `/webhooks/${index}/clientConfig/caBundle`, value: encoded }];
    });
    if (operations.length === 0) continue;
    await patch(operations);
    result.patched.push(kind);
  }
  return result;
}
