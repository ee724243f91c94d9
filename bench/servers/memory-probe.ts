/**
 * Loaded with `node --expose-gc --import` into `module-admission serve` (dist/cli/main.js) as the
 * benchmark starts it: answers the IPC message "memory" with the heap used after a forced garbage
 * collection and the resident set size, for the soak. It adds nothing to the review path.
 */
process.on("message", (message) => {
  if (message !== "memory") return;
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const { heapUsed, rss } = process.memoryUsage();
  process.send?.({ heapUsed: gc ? heapUsed : null, rss });
});
// The IPC channel must not keep the process alive once serve has shut down.
process.channel?.unref();
