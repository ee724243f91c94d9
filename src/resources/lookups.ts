/**
 * Whether a Workspace exists, asked by the Module kind (spec.workspace) and the Workspace kind
 * (spec.from): the webhook answers it from one informer cache, never a request per call.
 */
export type WorkspaceLookup = (namespace: string, name: string) => boolean;
