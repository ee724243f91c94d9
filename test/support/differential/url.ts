import { goUrlParseError } from "../../../src/go/net-url/parse.js";
import type { GoOracle } from "../go-oracle.js";
import type { DifferentialRun, Random } from "./random.js";

/**
 * URLs as users write a git chart's repo (spec.helm.chart.git.repo), and their near misses: https,
 * ssh and the scp form, ports, IPv6 hosts and zones, userinfo, escapes good and bad, control and
 * non-ASCII characters, relative and opaque forms.
 */
const schemes = [
  "https://",
  "http://",
  "ssh://",
  "git://",
  "file://",
  "git+ssh://",
  "",
  "",
  "1http://",
  ":",
  "HTTPS://",
  "a:",
  "s3:",
];
const users = ["", "", "", "git@", "u:p@", "us er@", "u%zz@", "@", "u@v@", "tok%40en@", "a:b:c@", "é@"];
const hosts = [
  "github.com",
  "gitlab.example.com",
  "host",
  "[::1]",
  "[fe80::1%25en0]",
  "[fe80::1%en0]",
  "[::1",
  "host:80",
  "host:port",
  "host:",
  "host:8080:90",
  "é.com",
  "ho{st",
  "ho%41st",
  "ho%c3%a9st",
  "%zz",
  "",
  "ho st",
  "h_o",
  "1.2.3.4",
  "[::1]:x",
  "[::1]80",
  "[1.2.3.4]",
  "[::ffff:1.2.3.4]",
  "[fe80:::1]",
  "[1:2:3:4:5:6:7:8:9]",
  "[12345::1]",
  "[::1%25]",
  "[::1%25%41]",
  "[::1%25%20x]",
  "[::1%25%0A]",
  "[::1%]",
  "[1::2::3]",
  "[::1.2.3]",
  "[::01.2.3.4]",
  "[g::1]",
  "[%c3%a9::1]",
  "[::1]:443",
  "a[b]",
];
const paths = [
  "/org/repo.git",
  ":org/repo.git",
  "org/repo",
  "/%zz",
  "/a%2Fb",
  "/a b",
  "",
  "/",
  "//x",
  ":/abs",
  "/é",
  "/x:y",
  "/%",
  "/%4",
  "~user/repo",
];
const queries = ["", "", "", "?a=1", "?", "?%zz", "?a=%zz", "?#"];
const fragments = ["", "", "", "#x", "#%zz", "#", "#a b", "#%41"];
const noise = ["", "", "", "", "\t", "\u0001", "\u007f", " ", "%", "[", "]", "@", ":", "#", "?", "*", "日"];

export function generateUrl(random: Random): string {
  const kind = random.int(0, 9);
  if (kind === 0) {
    // The scp form and its neighbours: user@host:path.
    return `${random.pick(users) || "git@"}${random.pick(hosts)}${random.pick([":", ":/", "/"])}${random.pick(paths)}`;
  }
  if (kind === 1) {
    // Character soup from the pieces' alphabet.
    return random.join([..."ab:/@%2F[]?#.-_~ \t{}é", "%zz", "%41", "//", "::"], 1, 14);
  }
  const url = `${random.pick(schemes)}${random.pick(users)}${random.pick(hosts)}${random.pick(paths)}${random.pick(queries)}${random.pick(fragments)}`;
  if (!random.chance(0.2)) return url;
  const at = random.int(0, url.length);
  return `${url.slice(0, at)}${random.pick(noise)}${url.slice(at)}`;
}

/** url.Parse's verdict (its error text, "" when it parses) from Go and from src/go/net-url. */
export async function urlDifferential(oracle: GoOracle, urls: readonly string[]): Promise<DifferentialRun> {
  const answers = await oracle.askAll(
    "url",
    urls.map((raw) => ({ raw })),
  );
  const run: DifferentialRun = { family: "url.Parse", cases: urls.length, disagreements: [] };
  urls.forEach((raw, i) => {
    const answer = answers[i] as (typeof answers)[number];
    const ts = goUrlParseError(raw) ?? "";
    // Go 1.24's parseHost slices past a `]` before the last `[` and panics: the port says so.
    if ("panic" in answer && ts.endsWith("net/url panics: slice bounds out of range")) return;
    const go = "panic" in answer || "timeout" in answer ? answer : (answer.error ?? "");
    if (go !== ts) run.disagreements.push({ input: raw, go, ts });
  });
  return run;
}
