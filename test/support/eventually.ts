import { setTimeout as sleep } from "node:timers/promises";

/**
 * Waits until `check` returns true, looking every 10 ms: for state that arrives asynchronously (a watch
 * event). The limit only turns a hang into a failure; it is generous because the machine is shared.
 */
export async function eventually(what: string, check: () => boolean | Promise<boolean>, limitMs = 20_000) {
  const deadline = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(10);
  }
}
