/** One JSON object per line on stdout: what log collectors in a cluster expect. */
export type Logger = (fields: Record<string, unknown>) => void;

/** How long a line may wait for others before it is written, and how much may wait. */
export const logBatch = { delayMs: 10, maxBytes: 64 * 1024 };

/**
 * A JSON-lines logger whose lines go out in batches: every line logged within `delayMs` in one write
 * (on a pipe each write is a system call, and at a few hundred reviews per second a write per review
 * cost more CPU than the review's own rules), or at once when `maxBytes` are waiting. What is still
 * pending when the process exits is written then, synchronously.
 */
export function batchedJsonLogger(write: (text: string) => void, batch = logBatch): Logger {
  let pending: string[] = [];
  let pendingBytes = 0;
  let timer: NodeJS.Timeout | undefined;
  let exitHooked = false;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (pending.length === 0) return;
    const text = pending.join("");
    pending = [];
    pendingBytes = 0;
    write(text);
  };
  const time = millisecondStamp();
  return (fields) => {
    const rest = JSON.stringify(fields);
    // `{"time":...}` first, then the fields: no copy of the fields object for each line.
    const line = rest === "{}" ? `{"time":"${time()}"}\n` : `{"time":"${time()}",${rest.slice(1)}\n`;
    pending.push(line);
    pendingBytes += line.length;
    if (!exitHooked) {
      process.once("exit", flush);
      exitHooked = true;
    }
    if (pendingBytes >= batch.maxBytes) flush();
    // Unreferenced: a pending line never keeps the process alive; exit writes it.
    else timer ??= setTimeout(flush, batch.delayMs).unref();
  };
}

/** The current time in ISO 8601 with milliseconds, formatted once per millisecond. */
function millisecondStamp(): () => string {
  let formattedAt = Number.NaN;
  let formatted = "";
  return () => {
    const now = Date.now();
    if (now !== formattedAt) {
      formattedAt = now;
      formatted = new Date(now).toISOString();
    }
    return formatted;
  };
}

export const jsonLogger: Logger = batchedJsonLogger((text) => process.stdout.write(text));

export const silentLogger: Logger = () => {};
