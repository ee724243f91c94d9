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

/**
 * Calls again what the API server answered 429 Too Many Requests, as client-go does (kubectl retries
 * them; @kubernetes/client-node does not): after its Retry-After seconds (1 when absent, at most 10), at
 * most `attempts` times in all. The API server answers 429 while a resource's storage is initializing
 * (just after its CRD is Established: "storage is (re)initializing") and under API priority and fairness.
 */
export async function retryTooManyRequests<T>(call: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (httpStatus(error) !== 429 || attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, retryAfterMs(error)));
    }
  }
}

function retryAfterMs(error: unknown): number {
  const headers = (error as { headers?: Record<string, unknown> } | undefined)?.headers ?? {};
  const seconds = Number(headers["retry-after"] ?? headers["Retry-After"]);
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, 10) * 1000 : 1000;
}
