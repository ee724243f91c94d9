/** One JSON object per line on stdout: what log collectors in a cluster expect. */
export type Logger = (fields: Record<string, unknown>) => void;

/**
 * A JSON-lines logger whose lines go out in batches: every line logged in one turn of the event loop
 * in one write (on a pipe, each write is a system call made while the request waits). What is still
 * pending when the process exits is written then, synchronously.
 */
export function batchedJsonLogger(write: (text: string) => void): Logger {
  let pending: string[] = [];
  let scheduled = false;
  let exitHooked = false;
  const flush = () => {
    scheduled = false;
    if (pending.length === 0) return;
    const text = pending.join("");
    pending = [];
    write(text);
  };
  return (fields) => {
    pending.push(`${JSON.stringify({ time: new Date().toISOString(), ...fields })}\n`);
    if (scheduled) return;
    if (!exitHooked) {
      process.once("exit", flush);
      exitHooked = true;
    }
    scheduled = true;
    setImmediate(flush);
  };
}

export const jsonLogger: Logger = batchedJsonLogger((text) => process.stdout.write(text));

export const silentLogger: Logger = () => {};
