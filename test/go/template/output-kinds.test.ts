import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  jsonKind,
  outputJsonKinds,
  type PrintedValue,
  parseTemplate,
} from "../../../src/go/template/index.js";

describe("jsonKind: what encoding/json's Unmarshal into any makes of a rendered string", () => {
  it("decodes numbers, booleans, null, strings, arrays and objects, with surrounding JSON whitespace", () => {
    assert.equal(jsonKind("1.2"), "number");
    assert.equal(jsonKind(" \t\r\n-3e2\n"), "number");
    assert.equal(jsonKind("true"), "boolean");
    assert.equal(jsonKind("null"), "null");
    assert.equal(jsonKind('"x"'), "string");
    assert.equal(jsonKind("[1]"), "array");
    assert.equal(jsonKind('{"a":1}'), "object");
  });

  it("leaves what Go does not decode as text: not JSON, numbers beyond float64, nesting deeper than 10000", () => {
    for (const text of [
      "",
      "1.2.3",
      "01",
      "+1",
      ".5",
      "NaN",
      "1e400",
      "[1e400]",
      "True",
      "<no value>",
      "v1",
    ]) {
      assert.equal(jsonKind(text), "text", text);
    }
    assert.equal(jsonKind(`${"[".repeat(10000)}${"]".repeat(10000)}`), "array");
    assert.equal(jsonKind(`${"[".repeat(10001)}${"]".repeat(10001)}`), "text");
    assert.equal(jsonKind('["[[[", 1]'), "array", "brackets inside strings do not nest");
  });

  it("agrees with JSON.parse plus Go's number and depth limits on a table of edge cases", () => {
    const cases = [
      ...["0", "-0", "10", "-", "-a", "00", "1.", "1.e3", "1e", "1e+", "1E-2", "1e-400", "2.5e+10x", "0x1"],
      ...[
        "1".repeat(308),
        "1".repeat(309),
        `9${"9".repeat(308)}`,
        `1${"0".repeat(400)}.5`,
        "0.".concat("1".repeat(400)),
      ],
      ...["1e308", "1.7976931348623157e308", "1.7976931348623159e308", "-1e309", "[1,-1e400]", '{"a":1e999}'],
      ...[
        '""',
        '"\\u00e9\\n\\/\\""',
        '"\\x"',
        '"\\u12"',
        '"\\u12g4"',
        '"a\nb"',
        '"\u007f"',
        '"\ud800"',
        '"é"',
        '"',
      ],
      ...[
        "true",
        "tru",
        "truex",
        "false",
        "null",
        "nul",
        "nullx",
        "NULL",
        " true ",
        "\u00a0true",
        "\ufefftrue",
      ],
      ...[
        "[]",
        "[ ]",
        "[,]",
        "[1,]",
        "[1 2]",
        "[1,2]",
        "[[]",
        "[]]",
        "{}",
        "{ }",
        '{"a"}',
        '{"a":}',
        '{"a":1,}',
      ],
      ...[
        '{"a":1 "b":2}',
        '{"a" : [ {"b" : null} ] }',
        "{1:2}",
        '{"a":1}}',
        "[}",
        "{]",
        " \t\n\r[ \t\n\r]\r",
        "\f1",
      ],
      ...["1 2", "[] []", "<no value>", "redis-cache-main", "21.2.7", "512Mi", "true1", "-Infinity", "NaN"],
    ];
    for (const text of cases) assert.equal(jsonKind(text), referenceKind(text), JSON.stringify(text));
  });

  it("agrees with JSON.parse plus Go's number and depth limits on random texts", () => {
    const alphabet = [...'{}[]",: \t\n-+.0123456789eEtrufalsn\\/bxé\u0000\ud800'];
    let seed = 11;
    const random = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed / 0x7fffffff;
    };
    // Texts built from JSON fragments as well as single characters, so that many of them are valid.
    const fragments = [
      "[",
      "]",
      "{",
      "}",
      '"k":',
      ",",
      "1",
      "-0.5e3",
      "1e400",
      "true",
      "null",
      '"s"',
      " ",
      "[1,2]",
    ];
    for (let i = 0; i < 50_000; i++) {
      let text = "";
      for (let n = Math.floor(random() * 14); n > 0; n--) {
        const pool = random() < 0.5 ? alphabet : fragments;
        text += pool[Math.floor(random() * pool.length)];
      }
      assert.equal(jsonKind(text), referenceKind(text), JSON.stringify(text));
    }
    // Valid JSON with random whitespace, as it is and with one character changed, inserted or removed.
    const scalars = ["0", "-12.5e-3", "1e400", "1E+2", '"a\\"b"', '"\\u00e9"', "true", "false", "null", '""'];
    const space = () => [" ", "", "\n", "\t", "\r", ""][Math.floor(random() * 6)] as string;
    const json = (depth: number): string => {
      const r = random();
      if (depth > 3 || r < 0.4) return space() + scalars[Math.floor(random() * scalars.length)] + space();
      const items = Array.from({ length: Math.floor(random() * 3) }, () =>
        r < 0.7 ? json(depth + 1) : `${space()}"k"${space()}:${json(depth + 1)}`,
      );
      return r < 0.7 ? `[${items.join(",")}${space()}]` : `{${space()}${items.join(",")}}`;
    };
    const counts = new Map<string, number>();
    for (let i = 0; i < 20_000; i++) {
      let text = json(0);
      const at = Math.floor(random() * (text.length + 1));
      const change = random();
      const char = alphabet[Math.floor(random() * alphabet.length)] as string;
      if (change < 0.2) text = text.slice(0, at) + char + text.slice(at + 1);
      else if (change < 0.35) text = text.slice(0, at) + char + text.slice(at);
      else if (change < 0.5) text = text.slice(0, at) + text.slice(at + 1);
      const kind = referenceKind(text);
      counts.set(kind, (counts.get(kind) ?? 0) + 1);
      assert.equal(jsonKind(text), kind, JSON.stringify(text));
    }
    for (const kind of ["text", "number", "boolean", "null", "string", "array", "object"])
      assert.ok((counts.get(kind) ?? 0) > 100, `${kind} is among the random cases`);
  });
});

