import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FieldPath } from "../../src/base/field-path.js";
import type { Problem } from "../../src/offline/admit.js";
import { recordedWarnings } from "../../src/offline/server-warnings.js";

const warning = (message: string): Problem => ({
  stage: "validating-webhook",
  field: FieldPath.empty,
  type: "Warning",
  message,
});
const texts = (warnings: Problem[]) => recordedWarnings(warnings).map((w) => w.message);

describe("the API server's warning recorder (4,096 runes in all, then 256 each)", () => {
  it("keeps each text once, whole, while they fit", () => {
    assert.deepEqual(texts([warning("a"), warning("b"), warning("a"), warning("")]), ["a", "b"]);
    const fits = Array.from({ length: 16 }, (_, i) => warning(`${i}`.padEnd(256, "x")));
    assert.deepEqual(
      texts(fits),
      fits.map((w) => w.message),
    );
  });

  it("counts runes, not bytes or UTF-16 units: 'é' and '😀' are one each", () => {
    const wide = [warning("é".repeat(4000)), warning("😀".repeat(96))];
    assert.deepEqual(
      texts(wide),
      wide.map((w) => w.message),
    );
  });

  it("once one does not fit, cuts every warning to 256 runes, replays them and stops past 4,096", () => {
    const long = Array.from({ length: 30 }, (_, i) =>
      warning(`${String(i).padStart(2, "0")}${"é".repeat(498)}`),
    );
    const kept = texts(long);
    // 500 runes each: the ninth does not fit; from then on 256 each, added while under 4,096 (16 of them).
    assert.equal(kept.length, 16);
    assert.ok(kept.every((text, i) => text === long[i]?.message.slice(0, 256)));
  });
});
