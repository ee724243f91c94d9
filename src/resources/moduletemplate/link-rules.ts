import {
  type FieldError,
  type FieldErrorList,
  fieldError,
  ListErrors,
} from "../../admission/field-errors.js";
import { errorRules, warningRules } from "../../admission/rule-catalogue.js";
import { FieldPath } from "../../base/field-path.js";
import { repeatedStrings } from "../../base/repeated.js";
import type { WorkBudget } from "../../budget/work-budget.js";
import { celString } from "../../cel/policy-cel.js";
import type { ModuleTemplateSpec } from "../../generated/moduletemplate.js";
import { absoluteHttpUrlProblem, surelyValidLink } from "../../validation/urls.js";

// The links of spec.info and of spec.resources, as CEL lists (an absent field gives none).
const infoLinkFields = [
  "(has(object.spec) && has(object.spec.info) ? [object.spec.info.repository, object.spec.info.documentation] : [])",
  "(has(object.spec) && has(object.spec.info) && has(object.spec.info.icons) ? object.spec.info.icons.map(i, i.link) : [])",
];
const resourceLinkFields = [
  "(has(object.spec) && has(object.spec.resources) ? object.spec.resources.map(r, r.link) : [])",
];
/** The webhook is called for a link that is not surely valid among `fields`. */
const notSurelyValid = (fields: string[]) =>
  `[${fields.join(", ")}].exists(links, links.exists(link, !link.matches(${celString(surelyValidLink)})))`;
// No "--" in a label: "xn--" labels are punycode, which WHATWG decodes and may refuse.

/** Links shown and fetched from `spec.info` and `spec.resources`, and their names. */
export const linkRules = errorRules({
  "moduletemplate.link": {
    summary: "a resource link (spec.resources) that is not an absolute http(s) or oci URL",
    realSystem: "the resources are fetched by their links; its CRD has format: uri on them",
    stricter: "a relative path has nothing to resolve against",
    upstream:
      "kyma-project/lifecycle-manager@c5b83f1 api/v1beta2/moduletemplate_types.go:188-194 (format=uri), 145-165",
    native: {
      by: "webhook",
      why: "WHATWG URL parsing (URL.canParse): CEL's url() is Go's url.Parse, which accepts other URLs",
      // Called for a link that is not surely valid: every link of that shape is an absolute http(s) URL
      // WHATWG accepts (a last label starting with a letter is no IPv4 address; a port below 10000).
      callWhen: notSurelyValid(resourceLinkFields),
    },
  },
  "moduletemplate.unique-name": {
    summary: "a name repeated in spec.resources or spec.info.icons",
    realSystem: "keeps them as maps keyed by name: the API server refuses duplicates",
    upstream:
      "kyma-project/lifecycle-manager@c5b83f1 api/v1beta2/moduletemplate_types.go:105-109, 152-156 (listType map)",
    native: {
      by: "schema",
      why: "Kyma's CRD keeps spec.resources and spec.info.icons as maps keyed by name (x-kubernetes-list-type: map)",
    },
  },
});

/** spec.info's links: shown by Kyma's UIs, never read by lifecycle-manager. */
export const infoLinkRules = warningRules({
  "moduletemplate.info-link": {
    summary:
      "a spec.info link (repository, documentation, an icon) that is not an absolute http(s) or oci URL",
    realSystem:
      "lifecycle-manager never reads spec.info and the API server stores any string: only Kyma's UIs show a broken link",
    upstream:
      "kyma-project/lifecycle-manager@c5b83f1 api/v1beta2/moduletemplate_types.go:145-165 (spec.info)",
    native: {
      by: "webhook",
      why: "WHATWG URL parsing (URL.canParse): CEL's url() is Go's url.Parse, which accepts other URLs",
      callWhen: notSurelyValid(infoLinkFields),
    },
  },
});

const specPath = FieldPath.root("spec");

/**
 * Links in spec.info, spec.info.icons and spec.resources are absolute http(s) or oci URLs (moduletemplate.link:
 * stricter than Kyma's CRD, whose `format: uri` takes `/path` and `ftp://`, because the lifecycle
 * manager's UIs fetch or open them), and names are unique within icons and resources
 * (moduletemplate.unique-name: both are maps keyed by name, which the API server enforces on its own).
 */