/** The implementation jsonKind replaced (a pre-scan for what Go refuses, then JSON.parse): its oracle. */
function referenceKind(rendered: string): string {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < rendered.length; i++) {
    const c = rendered[i] as string;
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "[" || c === "{") {
      if (++depth > 10000) return "text";
    } else if (c === "]" || c === "}") depth--;
    else if (c === "-" || (c >= "0" && c <= "9")) {
      const run = /-?[0-9][0-9eE+\-.]*/y;
      run.lastIndex = i;
      const token = run.exec(rendered)?.[0] ?? c;
      if (!Number.isFinite(Number(token)) && !Number.isNaN(Number(token))) return "text";
      i += token.length - 1;
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(rendered);
  } catch {
    return "text";
  }
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value === "number" || typeof value === "boolean" || typeof value === "string"
    ? typeof value
    : "object";
}

describe("outputJsonKinds: what a template's output can decode to", () => {
  const kinds = (text: string, values: Record<string, PrintedValue>) => {
    const result = parseTemplate(text);
    assert.ok(result.ok);
    return [
      ...outputJsonKinds(
        result.template.analysis.output,
        (path) => values[path.join(".")] ?? { kind: "any" },
      ),
    ].sort();
  };

  it("is certain where every value gives the same kind", () => {
    assert.deepEqual(kinds("{{.config.n}}", { "config.n": { kind: "integer" } }), ["number"]);
    assert.deepEqual(kinds(" {{- .config.n -}} ", { "config.n": { kind: "integer" } }), ["number"]);
    assert.deepEqual(kinds("{{.config.b}}", { "config.b": { kind: "boolean" } }), ["boolean"]);
    assert.deepEqual(kinds("v{{.config.n}}", { "config.n": { kind: "integer" } }), ["text"]);
    assert.deepEqual(kinds("{{.config.x}}", { "config.x": { kind: "text", text: "<no value>" } }), ["text"]);
    assert.deepEqual(kinds('{{if eq .config.env "p"}}14.0.0{{else}}13.0.0{{end}}', {}), ["text"]);
    assert.deepEqual(kinds("{{if gt .config.n 1}}true{{else}}false{{end}}", {}), ["boolean"]);
  });

  it("says where it may go either way", () => {
    assert.deepEqual(kinds("{{.config.n}}{{.config.n}}", { "config.n": { kind: "integer" } }), [
      "number",
      "text",
    ]);
    assert.deepEqual(kinds("1e{{.config.n}}", { "config.n": { kind: "integer" } }), ["number", "text"]);
    assert.deepEqual(kinds("0{{.config.n}}", { "config.n": { kind: "integer" } }), ["text"]);
    assert.deepEqual(kinds("{{.config.s}}", {}).length, 7);
    assert.deepEqual(kinds('"{{.config.s}}', {}), ["string", "text"]);
    assert.deepEqual(kinds("{{.config.s}}x", {}).length, 7, "only the start of the text narrows it");
    assert.deepEqual(kinds("x{{printf .a}}", {}), ["text"]);
  });
});
