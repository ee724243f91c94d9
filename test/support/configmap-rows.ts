import { writeTree } from "./addon-modules.js";

/**
 * One row per problem issue 13 lists under "Why", each through the live webhook: the ConfigMap data, and
 * what addon-operator does with it (admit, or deny with a cause on a field whose message matches).
 */
export interface ConfigMapRow {
  why: string;
  data: Record<string, string>;
  oldData?: Record<string, string>;
  admit?: true;
  deny?: [field: string, message: RegExp][];
  warning?: RegExp;
}

export const configMapRows: ConfigMapRow[] = [
  // Outage: the modules dir below holds values.yaml, README.md and .gitkeep beside the module directories.
  {
    why: "a plain file in the modules dir: a valid ConfigMap is admitted",
    data: { plain: "a: 1\n" },
    admit: true,
  },
  {
    why: "a plain file in the modules dir: an invalid one is denied with 422, not 500",
    data: { plain: "a: x\n" },
    deny: [["data.plain.a", /plain\.a in body must be of type integer: "string"/]],
  },
  // default: null is skipped (defaulting.go), as deckhouse's global.storageClass has it.
  { why: "default: null is not applied", data: { global: "{}\n" }, admit: true },
  {
    why: "every key is a module name after Enabled/Maintenance are stripped",
    data: { CertManagerEnabled: "true" },
    deny: [["data.CertManagerEnabled", /bad module name "CertManager": must be camelCased/]],
  },
  { why: 'YAML per source: global "" is an empty map', data: { global: "" }, admit: true },
  {
    why: "YAML per source: a comment-only global is an empty map",
    data: { global: "# nothing\n" },
    admit: true,
  },
  {
    why: "YAML per source: global is YAML 1.1, yes is true",
    data: { global: "highAvailability: yes\n" },
    admit: true,
  },
  {
    why: "YAML per source: a module section is yaml.v3, yes is a string",
    data: { yaml: "flag: yes\n" },
    deny: [["data.yaml.flag", /must be of type boolean: "string"/]],
  },
  {
    why: "YAML per source: merge keys work",
    data: { yaml: "base: &b {mode: 8}\nother:\n  <<: *b\n  name: x\n" },
    admit: true,
  },
  {
    why: "YAML per source: !!binary is a string of the bytes",
    data: { yaml: "name: !!binary aGVsbG8=\n" },
    admit: true,
  },
  {
    why: "YAML per source: 0755 is octal (493), within maximum 500",
    data: { yaml: "mode: 0755\n" },
    admit: true,
  },
  {
    why: "YAML per source: 0o777 is 511, above maximum 500",
    data: { yaml: "mode: 0o777\n" },
    deny: [["data.yaml.mode", /should be less than or equal to 500/]],
  },
  {
    why: "YAML per source: an integer map key fails addon-operator's JSON round trip",
    data: { yaml: "base:\n  1: one\n" },
    deny: [["data.yaml", /map key 1 at base is not a string/]],
  },
  {
    why: "YAML per source: .inf fails the JSON round trip",
    data: { yaml: "ratio: .inf\n" },
    deny: [["data.yaml", /Infinity at ratio has no JSON form/]],
  },
  {
    why: "$ref is expanded: a local definition",
    data: { refs: "port: http\n" },
    deny: [["data.refs.port", /refs\.port in body must be of type integer: "string"/]],
  },
  {
    why: "$ref is expanded: a relative file",
    data: { refs: "image: {tag: 1}\n" },
    deny: [["data.refs.image.tag", /must be of type string: "number"/]],
  },
  {
    why: "an unresolvable $ref makes the module's schema unusable, said clearly",
    data: { brokenRef: "a: 1\n" },
    deny: [["data.brokenRef", /schema is unusable.*\$ref "#\/definitions\/missing" does not resolve/]],
  },
  {
    why: "closing starts at the root even where the root sets additionalProperties",
    data: { closing: "extra: 1\nnested: {extra: 2}\n" },
    deny: [["data.closing.nested.extra", /forbidden property/]],
  },
  {
    why: "closing goes through items that set additionalProperties",
    data: { closing: "list: [{inner: {extra: 1}}]\n" },
    deny: [["data.closing.list[0].inner.extra", /forbidden property/]],
  },
  { why: "CEL numbers are doubles: replicas 3 / 2.0 == 1.5", data: { cel: "replicas: 3\n" }, admit: true },
  { why: "CEL: a rule on a missing key is skipped", data: { cel: "other: 1\n" }, admit: true },
  {
    why: "CEL: a malformed x-deckhouse-validations is an error",
    data: { badCel: "a: 1\n" },
    deny: [["data.badCel", /x-deckhouse-validations invalid: missing message/]],
  },
  {
    why: "CEL: oldSelf is the stored section without defaults (no old storageClass: the rule is skipped)",
    oldData: { cel: "replicas: 3\n" },
    data: { cel: "replicas: 3\nstorageClass: fast\n" },
    admit: true,
  },
  {
    why: "CEL: oldSelf rules run on UPDATE where the old section has the key",
    oldData: { cel: "replicas: 3\nstorageClass: slow\n" },
    data: { cel: "replicas: 3\nstorageClass: fast\n" },
    deny: [["data.cel.storageClass", /storageClass is immutable/]],
  },
  {
    why: "multipleOf has go-openapi's tolerance: 0.07 is a multiple of 0.01",
    data: { numbers: "price: 0.07\n" },
    admit: true,
  },
  {
    why: "integers are JSON-safe: 2^60 is not an integer to go-openapi",
    data: { numbers: "count: 1152921504606846976\n" },
    deny: [["data.numbers.count", /must be of type integer: "number"/]],
  },
  {
    why: "strfmt formats: duration, isbn13, uuid4, mac (8 octets) as Go accepts them",
    data: {
      formats:
        "duration: 3 weeks\nisbn: 978-0-306-40615-7\nid: 0b1c2b60-1a4b-4d3e-8f5a-1c2d3e4f5a6b\nmac: 00:00:5e:00:53:01:02:03\n",
    },
    admit: true,
  },
  {
    why: "strfmt formats: what Go's parsers refuse",
    data: {
      formats:
        "duration: soon\nisbn: 978-0-306-40615-8\nid: 0b1c2b60-1a4b-1d3e-8f5a-1c2d3e4f5a6b\nmac: 00:00:5e\nday: 2023-02-30\nlink: no/scheme\n",
    },
    deny: [
      ["data.formats.day", /must be of type date/],
      ["data.formats.duration", /must be of type duration/],
      ["data.formats.id", /must be of type uuid4/],
      ["data.formats.isbn", /must be of type isbn13/],
      ["data.formats.link", /must be of type uri/],
      ["data.formats.mac", /must be of type mac/],
    ],
  },
  { why: "a {} section is stored without validation", data: { required: "{}\n" }, admit: true },
  { why: "a list section is stored without validation", data: { required: "[1, 2]\n" }, admit: true },
  {
    why: "a disabled module's section is not validated: a warning, not a denial",
    data: { required: "other: 1\n", requiredEnabled: "false" },
    admit: true,
    warning:
      /^data\.required: module disabled, so not checked by addon-operator; it refuses this once enabled: /,
  },
  {
    why: "being enabled in this change: validated",
    data: { required: "other: 1\n", requiredEnabled: "true" },
    deny: [
      ["data.required.name", /required\.name in body is required/],
      ["data.required.other", /forbidden property/],
    ],
  },
];

