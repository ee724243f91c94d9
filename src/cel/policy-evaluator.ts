import { type CelResult, celEnv, isCelError, isCelList, isCelMap, parse, plan } from "@bufbuild/cel";
import { RE2JS } from "@bufbuild/re2";
import type { PatchOperation } from "../admission/json-patch.js";
import { LruCache } from "../memo/lru-cache.js";
import type { JsonSchema } from "../schema/schema-source.js";
import { kubernetesFunctions } from "./kubernetes-library.js";
import { toCel } from "./to-cel.js";

/** What an admission policy sees of a request (the CEL variables `request`, `object`, `oldObject`). */
export interface PolicyRequest {
  operation: "CREATE" | "UPDATE";
  group: string;
  version: string;
  resource: string;
  object: unknown;
  /** The object before the update; none on CREATE. */
  oldObject?: unknown;
  name?: string;
  namespace?: string;
}

/** A ValidatingAdmissionPolicy's or a MutatingAdmissionPolicy's spec, as the chart installs it. */
export type PolicySpec = JsonSchema;

/** One validation that failed: its message (as the API server composes it), or the evaluation error. */
export interface PolicyFailure {
  message: string;
  /** The expression could not be evaluated (failurePolicy Fail turns that into a failure). */
  error?: boolean;
}

/** A policy's verdict: not matched (skipped), or every validation that failed. */
export interface PolicyVerdict {
  matched: boolean;
  failures: PolicyFailure[];
}

// Same engine as the API server's: RE2 (CEL's own `matches` compiles its pattern on every call).
const patterns = new LruCache<RE2JS>({ bytes: 4 * 1024 * 1024, entries: 256 });
const re2 = {
  compile: (pattern: string) =>
    patterns.getOrSet(
      pattern,
      () => RE2JS.compile(pattern),
      () => 512 * pattern.length,
    ),
};
const env = celEnv({ funcs: kubernetesFunctions, re2 });

type Program = (bindings: Record<string, unknown>) => CelResult;
const programs = new Map<string, Program | { error: string }>();

/** A compiled expression, once per text; a parse error is kept as the error the API server would give. */
function compile(expression: string): Program | { error: string } {
  let program = programs.get(expression);
  if (!program) {
    try {
      const planned = plan(env, parse(desugar(expression)));
      program = (bindings) => planned(bindings as never);
    } catch (error) {
      program = { error: (error as Error).message.split("\n")[0] ?? "compile error" };
    }
    programs.set(expression, program);
  }
  return program;
}

type Outcome = { value: unknown } | { error: string };

