import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import ts from "typescript";
import { ruleCatalogue } from "../../src/resources/index.js";
import { projectConfig, projectRoot } from "../support/project-compiler-options.js";

/**
 * Rule ids are a type (src/admission/rule-catalogue.ts, `RuleId`): a file of the project that emits a
 * misspelt id must fail `tsc`. This compiles, with the project's own compiler options and every file of
 * src/, a few more rule files that exist only in memory, beside the Module's rules; each case asks the
 * checker about one of them alone (what a misspelt id does to the rest is not this test's question).
 */
const root = projectRoot;
const config = projectConfig();
const options = config.options;

/** A rule file emitting `errorId` (byRule) and `warningId` (ruleWarnings), with `RuleId` as a type to read. */
const probe = (errorId: string, warningId: string) => `
import { byRule } from "../../admission/field-errors.js";
import type { RuleId } from "../../admission/rule-catalogue.js";
import { ruleWarnings } from "../../admission/warning.js";

export const errors = byRule(${JSON.stringify(errorId)}, []);
export const warnings = ruleWarnings(${JSON.stringify(warningId)}, ["spec.custom: a warning"]);
export type Declared = RuleId;
`;

/** Rule files that exist only in memory, beside the Module's rules. */
const probes = new Map([
  [
    join(root, "src/resources/module/probe-declared.ts"),
    probe("module.custom-image", "module.template-warning"),
  ],
  [join(root, "src/resources/module/probe-error.ts"), probe("module.custom-imag", "module.template-warning")],
  [
    join(root, "src/resources/module/probe-warning.ts"),
    probe("module.custom-image", "module.template-warnings"),
  ],
]);

/** The program `tsc` checks (every file of src/, the project's options) with the probes added: one checker. */
function compile(): ts.Program {
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (name) => probes.has(name) || fileExists.call(host, name);
  host.readFile = (name) => probes.get(name) ?? readFile.call(host, name);
  host.getSourceFile = (name, language, ...rest) => {
    const text = probes.get(name);
    return text !== undefined
      ? ts.createSourceFile(name, text, language)
      : getSourceFile.call(host, name, language, ...rest);
  };
  return ts.createProgram({ rootNames: [...config.fileNames, ...probes.keys()], options, host });
}

const program = compile();

/** One probe's source file and its diagnostics, as text. */
function checked(name: string): { source: ts.SourceFile; diagnostics: string[] } {
  const source = program.getSourceFile(join(root, "src/resources/module", name));
  assert.ok(source, `${name} is not in the program`);
  const diagnostics = [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
  return {
    source,
    diagnostics: diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n")),
  };
}

describe("rule ids as a type", () => {
  it("compiles a rule file that emits declared ids", () => {
    assert.deepEqual(checked("probe-declared.ts").diagnostics, []);
  });

  it("fails tsc on a misspelt id at byRule, naming it", () => {
    const { diagnostics } = checked("probe-error.ts");
    assert.equal(diagnostics.length, 1, diagnostics.join("\n"));
    assert.match(diagnostics[0]!, /Argument of type '"module\.custom-imag"' is not assignable/);
  });

  it("fails tsc on a misspelt id at ruleWarnings, naming it", () => {
    const { diagnostics } = checked("probe-warning.ts");
    assert.equal(diagnostics.length, 1, diagnostics.join("\n"));
    assert.match(diagnostics[0]!, /Argument of type '"module\.template-warnings"' is not assignable/);
  });

  it("is exactly the ids of the rule catalogue: no kind's declarations left out, none stale", () => {
    const { source } = checked("probe-declared.ts");
    const checker = program.getTypeChecker();
    const alias = source.statements.find(ts.isTypeAliasDeclaration);
    assert.ok(alias, "no type alias in the probe");
    const type = checker.getTypeAtLocation(alias.name);
    // A string (an id computed, not written) would make every emit site accept anything.
    const members = type.isUnion() ? type.types : [type];
    const ids = members.map((member) =>
      member.isStringLiteral() ? member.value : checker.typeToString(member),
    );
    const declared = ruleCatalogue().flatMap((section) => section.rules.map((rule) => rule.id));
    assert.deepEqual([...ids].sort(), [...declared].sort());
  });
});
