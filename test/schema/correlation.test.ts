import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ListIndexes, oldIndexOf } from "../../src/schema/correlation.js";
import { Random } from "../support/differential/random.js";

const mapList = { type: "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"] };

/**
 * `ListIndexes` (ratcheting's index of a pair of map lists, looked up once per error) against
 * `oldIndexOf` (the search it stands for): the same old item for every item, keys repeated, missing,
 * of another type, lists reordered, and lists whose keys agree item by item up to some point.
 */
describe("ListIndexes: a map list's old items as oldIndexOf finds them", () => {
  const names: unknown[] = ["a", "b", "c", "d", 1, "1", true, null, { x: 1 }];
  const item = (random: Random): unknown =>
    random.chance(0.1)
      ? random.pick(["not an item", 3, null])
      : random.chance(0.1)
        ? {}
        : { name: random.pick(names) };

  function agrees(list: unknown[], oldList: unknown[], label: string) {
    const indexes = new ListIndexes(Number.MAX_SAFE_INTEGER);
    for (let index = 0; index < list.length; index++) {
      assert.equal(
        indexes.oldIndexOf(list, oldList, index, mapList),
        oldIndexOf(list, oldList, index, mapList, Number.MAX_SAFE_INTEGER),
        `${label}: item ${index} of ${JSON.stringify(list)} against ${JSON.stringify(oldList)}`,
      );
    }
  }

  it("on 3,000 random pairs of lists", () => {
    const random = new Random(41);
    for (let i = 0; i < 3000; i++) {
      const list = Array.from({ length: random.int(0, 8) }, () => item(random));
      const oldList = Array.from({ length: random.int(0, 8) }, () => item(random));
      agrees(list, oldList, "random");
    }
  });

  it("on 3,000 pairs that agree item by item up to a point (items edited in place, some added or moved)", () => {
    const random = new Random(14);
    for (let i = 0; i < 3000; i++) {
      const oldList = Array.from({ length: random.int(0, 8) }, () => item(random));
      const list: unknown[] = oldList.map((old) =>
        old !== null && typeof old === "object" ? { ...old, link: "x" } : old,
      );
      const at = random.int(0, list.length);
      const change = random.int(0, 3);
      if (change === 0) list.splice(at, 0, item(random));
      if (change === 1) list.splice(at, 1);
      if (change === 2) list.push(...list.splice(at, 1));
      agrees(list, oldList, "edited");
    }
  });
});