/** The modules dir and global hooks dir the rows are judged against (fresh temp folders). */
export function writeConfigMapRowTrees(): { modulesDir: string; globalHooksDir: string } {
  const integer = { type: "integer" };
  const enabled = [
    "plain",
    "yaml",
    "refs",
    "brokenRef",
    "closing",
    "cel",
    "badCel",
    "numbers",
    "formats",
    "required",
  ]
    .map((key) => `${key}Enabled: true\n`)
    .join("");
  const modulesDir = writeTree({
    // Each module enabled by the static values: addon-operator validates only an enabled module's section.
    "values.yaml": `global:\n  modules: {}\n${enabled}`,
    "README.md": "# modules\n",
    ".gitkeep": "",
    "001-plain/openapi/config-values.yaml": { type: "object", properties: { a: integer } },
    "002-yaml/openapi/config-values.yaml": {
      type: "object",
      properties: {
        flag: { type: "boolean" },
        mode: { type: "integer", maximum: 500 },
        name: { type: "string" },
        ratio: { type: "number" },
        base: { type: "object", additionalProperties: true },
        other: { type: "object", properties: { mode: integer, name: { type: "string" } } },
      },
    },
    "003-refs/openapi/config-values.yaml": {
      type: "object",
      definitions: { port: integer },
      properties: { port: { $ref: "#/definitions/port" }, image: { $ref: "image.yaml#/image" } },
    },
    "003-refs/openapi/image.yaml": { image: { type: "object", properties: { tag: { type: "string" } } } },
    "004-broken-ref/openapi/config-values.yaml": {
      type: "object",
      properties: { a: { $ref: "#/definitions/missing" } },
    },
    "005-closing/openapi/config-values.yaml": {
      type: "object",
      additionalProperties: true,
      properties: {
        nested: { type: "object", properties: { a: integer } },
        list: {
          type: "array",
          items: {
            type: "object",
            additionalProperties: true,
            properties: { inner: { type: "object", properties: { a: integer } } },
          },
        },
      },
    },
    "006-cel/openapi/config-values.yaml": {
      type: "object",
      "x-deckhouse-validations": [
        { expression: "self.replicas / 2.0 == 1.5", message: "replicas must be 3" },
        { expression: "self.maxReplicas >= 1", message: "maxReplicas below 1" },
      ],
      properties: {
        replicas: { type: "number", default: 3 },
        maxReplicas: integer,
        other: integer,
        storageClass: {
          type: "string",
          default: "slow",
          "x-deckhouse-validations": [
            { expression: "self == oldSelf", message: "storageClass is immutable" },
          ],
        },
      },
    },
    "007-bad-cel/openapi/config-values.yaml": {
      type: "object",
      "x-deckhouse-validations": [{ expression: "self.a > 0" }],
      properties: { a: integer },
    },
    "008-numbers/openapi/config-values.yaml": {
      type: "object",
      properties: { price: { type: "number", multipleOf: 0.01 }, count: integer },
    },
    "009-formats/openapi/config-values.yaml": {
      type: "object",
      properties: Object.fromEntries(
        [
          ["duration", "duration"],
          ["isbn", "isbn13"],
          ["id", "uuid4"],
          ["mac", "mac"],
          ["day", "date"],
          ["link", "uri"],
        ].map(([key, format]) => [key, { type: "string", format }]),
      ),
    },
    "010-required/openapi/config-values.yaml": {
      type: "object",
      required: ["name"],
      properties: { name: { type: "string" } },
    },
  });
  const globalHooksDir = writeTree({
    "openapi/config-values.yaml": {
      type: "object",
      properties: {
        storageClass: { type: "string", default: null },
        highAvailability: { type: "boolean" },
        modules: {
          type: "object",
          default: {},
          properties: { ingressClass: { type: "string", default: "nginx" } },
        },
      },
    },
  });
  return { modulesDir, globalHooksDir };
}
