import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { isIP } from "node:net";
import path from "node:path";
import { describe, it } from "node:test";
import { domainToASCII } from "node:url";
import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import * as pageCrypto from "../../src/playground/node/crypto.js";
import * as pageNet from "../../src/playground/node/net.js";
import * as pagePath from "../../src/playground/node/path.js";
import * as pageUrl from "../../src/playground/node/url.js";
import * as pageUtil from "../../src/playground/node/util.js";

/**
 * The playground's stand-ins for Node's built-ins (src/playground/node/), against Node's own: the page
 * gives validate's verdict only as far as they answer alike on what the engine asks of them. (Named
 * *.e2e.test.ts only because its oracle for isIP imports node:net, which the unit/end-to-end split reads
 * as a file that may start a server; it starts nothing.)
 */
describe("the playground's stand-ins for Node's built-ins", () => {
  it("isDeepStrictEqual: as Node's on JSON values, equal and changed", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        const copy = JSON.parse(JSON.stringify(a)) as unknown;
        assert.equal(pageUtil.isDeepStrictEqual(a, copy), isDeepStrictEqual(a, copy));
        assert.equal(pageUtil.isDeepStrictEqual(a, b), isDeepStrictEqual(a, b));
      }),
      { numRuns: 500 },
    );
    for (const [a, b] of [
      [0, -0],
      [Number.NaN, Number.NaN],
      [[], {}],
      [{ a: undefined }, {}],
      [
        [1, 2],
        [2, 1],
      ],
    ])
      assert.equal(pageUtil.isDeepStrictEqual(a, b), isDeepStrictEqual(a, b), JSON.stringify([a, b]));
  });

  it("isIP: as Node's on addresses and near-addresses", () => {
    const text = fc.stringMatching(/^[0-9a-fA-F:.%]{0,24}$/);
    fc.assert(
      fc.property(text, (value) => {
        assert.equal(pageNet.isIP(value) === 6, isIP(value) === 6, value);
        assert.equal(pageNet.isIP(value) === 4, isIP(value) === 4, value);
      }),
      { numRuns: 2000 },
    );
    for (const value of [
      "::",
      "::1",
      "1::",
      "::ffff:1.2.3.4",
      "1:2:3:4:5:6:7:8",
      "1:2:3:4:5:6:7:8:9",
      "::1.2.3",
      "01.2.3.4",
      "fe80::1%eth0",
      "1.2.3.4",
    ])
      assert.equal(pageNet.isIP(value), isIP(value), value);
  });

  it("domainToASCII: as Node's on non-ASCII host names (the only ones the engine converts)", () => {
    for (const value of [
      "bücher.example",
      "ÄÖÜ.de",
      "日本.jp",
      "xn--bcher-kva.example",
      "a b.com",
      "ü%.de",
      "ü/.de",
      "ü..de",
      "ü.1.2.3",
      "ß.de",
    ])
      assert.equal(pageUrl.domainToASCII(value), domainToASCII(value), value);
  });

  it("path: as node:path (POSIX) on the paths the engine builds", () => {
    const segment = fc.constantFrom("a", "b", "..", ".", "", "modules", "001-x", "/abs");
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 6 }), (parts) => {
        if (parts.length > 0)
          assert.equal(pagePath.join(...parts), path.posix.join(...parts), JSON.stringify(parts));
        const absolute = ["/root", ...parts];
        assert.equal(
          pagePath.resolve(...absolute),
          path.posix.resolve(...absolute),
          JSON.stringify(absolute),
        );
        const joined = path.posix.join("/", ...parts);
        assert.equal(pagePath.dirname(joined), path.posix.dirname(joined), joined);
        assert.equal(pagePath.basename(joined), path.posix.basename(joined), joined);
        assert.equal(pagePath.basename(joined, ".yaml"), path.posix.basename(joined, ".yaml"), joined);
      }),
      { numRuns: 500 },
    );
  });

  it("createHash('sha256'): Node's digest; randomInt: within range", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: "binary" }), { maxLength: 5 }), (chunks) => {
        const page = pageCrypto.createHash("sha256");
        const node = createHash("sha256");
        for (const chunk of chunks) {
          page.update(chunk);
          node.update(chunk);
        }
        assert.equal(page.digest("hex"), node.digest("hex"));
      }),
      { numRuns: 300 },
    );
    for (let i = 0; i < 200; i++) {
      const value = pageCrypto.randomInt(27);
      assert.ok(Number.isInteger(value) && value >= 0 && value < 27);
    }
  });
});
