import { join } from "node:path";
import ts from "typescript";

/** The project's root, for tests that compile probe files beside its sources. */
export const projectRoot = new URL("../..", import.meta.url).pathname;

/** tsconfig.json's files and compiler options, without emitting: what `tsc` checks the sources with. */
export function projectConfig(): { fileNames: string[]; options: ts.CompilerOptions } {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(projectRoot, "tsconfig.json"),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
      },
    },
  );
  if (!config) throw new Error("tsconfig.json: not read");
  return { fileNames: config.fileNames, options: { ...config.options, noEmit: true } };
}
