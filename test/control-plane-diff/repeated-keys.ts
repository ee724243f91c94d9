import { writeJson } from "../../src/base/exact-json.js";
import type { Input } from "./inputs.js";

/**
 * The generated differential's text class: a generated object written as the YAML a person writes
 * (block maps and lists, comments), with one key of one map written twice: at the top level, in
 * metadata, in spec or in a map nested in spec, the other value (of another type, or the same value
 * again) before or after the object's own, the map in block or flow style. kubectl keeps the last
 * value; `validate` must judge what kubectl sends and name both lines. Deterministic for a seed.
 */
export interface RepeatedKeyCase {
  name: string;
  text: string;
  /** `spec.helm.chart`: where the repeated key is (its map's path and the key). */
  field: string;
  /** The 1-based lines of the two occurrences. */
  lines: [number, number];
  where: "top level" | "metadata" | "spec" | "nested";
  /** Whether the object's own value comes last (kubectl reads the object as generated). */
  ownLast: boolean;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Path = (string | number)[];

/** Marks the lines of the repeated key; a comment, so neither kubectl nor validate read it. */
const marker = "# repeated";

const plainKey = /^[A-Za-z][A-Za-z0-9]*$/;
/** Keys YAML 1.1 would read as something other than a string, quoted like any other odd key. */
const yaml11Words = new Set(["y", "n", "yes", "no", "on", "off", "true", "false", "null"]);
const keyText = (key: string) =>
  plainKey.test(key) && !yaml11Words.has(key.toLowerCase()) ? key : JSON.stringify(key);

/** A scalar as JSON text: a flow scalar YAML reads as JSON does (double-quoted strings). */
const flowText = (value: Json): string => writeJson(value);

interface Repeat {
  /** The path of the map that repeats a key. */
  at: Path;
  key: string;
  other: Json;
  ownLast: boolean;
  flow: boolean;
}

/** Block YAML lines of `value` at `indent`; the map at `repeat.at` writes `repeat.key` twice. */
function lines(value: unknown, indent: number, path: Path, repeat: Repeat): string[] {
  const pad = " ".repeat(indent);
  const here = samePath(path, repeat.at);
  if (Array.isArray(value)) {
    if (value.length === 0) return [`${pad}[]`];
    return value.flatMap((item, index) => {
      const inner = lines(item, indent + 2, [...path, index], repeat);
      const first = (inner[0] ?? "").slice(indent + 2);
      return [`${pad}- ${first}`, ...inner.slice(1)];
    });
  }
  if (value === null || typeof value !== "object") return [`${pad}${flowText(value as Json)}`];
  const entries = Object.entries(value as Record<string, unknown>);
  if (here && repeat.flow) {
    const pairs = entries.flatMap(([key, child]) => {
      const own = `${keyText(key)}: ${writeJson(child)}`;
      if (key !== repeat.key) return [own];
      const other = `${keyText(key)}: ${writeJson(repeat.other)}`;
      return repeat.ownLast ? [other, own] : [own, other];
    });
    return [`${pad}{${pairs.join(", ")}} ${marker}`];
  }
  if (entries.length === 0) return [`${pad}{}`];
  return entries.flatMap(([key, child]) => {
    const own = entry(key, child, indent, [...path, key], repeat, here && key === repeat.key);
    if (!(here && key === repeat.key)) return own;
    const other = entry(key, repeat.other, indent, [...path, key], repeat, true);
    return repeat.ownLast ? [...other, ...own] : [...own, ...other];
  });
}

function entry(
  key: string,
  child: unknown,
  indent: number,
  path: Path,
  repeat: Repeat,
  mark: boolean,
): string[] {
  const pad = " ".repeat(indent);
  const note = mark ? ` ${marker}` : "";
  const isCollection =
    child !== null &&
    typeof child === "object" &&
    (Array.isArray(child) ? child.length > 0 : Object.keys(child).length > 0);
  const flowTarget = samePath(path, repeat.at) && repeat.flow;
  if (!isCollection && !flowTarget) return [`${pad}${keyText(key)}: ${flowText(child as Json)}${note}`];
  // A flow map written on its own line below its key, so the marker is on the line of both keys.
  const inner = lines(child, indent + 2, path, repeat);
  return [`${pad}${keyText(key)}:${note}`, ...inner];
}

const samePath = (a: Path, b: Path) => a.length === b.length && a.every((step, i) => step === b[i]);

/** Deterministic choices (a small linear congruential generator). */
function chooser(seed: number) {
  let state = seed >>> 0 || 1;
  const next = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  return { next, pick: <T>(list: readonly T[]): T | undefined => list[Math.floor(next() * list.length)] };
}

/** Maps of `value` under `path` that have at least one key, with their paths. */
function mapsUnder(value: unknown, path: Path): Path[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => mapsUnder(item, [...path, i]));
  if (value === null || typeof value !== "object") return [];
  const entries = Object.entries(value as Record<string, unknown>);
  const here = entries.length > 0 ? [path] : [];
  return [...here, ...entries.flatMap(([key, child]) => mapsUnder(child, [...path, key]))];
}

