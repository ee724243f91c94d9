import type { ConfigItem, Module } from "../../src/generated/module.js";
import { helmModule } from "./modules.js";

/**
 * The Forkspacer failures issue 33 lists, each a Module the operator v0.1.24 certainly fails on, with
 * the step it fails at (test/oracles/forkspacer.go's stages): the differential checks Go fails there,
 * and the live server and `validate` that the project denies each one.
 */
export interface ListedFailure {
  name: string;
  module: Module;
  /** The stage Go fails at; `crd|decode`: the API server with the operator's CRD refuses it first. */
  stage: string;
}

const helmOf = (m: Module) => m.spec.helm as NonNullable<Module["spec"]["helm"]>;
const chart = (m: Module, value: NonNullable<Module["spec"]["helm"]>["chart"]) => {
  helmOf(m).chart = value;
};
const tags = (defaultValue?: string[]): ConfigItem => ({
  name: "Tags",
  alias: "tags",
  multipleOptions: { values: ["1", "2", "a"], ...(defaultValue ? { default: defaultValue } : {}) },
});
const repo = (version: string, name = "app") => ({
  repo: { url: "https://charts.example.com", chart: name, version },
});

const failure = (name: string, stage: string, change: (m: Module) => void): ListedFailure => {
  const module = helmModule();
  module.metadata = {
    ...module.metadata,
    name: `listed-${name.replace(/[^a-z0-9]+/gi, "-").toLowerCase()}`.slice(0, 60).replace(/-$/, ""),
  };
  change(module);
  return { name, module, stage };
};

export const listedFailures: ListedFailure[] = [
  failure("range over a multipleOptions default renders a number", "render", (m) => {
    m.config = [tags(["1"])];
    chart(m, repo("{{ range .config.tags }}{{ . }}{{ end }}"));
  }),
  failure("a multipleOptions item without a default prints [], a JSON array", "render", (m) => {
    m.config = [tags()];
    chart(m, repo("{{ .config.tags }}"));
  }),
  failure("len of a multipleOptions default renders a number", "render", (m) => {
    m.config = [tags(["a"])];
    chart(m, repo("{{ len .config.tags }}"));
  }),
  failure('printf "%q" of a multipleOptions default renders a JSON array', "render", (m) => {
    m.config = [tags(["a"])];
    chart(m, repo('{{ printf "%q" .config.tags }}'));
  }),
  failure("index out of range over a multipleOptions default", "render", (m) => {
    m.config = [tags(["a"])];
    chart(m, repo("1.0.0", "{{ index .config.tags 5 }}"));
  }),
  failure('printf "%.1f" 2.0 renders 2.0, a number', "render", (m) => {
    chart(m, repo('{{ printf "%.1f" 2.0 }}'));
  }),
  failure("a template that calls itself exceeds Go's template depth", "render", (m) => {
    chart(m, repo("1.0.0", '{{ define "t" }}{{ template "t" }}{{ end }}{{ template "t" }}'));
  }),
  failure("one integer above 2^53 no longer hides another template's failure", "render", (m) => {
    m.config = [{ name: "Big", alias: "big", integer: { default: 2 ** 60 } }, tags(["a"])];
    chart(m, repo("{{ len .config.tags }}", "{{ .config.big }}"));
  }),
  failure("a git URL that renders to the scp form", "install", (m) => {
    m.config = [{ name: "Repo", alias: "repo", string: { default: "git@github.com:org/charts.git" } }];
    chart(m, { git: { repo: "{{ .config.repo }}", revision: "main", path: "/" } });
  }),
  failure("a chart URL that renders null becomes empty", "install", (m) => {
    chart(m, { repo: { url: '{{ "null" }}', chart: "app" } });
  }),
  failure("an empty git revision", "install", (m) => {
    chart(m, { git: { repo: "https://github.com/org/charts.git", revision: "", path: "/" } });
  }),
  failure("existingRelease in a namespace that cannot exist", "adopt", (m) => {
    helmOf(m).existingRelease = { name: "legacy", namespace: "Prod" };
  }),
  failure("an integer max beyond int64", "crd|decode", (m) => {
    m.config = [{ name: "Replicas", alias: "replicas", integer: { default: 1, max: 2 ** 64 } }];
  }),
];