export function validateLinks(spec: Partial<ModuleTemplateSpec>, budget: WorkBudget): FieldErrorList {
  const errors: FieldErrorList = [];
  const infoPath = specPath.child("info");
  if (spec.info) {
    // Their links only warn (infoLinkWarnings, which parses them): only a repeated icon name is an
    // error here, which the API server refuses as well.
    errors.push(...namedLinkErrors(spec.info.icons ?? [], infoPath.child("icons"), budget, false));
  }
  errors.push(...namedLinkErrors(spec.resources ?? [], specPath.child("resources"), budget, true));
  return errors;
}

const nameStep = { as: "field", name: "name" } as const;
const linkStep = { as: "field", name: "link" } as const;

/** Units of the work budget per named link: a URL parsed, a name looked up (about 0.5 us). */
const linkUnits = 80;

function namedLinkErrors(
  entries: { name: string; link: string }[],
  path: FieldPath,
  budget: WorkBudget,
  checkLinks: boolean,
): FieldErrorList {
  budget.charge(linkUnits * entries.length, "checking links", path);
  // At most `limits.listErrors` errors of each rule are built, the rest counted in one more (and built
  // only for ratcheting an UPDATE): 50,000 bad links in an UPDATE's two objects built and ratcheted
  // 100,000 errors (200-460 ms).
  const duplicates = new ListErrors(
    path,
    "duplicate names",
    [nameStep],
    (i, name: string) =>
      Object.assign(fieldError.duplicate(path.index(i).child("name"), name), {
        rule: "moduletemplate.unique-name" as const,
      }),
    { byFinding: true },
  );
  const badLinks = new ListErrors(
    path,
    "not absolute http, https or oci URLs",
    [linkStep],
    // Only the link is kept of a counted one: its problem is found again if its error is ever built.
    (i, link: string) =>
      Object.assign(fieldError.invalid(path.index(i).child("link"), link, absoluteHttpUrlProblem(link)), {
        rule: "moduletemplate.link" as const,
      }),
    { byFinding: true, ofValueAlone: true },
  );
  // In the items' order, each item's name before its link; then what each rule counted.
  const errors: FieldErrorList = [];
  const listed = (error: FieldError | undefined) => error && errors.push(error);
  // Only names that repeat are tracked in the items' order (`repeatedStrings`; all, if one is no string).
  const repeated = repeatedStrings(entries.map((entry) => entry.name));
  const seen = new Set<string>();
  entries.forEach((entry, i) => {
    if (repeated === undefined || repeated.has(entry.name)) {
      if (seen.has(entry.name)) listed(duplicates.add(i, entry.name));
      seen.add(entry.name);
    }
    if (checkLinks && absoluteHttpUrlProblem(entry.link) !== undefined) listed(badLinks.add(i, entry.link));
  });
  return [...errors, ...duplicates.summary(), ...badLinks.summary()];
}

/**
 * spec.info's links that are not absolute http(s) or oci URLs (rule moduletemplate.info-link): warnings,
 * as lifecycle-manager never reads spec.info (`documentation: ""` is stored and changes nothing).
 */
export function infoLinkWarnings(spec: Partial<ModuleTemplateSpec>): { message: string; field: FieldPath }[] {
  const info = spec.info;
  if (!info) return [];
  const infoPath = specPath.child("info");
  const warnings: { message: string; field: FieldPath }[] = [];
  const warn = (field: FieldPath, link: string, problem: string) =>
    warnings.push({
      field,
      message: `${field}: ${JSON.stringify(link)}: ${problem}: Kyma's UIs cannot open it (lifecycle-manager does not read it)`,
    });
  for (const name of ["repository", "documentation"] as const) {
    const link = info[name];
    const problem = typeof link === "string" ? absoluteHttpUrlProblem(link) : undefined;
    if (problem !== undefined) warn(infoPath.child(name), link as string, problem);
  }
  // A link's path is made only for a link that warns (100,000 good icons made 100,000 paths).
  const icons = info.icons ?? [];
  for (let i = 0; i < icons.length; i++) {
    const link = icons[i]?.link;
    const problem = typeof link === "string" ? absoluteHttpUrlProblem(link) : undefined;
    if (problem !== undefined) warn(infoPath.child("icons").index(i).child("link"), link as string, problem);
  }
  return warnings;
}