const valueAt = (object: unknown, path: Path): unknown =>
  path.reduce<unknown>(
    (node, step) => (node as Record<string | number, unknown> | undefined)?.[step],
    object,
  );

/** Other values a repeated key may hold: another type, another string, the same again, a map, a list. */
const others = (own: unknown): Json[] => [
  7,
  "other",
  true,
  null,
  { a: 1 },
  ["x"],
  structuredClone(own) as Json,
];

/**
 * One case per generated (or real) CREATE (UPDATE pairs left out: kubectl create makes objects), the repeat put
 * where `where` cycles: top level (apiVersion, kind or metadata written first as another value, or
 * spec either way), metadata, spec, nested.
 */
export function repeatedKeyCases(
  generated: readonly (Input & { mutation?: string })[],
  seed: number,
): RepeatedKeyCase[] {
  const choose = chooser(seed);
  const places = ["top level", "metadata", "spec", "nested"] as const;
  return generated
    .filter((g) => !g.oldObject)
    .flatMap((g, i): RepeatedKeyCase[] => {
      const object = g.object as Record<string, unknown>;
      let where: RepeatedKeyCase["where"] = places[i % places.length] as RepeatedKeyCase["where"];
      let at: Path = [];
      if (where === "metadata") at = ["metadata"];
      if (where === "spec") at = ["spec"];
      if (where === "nested") {
        const nested = mapsUnder(object.spec, ["spec"]).filter((p) => p.length > 1);
        at = choose.pick(nested) ?? ["spec"];
        if (at.length === 1) where = "spec";
      }
      const map = valueAt(object, at) as Record<string, unknown> | undefined;
      if (!map || typeof map !== "object" || Array.isArray(map)) return [];
      // kubectl finds the kind's API from the last apiVersion and kind: a stray one last is another
      // kind altogether, so there the object's own comes last.
      const keys = Object.keys(map);
      const key = choose.pick(keys) as string;
      const identity = at.length === 0 && (key === "apiVersion" || key === "kind");
      const ownLast = identity || choose.next() < 0.5;
      const other = identity ? `${String(map[key])}x` : (choose.pick(others(map[key])) as Json);
      const flow = at.length > 0 && choose.next() < 0.2;
      const repeat: Repeat = { at, key, other, ownLast, flow };
      const text = `${lines(object, 0, [], repeat).join("\n")}\n`;
      const marked = text.split("\n").flatMap((line, index) => (line.endsWith(marker) ? [index + 1] : []));
      const [first, second = first] = marked as [number, number?];
      return [
        {
          name: `${g.name} (${g.mutation ?? "as found"}; ${key} repeated at ${where}${flow ? ", flow" : ""}, ${ownLast ? "own" : "other"} last)`,
          text,
          field: [...at, key].map(String).join("."),
          lines: [first, second as number],
          where,
          ownLast,
        },
      ];
    });
}
