import { CustomObjectsApi, type KubeConfig } from "@kubernetes/client-node";

export interface CustomResource {
  group: string;
  version: string;
  plural: string;
}

interface ObjectPage {
  items?: unknown[];
  metadata?: { continue?: string };
}

/**
 * The objects of one custom resource, page by page, as `kubectl get --chunk-size` reads them: the list
 * API with `limit` and `continue`, so neither the API server nor this process holds more than a page.
 * `namespace` undefined lists every namespace.
 */
export async function* listPages(
  kubeConfig: KubeConfig,
  resource: CustomResource,
  namespace: string | undefined,
  limit: number,
): AsyncGenerator<unknown[]> {
  const api = kubeConfig.makeApiClient(CustomObjectsApi);
  let token: string | undefined;
  do {
    const request = { ...resource, limit, ...(token ? { _continue: token } : {}) };
    const page = (
      namespace === undefined
        ? await api.listClusterCustomObject(request)
        : await api.listNamespacedCustomObject({ ...request, namespace })
    ) as ObjectPage;
    yield page.items ?? [];
    token = page.metadata?.continue || undefined;
  } while (token);
}
