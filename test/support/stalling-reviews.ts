import type { ConfigItem, Module } from "../../src/generated/module.js";
import { helmModule } from "./modules.js";
import { kedaTemplate } from "./moduletemplates.js";
import { admissionReview } from "./reviews.js";
import { workspace } from "./workspaces.js";

/**
 * The reviews of issue 32 that killed the webhook (heap out of memory) or held it for 0.3 s to over
 * 30 s of CPU, each as the API server would send it: every object passes its kind's CRD, so anyone
 * with create rights on the kind can send it. Each must now end within the review's work budget:
 * denied with the webhook.work-budget cause when a required check runs out, or judged on its merits.
 */
export interface StallingReview {
  name: string;
  /** The webhook path's kind and the review itself. */
  kind: "Module" | "Workspace" | "ModuleTemplate";
  review: ReturnType<typeof admissionReview>;
}

/** A helm Module whose chart values hold `strings` (as a map of keys v0, v1, ... or as one list). */
function moduleWithValues(raw: Record<string, unknown>): Module {
  const module = helmModule();
  if (module.spec.helm) module.spec.helm.values = [{ raw }];
  return module;
}

const entries = (strings: string[]): Record<string, string> =>
  Object.fromEntries(strings.map((s, i) => [`v${i}`, s]));

/** A list of lists `depth` deep whose innermost list holds `strings`. */
function nested(strings: unknown[], depth: number): unknown {
  let value: unknown = strings;
  for (let i = 1; i < depth; i++) value = [value];
  return value;
}

/** A list of `count` strings spread over lists nested `depth` deep (a string at every level). */
function nestedSpread(template: string, count: number, depth: number): unknown {
  const perLevel = Math.ceil(count / depth);
  let value: unknown[] = Array(perLevel).fill(template);
  for (let i = 1; i < depth; i++) value = [...Array(perLevel).fill(template), value];
  return value;
}

const create = (object: unknown, kind = "Module") => admissionReview({ operation: "CREATE", object, kind });

export function stallingReviews(): StallingReview[] {
  const js999999 = '{{$x := js (printf "%999999d" 1)}}';
  const untypedItems: ConfigItem[] = Array.from(
    { length: 100_000 },
    (_, i) => ({ name: "n", alias: `a${i}` }) as ConfigItem,
  );
  const manyAliases = helmModule();
  manyAliases.config = Array.from({ length: 20_000 }, (_, i) => ({
    name: "n",
    alias: `a${i}`,
    boolean: {},
  }));
  manyAliases.spec.config = {};
  if (manyAliases.spec.helm)
    manyAliases.spec.helm.values = [{ raw: entries(Array(200).fill("{{range .config}}{{.}}{{end}}")) }];
  const untyped = helmModule();
  untyped.config = untypedItems;
  untyped.spec.config = {};
  const schedule = workspace() as { spec: Record<string, unknown> };
  schedule.spec.autoHibernation = {
    enabled: true,
    schedule: `${Array(600_000).fill("0").join(",")} * * * *`,
  };
  const oldTemplate = kedaTemplate();
  const newTemplate = kedaTemplate();
  newTemplate.spec.resources = Array.from({ length: 50_000 }, (_, i) => ({
    name: `r${i}`,
    link: `https://example.com/r${i}.yaml`,
  }));
  return [
    {
      name: "ten js(printf %999999d) values",
      kind: "Module",
      review: create(moduleWithValues(entries(Array(10).fill(js999999)))),
    },
    {
      name: "'{{1}}' 200,000 times in one value",
      kind: "Module",
      review: create(moduleWithValues({ v: "{{1}}".repeat(200_000) })),
    },
    {
      name: "1,000 '{{.a}}' in a list nested 990 deep",
      kind: "Module",
      review: create(moduleWithValues({ v: nestedSpread("{{.a}}", 1000, 990) })),
    },
    {
      name: "200,000 '{{.a}}' in one flat list",
      kind: "Module",
      review: create(moduleWithValues({ v: Array(200_000).fill("{{.a}}") })),
    },
    {
      name: "range 20 of js(printf %999999d), 1 KB",
      kind: "Module",
      review: create(moduleWithValues(entries(Array(16).fill(`{{range 20}}${js999999}{{end}}`)))),
    },
    {
      name: "urlquery(printf %999999d) in range 20",
      kind: "Module",
      review: create(
        moduleWithValues(
          entries(Array(16).fill('{{range 20}}{{$x := urlquery (printf "%999999d" 1)}}{{end}}')),
        ),
      ),
    },
    {
      name: "100,000 '{{1}}' strings",
      kind: "Module",
      review: create(moduleWithValues({ v: Array(100_000).fill("{{1}}") })),
    },
    {
      name: "50,000 templates nested 990 deep",
      kind: "Module",
      review: create(moduleWithValues({ v: nested(Array(50_000).fill("{{.a}}"), 990) })),
    },
    { name: "200 range .config over 20,000 aliases", kind: "Module", review: create(manyAliases) },
    {
      name: "a Workspace schedule of 600,000 cron items",
      kind: "Workspace",
      review: create(schedule, "Workspace"),
    },
    { name: "100,000 untyped config items", kind: "Module", review: create(untyped) },
    {
      name: "a ModuleTemplate UPDATE with 50,000 resources",
      kind: "ModuleTemplate",
      review: admissionReview({
        operation: "UPDATE",
        object: newTemplate,
        oldObject: oldTemplate,
        group: "operator.kyma-project.io",
        version: "v1beta2",
        kind: "ModuleTemplate",
        resource: "moduletemplates",
      }),
    },
    {
      name: "range 999999 of range 100 of js(printf %10000d)",
      kind: "Module",
      review: create(
        moduleWithValues({
          v: '{{range 999999}}{{range 100}}{{$x := js (printf "%10000d" 1)}}{{end}}{{end}}',
        }),
      ),
    },
    {
      name: "define/template recursion",
      kind: "Module",
      review: create(moduleWithValues({ v: '{{define "r"}}{{template "r" .}}{{end}}{{template "r" .}}' })),
    },
  ];
}