function run(expression: string, bindings: Record<string, unknown>): Outcome {
  const program = compile(expression);
  if ("error" in program) return { error: program.error };
  try {
    const result = program(bindings);
    return isCelError(result) ? { error: result.message } : { value: result };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/**
 * A MutatingAdmissionPolicy's `JSONPatch{op: ..., path: ..., value: ...}` (an object of the Kubernetes
 * type environment) as the map with the same fields, which @bufbuild/cel evaluates without that type.
 */
function desugar(expression: string): string {
  return expression.replace(
    /JSONPatch\{op: ("[^"]*"), path: ("[^"]*"), value: /g,
    "{'op': $1, 'path': $2, 'value': ",
  );
}

/** The CEL variables of one request: objects typed by the CRD's schema where there is one. */
export function policyBindings(
  request: PolicyRequest,
  schema: JsonSchema | undefined,
): Record<string, unknown> {
  const { object, oldObject } = request;
  const metadata = (object ?? {}) as { metadata?: { name?: unknown; namespace?: unknown } };
  return {
    object: toCel(object, schema, new Map(), false),
    oldObject: oldObject === undefined ? null : toCel(oldObject, schema, new Map(), false),
    request: toCel(
      {
        operation: request.operation,
        kind: { group: request.group, version: request.version },
        resource: { group: request.group, version: request.version, resource: request.resource },
        name: request.name ?? metadata.metadata?.name ?? "",
        namespace: request.namespace ?? metadata.metadata?.namespace ?? "",
        userInfo: { username: "offline" },
        dryRun: true,
      },
      undefined,
    ),
    params: null,
  };
}

/**
 * A matchCondition (a webhook's or a policy's) on one request: true, false, or the evaluation error the
 * API server would apply the failurePolicy to.
 */
export function evaluateCondition(
  expression: string,
  request: PolicyRequest,
  schema?: JsonSchema,
): boolean | { error: string } {
  const outcome = run(expression, policyBindings(request, schema));
  if ("error" in outcome) return { error: outcome.error };
  return outcome.value === true;
}

/** Whether a policy's matchConstraints (resource and operation) take the request. */
export function policyMatches(spec: PolicySpec, request: PolicyRequest): boolean {
  const rules = ((spec.matchConstraints as JsonSchema | undefined)?.resourceRules ?? []) as {
    apiGroups?: string[];
    apiVersions?: string[];
    resources?: string[];
    operations?: string[];
  }[];
  const takes = (list: string[] | undefined, value: string) =>
    !list || list.includes("*") || list.includes(value);
  return rules.some(
    (rule) =>
      takes(rule.apiGroups, request.group) &&
      takes(rule.apiVersions, request.version) &&
      takes(rule.resources, request.resource) &&
      takes(rule.operations, request.operation),
  );
}

/**
 * Evaluates a matched policy's matchConditions: true when all hold; with failurePolicy Fail, an
 * evaluation error is a failure of the whole policy, with Ignore it skips the policy.
 */
function conditionsHold(
  spec: PolicySpec,
  bindings: Record<string, unknown>,
): { holds: boolean; failure?: PolicyFailure } {
  const failOnError = spec.failurePolicy !== "Ignore";
  for (const condition of (spec.matchConditions ?? []) as { name: string; expression: string }[]) {
    const outcome = run(condition.expression, bindings);
    if ("error" in outcome) {
      if (!failOnError) return { holds: false };
      return {
        holds: false,
        failure: {
          message: `failed to evaluate matchCondition ${condition.name}: ${outcome.error}`,
          error: true,
        },
      };
    }
    if (outcome.value !== true) return { holds: false };
  }
  return { holds: true };
}

/**
 * A ValidatingAdmissionPolicy's verdict on one request, as the API server evaluates it: match, match
 * conditions, then every validation; a failed one's message is its messageExpression's (when it gives a
 * non-empty string), else its message. An evaluation error fails the validation under failurePolicy
 * Fail and is skipped under Ignore.
 */
export function evaluateValidatingPolicy(
  spec: PolicySpec,
  request: PolicyRequest,
  schema?: JsonSchema,
): PolicyVerdict {
  if (!policyMatches(spec, request)) return { matched: false, failures: [] };
  const bindings = policyBindings(request, schema);
  const conditions = conditionsHold(spec, bindings);
  if (!conditions.holds)
    return {
      matched: conditions.failure !== undefined,
      failures: conditions.failure ? [conditions.failure] : [],
    };
  const failOnError = spec.failurePolicy !== "Ignore";
  const failures: PolicyFailure[] = [];
  for (const validation of (spec.validations ?? []) as {
    expression: string;
    message?: string;
    messageExpression?: string;
  }[]) {
    const outcome = run(validation.expression, bindings);
    if ("error" in outcome) {
      if (failOnError)
        failures.push({
          message: `expression '${validation.expression}' resulted in error: ${outcome.error}`,
          error: true,
        });
      continue;
    }
    if (outcome.value === true) continue;
    const computed = validation.messageExpression ? run(validation.messageExpression, bindings) : undefined;
    const message =
      computed && "value" in computed && typeof computed.value === "string" && computed.value.trim() !== ""
        ? computed.value
        : (validation.message ?? `failed expression: ${validation.expression}`);
    failures.push({ message });
  }
  return { matched: true, failures };
}

/** One JSON Patch operation a MutatingAdmissionPolicy gives (as a webhook's patch). */
export type PolicyPatch = PatchOperation;

/**
 * A MutatingAdmissionPolicy's JSON Patch for one request (JSONPatch mutations), or none when it does not
 * match; an evaluation error is returned as such (the policy's failurePolicy decides).
 */
export function evaluateMutatingPolicy(
  spec: PolicySpec,
  request: PolicyRequest,
  schema?: JsonSchema,
): { patch: PolicyPatch[] } | { error: string } | undefined {
  if (!policyMatches(spec, request)) return undefined;
  const bindings = policyBindings(request, schema);
  const conditions = conditionsHold(spec, bindings);
  if (conditions.failure) return { error: conditions.failure.message };
  if (!conditions.holds) return undefined;
  const patch: PolicyPatch[] = [];
  for (const mutation of (spec.mutations ?? []) as {
    patchType: string;
    jsonPatch?: { expression: string };
  }[]) {
    if (mutation.patchType !== "JSONPatch" || !mutation.jsonPatch)
      return { error: `patch type ${mutation.patchType} is not evaluated offline` };
    const outcome = run(mutation.jsonPatch.expression, bindings);
    if ("error" in outcome) return { error: outcome.error };
    patch.push(...(toJson(outcome.value) as PolicyPatch[]));
  }
  return { patch };
}

/** A CEL result as JSON: ints as numbers, lists and maps as arrays and objects. */
export function toJson(value: unknown): unknown {
  if (typeof value === "bigint") return Number(value);
  if (isCelMap(value))
    return Object.fromEntries([...value.entries()].map(([k, v]) => [String(k), toJson(v)]));
  if (isCelList(value)) return [...value].map(toJson);
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [String(k), toJson(v)]));
  if (Array.isArray(value)) return value.map(toJson);
  return value;
}
