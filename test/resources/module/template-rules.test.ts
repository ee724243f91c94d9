import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type FieldWarning, warningText } from "../../../src/admission/warning.js";
import { WorkBudget } from "../../../src/budget/work-budget.js";
import type { Module } from "../../../src/generated/module.js";
import { validateTemplates } from "../../../src/resources/module/template-rules.js";
import { matchErrors } from "../../support/match-errors.js";
import { matchWarnings } from "../../support/match-warnings.js";
import { customModule, helmModule } from "../../support/modules.js";

const helmWith = (
  change: (module: Module & { spec: { helm: NonNullable<Module["spec"]["helm"]> } }) => void,
) => {
  const module = helmModule() as Module & { spec: { helm: NonNullable<Module["spec"]["helm"]> } };
  change(module);
  return module;
};
const errors = (module: Module) => validateTemplates(module, new WorkBudget()).errors;

describe("templates, as the operator renders them", () => {
  it("admits the fixture's templates and strings without both {{ and }}", () => {
    const module = helmWith((m) => {
      m.spec.helm.namespace = "plain {{ text";
    });
    assert.deepEqual(validateTemplates(module, new WorkBudget()), { errors: [], warnings: [] });
  });

  it("denies a function Go and the operator do not have, naming it (the docs' own `sub` example)", () => {
    const module = helmWith((m) => {
      m.spec.helm.values = [
        { raw: { readReplicas: "{{ sub .config.replicas 1 }}", id: "{{ randBase62 8 }}" } },
      ];
    });
    matchErrors(errors(module), [
      {
        type: "invalid",
        field: "spec.helm.values[0].raw.readReplicas",
        rule: "module.template-function",
        value: "{{ sub .config.replicas 1 }}",
        detail: 'template: :1: function "sub" not defined (the operator cannot render it)',
      },
    ]);
  });

  it("denies what Go's parser refuses: unclosed actions, a stray end, undefined variables", () => {
    for (const text of [
      "{{ .config.replicas }} {{",
      "{{ end }}",
      "{{ $x }}",
      "{{ if .config.metrics }}on{{ else }}off",
    ]) {
      const module = helmWith((m) => {
        m.spec.helm.values = [{ raw: { a: text } }];
      });
      const found = validateTemplates(module, new WorkBudget()).errors;
      assert.equal(found.length, 1, text);
      assert.equal(found[0]?.rule, "module.template-syntax", text);
      assert.match(found[0]?.detail ?? "", /^template: :1: /, text);
    }
  });

  it("warns about data the operator does not pass: it renders <no value>", () => {
    const helm = helmWith((m) => {
      m.spec.helm.namespace = "{{ .namespace }}-{{ .config.region }}";
      m.spec.helm.values = [{ raw: { a: "{{ .releaseName }}.{{ .namespace }}.{{ .cluster }}" } }];
    });
    // Each warning names its field structurally: `validate` points its line there. The module tags them
    // with its rule (module.template-warning); the template rules' own warnings have none yet.
    matchWarnings(validateTemplates(helm, new WorkBudget()).warnings, [
      {
        field: "spec.helm.namespace",
        message:
          "spec.helm.namespace: .namespace is not passed here (namespace is rendered first): it renders <no value>",
      },
      {
        field: "spec.helm.namespace",
        message:
          "spec.helm.namespace: .config.region is not declared in the config schema: it renders <no value>",
      },
      {
        field: "spec.helm.values[0].raw.a",
        message:
          "spec.helm.values[0].raw.a: .cluster is not passed (the operator passes config, releaseName and namespace): it renders...",
      },
    ]);
    const custom = customModule();
    if (custom.spec.custom) custom.spec.custom.image = "registry/app:{{ .releaseName }}";
    matchWarnings(validateTemplates(custom, new WorkBudget()).warnings, [
      {
        field: "spec.custom.image",
        message: "spec.custom.image: .releaseName is not passed here (only config): it renders <no value>",
      },
    ]);
  });

  it("denies output that certainly decodes to a JSON number or boolean in a string field; free-form fields keep it", () => {
    const module = helmWith((m) => {
      m.config?.push({ name: "Chart", alias: "chartVersion", string: { default: "1.2" } });
      m.spec.helm.chart.repo = {
        url: "https://charts.example.com",
        chart: "redis",
        version: "{{ .config.chartVersion }}",
      };
      m.spec.helm.values = [{ raw: { replicas: "{{ .config.replicas }}", on: "{{ .config.metrics }}" } }];
      m.spec.helm.outputs = [{ name: "{{ .config.metrics }}", value: "{{ .config.replicas }}" }];
    });
    const jsonType = (field: string, value: string, renders: string) =>
      ({
        type: "invalid",
        field,
        rule: "module.template-json-type",
        value,
        detail: `renders ${renders}, which the operator cannot decode into this string field`,
      }) as const;
    const outputName = jsonType(
      "spec.helm.outputs[0].name",
      "{{ .config.metrics }}",
      '"true", a JSON boolean',
    );
    matchErrors(errors(module), [
      jsonType("spec.helm.chart.repo.version", "{{ .config.chartVersion }}", '"1.2", a JSON number'),
      outputName,
    ]);
    // The value set in spec.config counts, not the default: "1.2.0" is no JSON number.
    module.spec.config = { ...module.spec.config, chartVersion: "1.2.0" };
    matchErrors(errors(module), [outputName]);
  });

  it("warns when the output may decode to a non-string: a random string may be all digits", () => {
    const module = helmWith((m) => {
      m.spec.helm.namespace = "{{ randBase62 4 }}";
    });
    const verdict = validateTemplates(module, new WorkBudget());
    assert.deepEqual(
      { ...verdict, warnings: verdict.warnings.map(warningText) },
      {
        errors: [],
        warnings: ["spec.helm.namespace: may render as a JSON number, depending on randBase62's output"],
      },
    );
    // After a letter no random string is a JSON number, but an upper-case one is no namespace name.
    module.spec.helm.namespace = "ns-{{ randBase62 4 }}";
    const prefixed = validateTemplates(module, new WorkBudget());
    assert.deepEqual(prefixed.errors, []);
    assert.match(
      warningText(prefixed.warnings[0] as FieldWarning),
      /^spec\.helm\.namespace: may fail, depending on randBase62: renders "ns-AAAA": /,
    );
  });

  it("tells free-form fields by their rendered path, whatever the keys hold", () => {
    const number = "{{ .config.replicas }}";
    const module = helmWith((m) => {
      const helm = m.spec.helm as unknown as Record<string, unknown>;
      helm.values = [{ raw: { a: number, b: [{ c: number }] }, rawx: number }, [{ raw: number }]];
      helm.outputs = [{ name: "n", value: number }, { name: number }];
      helm["x.values"] = [{ raw: number }];
      helm["values[1]"] = { raw: number };
      helm["a.outputs[12]"] = { value: number, raw: number };
      helm.xvalues = [{ raw: number }];
      helm["values[x]"] = { raw: number };
      helm.extra = { values: { "0": { raw: number } }, outputs: [{ value: [number] }] };
    });
    assert.deepEqual(
      validateTemplates(module, new WorkBudget()).errors.map((error) => String(error.field)),
      [
        "spec.helm.values[0].rawx",
        "spec.helm.values[1][0].raw",
        "spec.helm.outputs[1].name",
        "spec.helm.a.outputs[12].raw",
        "spec.helm.xvalues[0].raw",
        "spec.helm.values[x].raw",
        "spec.helm.extra.values.0.raw",
      ],
    );
  });

  it("gives the same paths and free-form fields however deep, recursion or not", () => {
    const number = "{{ .config.replicas }}";
    for (const depth of [1, 150, 199, 200, 201, 450]) {
      let nested: unknown = { n: number, values: [{ raw: number }, [{ raw: number }]] };
      let path = "";
      for (let i = depth; i > 0; i--) {
        nested = i % 2 ? { [`k${i}`]: nested } : [1, nested];
        path = i % 2 ? `.k${i}${path}` : `[1]${path}`;
      }
      const module = helmWith((m) => {
        (m.spec.helm as unknown as Record<string, unknown>).extra = nested;
        m.spec.helm.values = [{ raw: { deep: nested } }];
      });
      assert.deepEqual(
        validateTemplates(module, new WorkBudget()).errors.map((error) => String(error.field)),
        [`spec.helm.extra${path}.n`, `spec.helm.extra${path}.values[1][0].raw`],
        `depth ${depth}`,
      );
    }
  });

  it("reads own keys only, whatever a prototype holds", () => {
    const number = "{{ .config.replicas }}";
    class Inherited {
      constructor(readonly own: string) {}
    }
    Object.defineProperty(Inherited.prototype, "inherited", { value: number, enumerable: true });
    const module = helmWith((m) => {
      const helm = m.spec.helm as unknown as Record<string, unknown>;
      helm.a = new Inherited(number);
      helm.b = Object.assign(Object.create(null), { c: number });
    });
    Object.defineProperty(Object.prototype, "polluted", {
      value: number,
      enumerable: true,
      configurable: true,
    });
    try {
      assert.deepEqual(
        validateTemplates(module, new WorkBudget()).errors.map((error) => String(error.field)),
        ["spec.helm.a.own", "spec.helm.b.c"],
      );
    } finally {
      delete (Object.prototype as Record<string, unknown>).polluted;
    }
    assert.deepEqual(
      validateTemplates(module, new WorkBudget()).errors.map((error) => String(error.field)),
      ["spec.helm.a.own", "spec.helm.b.c"],
    );
  });

  it("walks a deeply nested raw value without exhausting the stack", () => {
    let nested: unknown = "{{ sub 2 1 }}";
    for (let i = 0; i < 100_000; i++) nested = [nested];
    const module = helmWith((m) => {
      m.spec.helm.values = [{ raw: { deep: nested } }];
    });
    assert.deepEqual(
      validateTemplates(module, new WorkBudget()).errors.map((error) => error.rule),
      ["module.template-function"],
    );
  });

  it("judges a template repeated in many fields as it judges each alone: warnings, errors and work charged", () => {
    const module = helmWith((m) => {
      m.spec.helm.namespace = "{{ .namespace }}";
      m.spec.helm.chart.repo = {
        url: "https://charts.example.com",
        chart: "redis",
        version: "{{ .config.replicas }}",
      };
      m.spec.helm.outputs = [{ name: "{{ .config.replicas }}", value: "{{ .namespace }}" }];
      m.spec.helm.values = [
        { raw: { a: "{{ .namespace }}", b: "{{ .cluster }}", c: "{{ .cluster }}", d: "{{ .namespace }}" } },
      ];
    });
    const cluster = (key: string) => ({
      field: `spec.helm.values[0].raw.${key}`,
      message: `spec.helm.values[0].raw.${key}: .cluster is not passed (the operator passes config, releaseName and namespace): it renders...`,
    });
    const { errors: found, warnings } = validateTemplates(module, new WorkBudget());
    matchWarnings(warnings, [
      {
        field: "spec.helm.namespace",
        message:
          "spec.helm.namespace: .namespace is not passed here (namespace is rendered first): it renders <no value>",
      },
      cluster("b"),
      cluster("c"),
    ]);
    assert.deepEqual(
      found.map((e) => [String(e.field), e.rule]),
      [
        ["spec.helm.chart.repo.version", "module.template-json-type"],
        // It renders <no value>, no namespace's name.
        ["spec.helm.namespace", "module.helm-namespace"],
        ["spec.helm.outputs[0].name", "module.template-json-type"],
      ],
    );
    // Each copy of a template charged as the first: the work of a plain template's check is charged
    // whether or not an earlier one's result is reused.
    const spent = (text: string, copies: number) => {
      const budget = new WorkBudget();
      const raw = Object.fromEntries(Array.from({ length: copies }, (_, i) => [`k${i}`, text]));
      validateTemplates(
        helmWith((m) => {
          m.spec.helm.values = [{ raw }];
        }),
        budget,
      );
      return budget.spent;
    };
    for (const text of ["{{ .cluster }}", "{{ .config.host }}.{{ .releaseName }}", "x{{/* c */}}y"]) {
      spent(text, 1); // its parse cached: not charged below
      const first = spent(text, 1) - spent(text, 0);
      assert.ok(first > 0, text);
      assert.equal(spent(text, 3) - spent(text, 2), first, text);
    }
  });

  it("cuts a long warning to 120 characters", () => {
    const module = helmWith((m) => {
      m.spec.helm.namespace = `{{.config.${"x".repeat(150)}}}`;
    });
    const [warning] = validateTemplates(module, new WorkBudget()).warnings.map(warningText);
    assert.equal(warning?.length, 120);
    assert.ok(warning?.endsWith("..."));
  });
});
