/**
 * The two ways a manifest's YAML is read on its way to the API server: `kubectl apply -f` reads YAML
 * 1.1 (sigs.k8s.io/yaml over goyaml.v2: `yes`, `no`, `on`, `off`, `y`, `n` are booleans, `017` is
 * octal 15, `1_000` is 1000), GitOps tools (kustomize and Flux through kyaml and goyaml.v3, and
 * `kubectl -k`) read YAML 1.2 (those are strings, except that goyaml.v3 reads integers with Go's
 * base-0 ParseInt too). `validate --yaml kubectl|gitops` picks one; either way every scalar the two
 * read differently is named, so the user learns of it whichever tool applies the file.
 *
 * The readings come from src/go/yaml/dialects.ts, which models both Go libraries (`sigs` and
 * `yaml.v3`). They use a parser a hundred times slower than js-yaml, so they run only for a document
 * with a plain scalar the readings may disagree on (a cheap scan); any other document reads the same
 * in both, and js-yaml's value stands.
 */

import { hasLongDigitRun } from "../base/exact-json.js";
import { FieldPath } from "../base/field-path.js";
import { parseYaml } from "../go/yaml/dialects.js";
import {
  alt,
  chars,
  is,
  LinearScan,
  lineAfter,
  lineBefore,
  not,
  optional,
  type Pattern,
  plus,
  range,
  repeat,
  type ScanWork,
  seq,
  star,
  union,
  word,
} from "../regex/linear-scan.js";

export type YamlReader = "gitops" | "kubectl";
export const yamlReaders: readonly YamlReader[] = ["gitops", "kubectl"];

/** A scalar (or map key) the two readings read differently: where, and what each makes of it. */
export interface ReadingDifference {
  /** The path of the value (of its map, for a key). */
  field: FieldPath;
  message: string;
}

/**
 * Plain scalars sigs.k8s.io/yaml (YAML 1.1), kyaml (yaml.v3) and js-yaml may read differently: boolean
 * words, numbers with a leading 0, a base prefix, a sign or an underscore, sexagesimal numbers, dates
 * (kustomize writes `2025-01-01` as `2025-01-01T00:00:00Z`), `=` and merge keys, `.inf`/`.nan`, as a
 * whole value, a list item, a flow item or a map key; any map key that is not a plain word (Go turns
 * number, null and boolean keys into text its own way); a `-` alone in a flow collection; any explicit
 * `!!` tag. Checked against the Go libraries by test/go/yaml/yaml-differential.e2e.test.ts.
 */
const mayDiffer = new LinearScan(mayDifferPattern());

/**
 * The scan, as a regex (multiline, ignoring case) it reads:
 *
 *     (?:^|[:\-[{,])[ \t]*(?:[yn]|yes|no|on|off|=|<<|[-+]?0[0-9_box][-+]?[0-9a-f_]*
 *       |[-+.0-9][0-9a-z_.+-]*_[0-9a-z_.+-]*|[-+]?[0-9]+:[0-9:.]*|[-+]?\.(?:inf|nan)
 *       |[0-9]{4}-[0-9]{1,2}-[0-9][^,\]}#\n]*)[ \t]*(?=$|[,\]}#]|:(?:[ \t]|$))
 *     |(?:^|[-[{,])[ \t]*(?:(?:-(?![ \t])|[+.0-9~])[^:\n]*|null|true|false|yes|no|on|off)?[ \t]*:(?:[ \t]|$)
 *     |[[,][ \t]*-[ \t]*[,\]}]
 *     |!!
 *
 * Run as such by JavaScript's backtracking engine it took 13 s on a line of 60,000 blanks (and was
 * quadratic on lines of `-1` or `,1` too); as a LinearScan it reads each character once. The second
 * line's map key: a key starting like a number, a null or boolean word, or an empty (null) key; a `-`
 * before a blank is a list item's indicator, not a key's sign (`- name:` is an ordinary key in a list
 * item, matched from the `-`).
 */
function mayDifferPattern(): Pattern {
  const blanks = star(is(chars(" \t")));
  const digit = range("0", "9");
  const digits = (min: number, max: number) => repeat(is(digit), min, max);
  const words = (...list: string[]) => alt(...list.map((w) => word(w, true)));
  const sign = optional(is(chars("-+")));
  const numberish = union(digit, range("a", "z"), range("A", "Z"), chars("_.+-"));
  const scalar = alt(
    is(chars("yn", true)),
    words("yes", "no", "on", "off", "=", "<<"),
    seq(
      sign,
      word("0"),
      is(union(digit, chars("_box", true))),
      sign,
      star(is(union(digit, chars("abcdef_", true)))),
    ),
    seq(is(union(chars("-+."), digit)), star(is(numberish)), word("_"), star(is(numberish))),
    seq(sign, plus(is(digit)), word(":"), star(is(union(digit, chars(":."))))),
    seq(sign, word("."), words("inf", "nan")),
    seq(digits(4, 4), word("-"), digits(1, 2), word("-"), is(digit), star(is(not(chars(",]}#\n"))))),
  );
  const keyEnd = seq(word(":"), is(union(chars(" \t"), lineAfter)));
  const notColon = not(chars(":\n"));
  const key = alt(
    // `-(?![ \t])[^:\n]*[ \t]*:` without the look-ahead: right before the colon, or on to a non-blank.
    seq(word("-"), optional(seq(is(not(chars(": \t\n"))), star(is(notColon)), blanks))),
    seq(is(union(chars("+.~"), digit)), star(is(notColon)), blanks),
    seq(words("null", "true", "false", "yes", "no", "on", "off"), blanks),
    seq(),
  );
  return alt(
    seq(
      is(union(lineBefore, chars(":-[{,"))),
      blanks,
      scalar,
      blanks,
      alt(is(union(lineAfter, chars(",]}#"))), keyEnd),
    ),
    seq(is(union(lineBefore, chars("-[{,"))), blanks, key, keyEnd),
    seq(is(chars("[,")), blanks, word("-"), blanks, is(chars(",]}"))),
    word("!!"),
  );
}

