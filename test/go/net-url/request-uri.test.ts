import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { goRequestUriError, requestUriErrorByParse } from "../../../src/go/net-url/parse.js";
import { Random } from "../../support/differential/random.js";
import { generateUrl } from "../../support/differential/url.js";
import { urlCases } from "./cases.js";

/**
 * url.ParseRequestURI's shortcut (the plainest absolute URIs, one regex pass) against the walk it
 * stands for: the same answer, error text included, on URLs of that shape and on their near misses.
 */
describe("Go's url.ParseRequestURI: the shortcut for plain absolute URIs", () => {
  const agrees = (raw: string) =>
    assert.equal(goRequestUriError(raw), requestUriErrorByParse(raw), JSON.stringify(raw));

  it("answers as the walk on the case table and on 5,000 generated URLs", () => {
    for (const [url] of urlCases) agrees(url);
    const random = new Random(41);
    for (let i = 0; i < 5000; i++) agrees(generateUrl(random));
  });

  it("answers as the walk on 20,000 URLs of the shortcut's shape and its edges", () => {
    const random = new Random(14);
    const schemes = ["https", "HTTP", "ftp", "oci", "git+ssh", "a.b-c", "", "1a", "h_t", "é"];
    const hosts = ["example.com", "", "a-b.c_d~e", "h", "1.2.3.4", "[::1]", "h%41", "u@h", "h h", "é.com"];
    const ports = ["", "", ":443", ":", ":8x", ":1:2", "::"];
    // The characters where the shortcut's parts end, and those it leaves to the walk.
    const tail = [..."/?#%@:[]~-._!$&'()*+,;=aZ09 \t\u007f\u0001é日", "%41", "%zz", "//", "??"];
    for (let i = 0; i < 20_000; i++) {
      const separator = random.pick(["://", "://", "://", ":/", ":", "//", ":///"]);
      const raw = `${random.pick(schemes)}${separator}${random.pick(hosts)}${random.pick(ports)}${random.join(tail, 0, 12)}`;
      agrees(raw);
    }
  });

  it("takes the links of a ModuleTemplate as the walk does", () => {
    for (const link of [
      "ftp://example.com/manifests/1.yaml",
      "ftp://example.com/manifests/1.yaml?v=1",
      "https://example.com/keda.svg",
      "oci://europe-docker.pkg.dev/kyma-project/prod/keda:1.2.0",
      "http://",
      "https://h?",
      "https://h?x y",
      "https://h/a#b?c%zz",
      "https://h/a%zz?b",
    ]) {
      agrees(link);
    }
  });
});
