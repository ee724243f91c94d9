import type { Finding } from "../base/finding.js";

/**
 * One test case of a JUnit report: an object `validate` read, or a module `lint-modules` checked.
 * Errors fail it, warnings are its output; a case skipped says why.
 */
export interface JunitCase {
  /** The suite it belongs to: its file (validate) or its modules dir (lint-modules). */
  suite: string;
  name: string;
  findings: Finding[];
  skipped?: string;
  seconds?: number;
}

/**
 * The Ant/Jenkins JUnit XML format (what Jenkins' junit step, GitLab's `artifacts:reports:junit` and the
 * GitHub test-report actions read): `<testsuites>` of `<testsuite>`s, one per suite in order of first
 * appearance, each case with at most one `<failure>` (Ant's schema allows one: a denied object's errors
 * are its lines, the first its message), or one `<error>` when an input could not be read, or
 * `<skipped>`; warnings in the case's `<system-out>`. test/fixtures/junit.xsd is the format, checked.
 */
export function formatJunit(name: string, cases: JunitCase[]): string {
  const suites = new Map<string, JunitCase[]>();
  for (const junitCase of cases) {
    const list = suites.get(junitCase.suite) ?? [];
    list.push(junitCase);
    suites.set(junitCase.suite, list);
  }
  const totals = counts(cases);
  const lines = [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="${attribute(name)}"${countAttributes(totals)}>`,
  ];
  for (const [suite, members] of suites) {
    lines.push(`  <testsuite name="${attribute(suite)}"${countAttributes(counts(members))}>`);
    for (const member of members) lines.push(...testcase(member));
    lines.push("  </testsuite>");
  }
  lines.push("</testsuites>");
  return `${lines.join("\n")}\n`;
}

type Outcome = "passed" | "failure" | "error" | "skipped";

function outcomeOf(junitCase: JunitCase): Outcome {
  if (junitCase.skipped !== undefined) return "skipped";
  const errors = junitCase.findings.filter((finding) => finding.severity === "error");
  if (errors.some((finding) => finding.rule === "input/Unreadable")) return "error";
  return errors.length > 0 ? "failure" : "passed";
}

interface Counts {
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
  seconds: number;
}

function counts(cases: JunitCase[]): Counts {
  const outcomes = cases.map(outcomeOf);
  const count = (outcome: Outcome) => outcomes.filter((o) => o === outcome).length;
  return {
    tests: cases.length,
    failures: count("failure"),
    errors: count("error"),
    skipped: count("skipped"),
    seconds: cases.reduce((sum, c) => sum + (c.seconds ?? 0), 0),
  };
}

function countAttributes(c: Counts): string {
  return ` tests="${c.tests}" failures="${c.failures}" errors="${c.errors}" skipped="${c.skipped}" time="${time(c.seconds)}"`;
}

function testcase(junitCase: JunitCase): string[] {
  const head = `    <testcase name="${attribute(junitCase.name)}" classname="${attribute(junitCase.suite)}" time="${time(junitCase.seconds ?? 0)}"`;
  const errors = junitCase.findings.filter((finding) => finding.severity === "error");
  const warnings = junitCase.findings.filter((finding) => finding.severity === "warning");
  const body: string[] = [];
  const outcome = outcomeOf(junitCase);
  if (outcome === "skipped") body.push(`      <skipped message="${attribute(junitCase.skipped ?? "")}"/>`);
  if (outcome === "failure" || outcome === "error") {
    const [first] = errors;
    const message =
      errors.length === 1 ? (first?.message ?? "") : `${errors.length} errors: ${first?.message}`;
    const element = outcome === "error" ? "error" : "failure";
    body.push(
      `      <${element} message="${attribute(message)}" type="${attribute(first?.rule ?? "")}">${text(errors.map(line).join("\n"))}</${element}>`,
    );
  }
  if (warnings.length > 0) body.push(`      <system-out>${text(warnings.map(line).join("\n"))}</system-out>`);
  return body.length === 0 ? [`${head}/>`] : [`${head}>`, ...body, "    </testcase>"];
}

/** A finding as validate's text output shows it, with its rule. */
function line(finding: Finding): string {
  const where = finding.line ? `${finding.file}:${finding.line}` : finding.file;
  const prefix = finding.severity === "warning" ? "warning: " : "";
  return `${where}: ${prefix}${finding.message} [${finding.rule}]`;
}

const time = (seconds: number) => seconds.toFixed(3);

/** Characters XML 1.0 cannot hold at all (controls, lone surrogates, U+FFFE/U+FFFF) become U+FFFD. */
function xmlChars(value: string): string {
  return value.replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "\uFFFD");
}

function text(value: string): string {
  return xmlChars(value).replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

/** An attribute value: quotes escaped, and line breaks as references (a parser would make them spaces). */
function attribute(value: string): string {
  return text(value)
    .replaceAll('"', "&quot;")
    .replaceAll("\n", "&#10;")
    .replaceAll("\r", "&#13;")
    .replaceAll("\t", "&#9;");
}