export interface Readings {
  /** The document as the chosen reader reads it; undefined when the cheap scan found nothing to differ. */
  value?: unknown;
  differences: ReadingDifference[];
  /** Why the chosen reader cannot read the document (the other may). */
  problem?: string;
}

/**
 * Whether the cheap scan finds anything in the text the readings may read differently; if not,
 * js-yaml's value stands for both (test/manifests/yaml-fast-path.test.ts holds it to the readings).
 */
export function mayReadDifferently(text: string, work?: ScanWork): boolean {
  return mayDiffer.test(text, work);
}

/**
 * A number js-yaml would not read as the API server comes to: a run of 16 digits (beyond 2^53-1 a
 * double is not exact), or a whole scalar with an exponent (`9.2e18` reaches the server as an int64;
 * `sha256:1e3f…` is no number). The readings read such a document: their integers are exact. Cheap
 * checks first (1 ms for 3,000 Modules, 2 MB; the whole-scalar pattern alone took 6.5); the pattern is
 * linear: each quantifier is followed by a class it does not overlap.
 */
const mayHoldExponent = /[eE][-+]?\d/;
const exponentNumber = /(?:^|:[ \t]|-[ \t]|[[{,])[ \t]*[-+]?[\d.]+[eE][-+]?\d+[ \t]*(?:$|[,\]}#])/m;
const longNumber = (text: string): boolean =>
  hasLongDigitRun(text) || (mayHoldExponent.test(text) && exponentNumber.test(text));

/** Both readings of one YAML document, when they may differ (or it holds a long number). */
export function readDocument(text: string, reader: YamlReader): Readings {
  if (!mayReadDifferently(text) && !longNumber(text)) return { differences: [] };
  const kubectl = parseYaml(text, "sigs", undefined, "json");
  const gitops = parseYaml(text, "kyaml", undefined, "json");
  const chosen = reader === "kubectl" ? kubectl : gitops;
  if (!("value" in chosen)) {
    // The other reader's problem stays with it: js-yaml's value is the GitOps reading's fallback.
    return reader === "kubectl" ? { differences: [], problem: chosen.problem } : { differences: [] };
  }
  const differences: ReadingDifference[] = [];
  if ("value" in kubectl && "value" in gitops)
    compare(gitops.value, kubectl.value, FieldPath.empty, differences);
  return { value: plain(chosen.value), differences };
}

const describe = (v: unknown): string =>
  typeof v === "string" ? JSON.stringify(v) : v === null ? "null" : String(v);

const gitopsName = "YAML 1.2 (kustomize, Flux, kubectl -k)";
const kubectlName = "YAML 1.1 (kubectl apply -f)";

function compare(gitops: unknown, kubectl: unknown, field: FieldPath, out: ReadingDifference[]): void {
  const isMap = (v: unknown) => v !== null && typeof v === "object" && !Array.isArray(v);
  if (isMap(gitops) && isMap(kubectl)) {
    const a = gitops as Record<string, unknown>;
    const b = kubectl as Record<string, unknown>;
    const onlyA = Object.keys(a).filter((k) => !Object.hasOwn(b, k));
    const onlyB = Object.keys(b).filter((k) => !Object.hasOwn(a, k));
    if (onlyA.length > 0 || onlyB.length > 0) {
      out.push({
        field,
        message: `map keys ${onlyA.map(describe).join(", ")} under ${gitopsName} are ${onlyB.map(describe).join(", ") || "merged"} under ${kubectlName}: quote them`,
      });
    }
    for (const key of Object.keys(a))
      if (Object.hasOwn(b, key)) compare(a[key], b[key], field.child(key), out);
    return;
  }
  if (Array.isArray(gitops) && Array.isArray(kubectl)) {
    gitops.forEach((item, i) => {
      if (i < kubectl.length) compare(item, kubectl[i], field.index(i), out);
    });
    return;
  }
  if (Object.is(gitops, kubectl)) return;
  out.push({
    field,
    message: `${describe(gitops)} under ${gitopsName}, ${describe(kubectl)} under ${kubectlName}: quote it to mean one thing`,
  });
}

/** The readings' maps have no prototype; manifests are plain objects like js-yaml's. */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value))
      Object.defineProperty(out, k, {
        value: plain(v),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return out;
  }
  return value;
}
