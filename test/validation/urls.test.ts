import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compileRe2 } from "../../src/regex/re2.js";
import {
  absoluteHttpUrlProblem,
  absoluteHttpUrlProblemByParse,
  isPlainHttpUrl,
  surelyValidLink,
} from "../../src/validation/urls.js";
import { Random } from "../support/differential/random.js";

/**
 * The link rules' shortcut (the plainest http(s) URLs, one regex pass) against URL.canParse, which it
 * stands for: the same answer on links of that shape and on their near misses.
 */
describe("absolute http(s) links: the shortcut for plain ones", () => {
  const surely = compileRe2(surelyValidLink);
  if ("error" in surely) throw new Error(surely.error);
  const agrees = (link: string) => {
    assert.equal(absoluteHttpUrlProblem(link), absoluteHttpUrlProblemByParse(link), JSON.stringify(link));
    // The shortcut is the CEL policies' pattern, written once as RE2 and once as one JavaScript pass.
    assert.equal(isPlainHttpUrl(link), surely.test(link), JSON.stringify(link));
  };

  it("answers as URL.canParse on 30,000 links of the shortcut's shape and its edges", () => {
    const random = new Random(41);
    const schemes = [
      "https://",
      "http://",
      "HTTPS://",
      "hTtP://",
      "oci://",
      "ftp://",
      "https:/",
      "https:",
      "",
    ];
    // Labels: letters and digits, hyphens (punycode's xn--), numbers (an IPv4 address), hex, empty.
    const labels = [
      "example",
      "com",
      "a",
      "Z9",
      "a-b",
      "xn--bcher-kva",
      "1",
      "255",
      "999",
      "0x1f",
      "01",
      "",
      "-a",
      "a-",
      "é",
      "a_b",
    ];
    const ports = ["", "", "", ":443", ":8080", ":9999", ":10000", ":65536", ":", ":x"];
    const tails = [..."/?#%@:[]\\~-._!$&'()*+,;=aZ09 \t\u007f\u0001é日", "%41", "%zz", "//", "/.."];
    for (let i = 0; i < 30_000; i++) {
      const host = random.join(labels, 1, 5, random.pick([".", ".", ".", "-", ".."]));
      agrees(`${random.pick(schemes)}${host}${random.pick(ports)}${random.join(tails, 0, 8)}`);
    }
  });

  it("parses a link past ASCII the same way however often it is asked (Node 20's URL.canParse did not)", () => {
    // Node 20.20's URL.canParse answered true for the first ~4,000 calls and false after, once optimized.
    const answers = new Set<string | undefined>();
    for (let i = 0; i < 20_000; i++) answers.add(absoluteHttpUrlProblem("https://aé'_"));
    assert.deepEqual([...answers], [undefined]);
  });

  it("answers as URL.canParse on the links of the fuzz and the attacks", () => {
    for (const link of [
      "https://example.com/keda.svg",
      "https://github.com/kyma-project/keda-manager",
      "https://kyma-project.io/#/keda-manager/user/README",
      "ftp://example.com/manifests/1.yaml",
      "https://1.2.3.4/x",
      "https://1.2.3.999/x",
      "https://a.1/x",
      "https://1.a/x",
      "https://example.0x1f/",
      "https://xn--a.com/",
      "http://h:99999/",
    ]) {
      agrees(link);
    }
  });
});
