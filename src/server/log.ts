/** One JSON object per line on stdout: what log collectors in a cluster expect. */
export type Logger = (fields: Record<string, unknown>) => void;

export const jsonLogger: Logger = (fields) => {
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), ...fields })}\n`);
};

export const silentLogger: Logger = () => {};
