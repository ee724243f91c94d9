/**
 * How the API server reads two parts of the rendered manifests, so tests check what they mean rather
 * than how they are written: label selectors and RBAC rules.
 */

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

export function selectorMatches(selector: LabelSelector, labels: Record<string, string>): boolean {
  const byLabel = Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
  const byExpression = (selector.matchExpressions ?? []).every(({ key, operator, values = [] }) => {
    const value = labels[key];
    switch (operator) {
      case "In":
        return value !== undefined && values.includes(value);
      case "NotIn":
        return value === undefined || !values.includes(value);
      case "Exists":
        return value !== undefined;
      case "DoesNotExist":
        return value === undefined;
      default:
        throw new Error(`unknown selector operator ${operator}`);
    }
  });
  return byLabel && byExpression;
}

/** The labels every namespace carries from the API server (1.21+). */
export function namespaceLabels(name: string): Record<string, string> {
  return { "kubernetes.io/metadata.name": name };
}

export interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  verbs: string[];
}

export interface Access {
  verb: string;
  group: string;
  resource: string;
  name?: string;
}

/** RBAC's rule: a request is allowed when one rule covers verb, group, resource and (if listed) name. */
export function rulesAllow(rules: PolicyRule[], access: Access): boolean {
  return rules.some(
    (rule) =>
      covers(rule.verbs, access.verb) &&
      covers(rule.apiGroups ?? [], access.group) &&
      covers(rule.resources ?? [], access.resource) &&
      (rule.resourceNames === undefined ||
        rule.resourceNames.length === 0 ||
        (access.name !== undefined && rule.resourceNames.includes(access.name))),
  );
}

function covers(list: string[], item: string): boolean {
  return list.includes("*") || list.includes(item);
}
