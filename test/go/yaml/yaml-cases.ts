/**
 * YAML per source, as addon-operator's parsers read it. The unit test (yaml.test.ts) checks the port
 * against these answers; yaml-differential.e2e.test.ts checks the texts, and many generated ones,
 * against the Go libraries themselves (the answers with a "problem:" are refusals, worded by the port).
 */
// [text, yaml.v3 (module sections), sigs.k8s.io/yaml (global, schemas, values.yaml)]
export const yamlTable: [string, unknown, unknown][] = [
  ["a: yes", { a: "yes" }, { a: true }],
  ["a: on", { a: "on" }, { a: true }],
  ["a: 0755", { a: 493 }, { a: 493 }],
  ["a: 0o17", { a: 15 }, { a: 15 }],
  ["a: 0b101", { a: 5 }, { a: 5 }],
  ["a: 1_000", { a: 1000 }, { a: 1000 }],
  ["a: 0x1F", { a: 31 }, { a: 31 }],
  ["a: 1:20", { a: "1:20" }, { a: "1:20" }],
  // yaml.v3 decodes a timestamp into a time.Time, which JSON writes in RFC 3339; goyaml.v2 keeps the text.
  ["a: 2001-12-14", { a: "2001-12-14T00:00:00Z" }, { a: "2001-12-14" }],
  ["a: !!binary aGVsbG8=", { a: "hello" }, { a: "hello" }],
  [
    "b: &x {c: 1}\na:\n  <<: *x\n  d: 2",
    { b: { c: 1 }, a: { c: 1, d: 2 } },
    { b: { c: 1 }, a: { c: 1, d: 2 } },
  ],
  [
    "1: a",
    "problem: map key 1 at the top is not a string: addon-operator's JSON conversion fails",
    { 1: "a" },
  ],
  [
    "a: .inf",
    "problem: Infinity at a has no JSON form: addon-operator's JSON conversion fails",
    "problem: Infinity at a has no JSON form: addon-operator's JSON conversion fails",
  ],
  ["a: 1\na: 2", "problem: Map keys must be unique at line 2, column 1:", { a: 2 }],
  ["", null, null],
  ["%YAML 1.1\n---\na: yes\nb: 0o17", { a: "yes", b: 15 }, { a: true, b: 15 }],
  [
    "%YAML 1.2\n---\na: 1",
    "problem: found incompatible YAML document",
    "problem: found incompatible YAML document",
  ],
  [
    "%YAML 1.1\n%YAML 1.1\n---\na: 1",
    "problem: found duplicate %YAML directive",
    "problem: found duplicate %YAML directive",
  ],
];
// Go's resolver (goyaml.v2 and yaml.v3 resolve.go): `_` removed, then strconv.ParseInt(s, 0, 64), then
// ParseUint, then ParseFloat for decimal floats; `.`-led text goes to ParseFloat as it is.
export const yamlScalars: [string, unknown][] = [
  ["0O17", 15],
  ["0X1f", 31],
  ["-0x1F", -31],
  ["+12", 12],
  ["017", 15],
  ["08", 8],
  ["09.5", 9.5],
  ["0o8", "0o8"],
  ["0x", "0x"],
  ["0b", "0b"],
  ["0b102", "0b102"],
  ["-0b101", -5],
  ["0B11", 3],
  ["1__0", 10],
  ["0x_1F", 31],
  ["1_", 1],
  ["_1", "_1"],
  ["1e3", 1000],
  ["1E-2", 0.01],
  ["1e400", "1e400"],
  [".5", 0.5],
  [".1_0", 0.1],
  ["._5", "._5"],
  ["+.5", 0.5],
  ["1.", 1],
  // int64's largest, then uint64's (ParseUint), then a float (no sign for ParseUint): as JSON numbers.
  ["9223372036854775807", 2 ** 63],
  ["18446744073709551615", 2 ** 64],
  ["-9223372036854775809", -(2 ** 63)],
  ["0x1p-2", "0x1p-2"],
  ["1.5_0", 1.5],
  ["+-1", "+-1"],
  ["12:30", "12:30"],
];
