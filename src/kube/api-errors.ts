/**
 * The HTTP status of a failed Kubernetes API call: client-node's generated APIs throw an ApiException
 * with `code`, its Watch fails with `statusCode`.
 */
export function httpStatus(error: unknown): number | undefined {
  const { code, statusCode } = (error ?? {}) as { code?: unknown; statusCode?: unknown };
  if (typeof code === "number") return code;
  return typeof statusCode === "number" ? statusCode : undefined;
}

/** The API server's own words for a failed call (its Status message), without client-node's dump of headers. */
export function apiErrorMessage(error: unknown): string {
  const body = (error as { body?: unknown } | undefined)?.body;
  const parsed = typeof body === "string" ? safeParse(body) : body;
  const message = (parsed as { message?: unknown } | undefined)?.message;
  if (typeof message === "string") return `${message} (HTTP ${httpStatus(error)})`;
  return error instanceof Error ? (error.message.split("\n")[0] ?? error.message) : String(error);
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
