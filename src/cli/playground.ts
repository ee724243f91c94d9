import { createServer } from "node:http";
import { Command, Option } from "commander";
import { type Outcome, UsageError } from "./command.js";
import { playgroundDir, playgroundHandler } from "./playground-files.js";

/** `module-admission playground`: serves the built page on this machine until stopped. */
export function playgroundDefinition(outcome: Outcome): Command {
  return new Command("playground")
    .summary("serve the playground page locally: paste objects, see the cluster's verdict in the browser")
    .description(
      "Serve the playground (dist/playground/, built by `npm run build:playground`) on this machine: a " +
        "static page that judges pasted objects in the browser with validate's engine; nothing is sent back.",
    )
    .addOption(new Option("--port <port>", "the port (0: one the system picks)").default("8090"))
    .option("--address <address>", "the address to listen on", "127.0.0.1")
    .action(async (options: { port: string; address: string }) => {
      const port = Number(options.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535)
        throw new UsageError(`--port ${options.port}: not a port number`);
      const handler = playgroundHandler();
      if (!handler)
        throw new UsageError(
          `the playground is not built (no ${playgroundDir}index.html): run npm run build:playground`,
        );
      const server = createServer(handler);
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, options.address, resolve);
      });
      const address = server.address();
      const bound = typeof address === "object" && address ? address.port : port;
      const host = options.address.includes(":") ? `[${options.address}]` : options.address;
      process.stdout.write(`playground: http://${host}:${bound}/\n`);
      outcome.status = 0;
      await new Promise<void>((resolve) => {
        for (const signal of ["SIGINT", "SIGTERM"] as const)
          process.once(signal, () => server.close(() => resolve()));
      });
    });
}
