import type { IncomingHttpHeaders } from "node:http";
import { type RequestOptions, request } from "node:https";
import { isDeepStrictEqual } from "node:util";
import { admitOffline, type OfflineVerdict, type Problem } from "../../../src/offline/admit.js";
import { kindOf, type OfflineKind, offlineKinds } from "../../../src/offline/kinds.js";
import { ruleCatalogue } from "../../../src/resources/index.js";
import type { ControlPlane } from "../control-plane.js";
import { kymaNamespace } from "./kyma.js";
import type { DifferentialRun, Disagreement } from "./random.js";

/**
 * lifecycle-manager's own CRDs, installed in a real API server, as the oracle for the Kyma kinds'
 * schemas: each object is created there with `dryRun=All` (the server validates, defaults and prunes
 * it, and stores nothing) and judged offline by this project (`admitOffline`, what `validate` runs:
 * our CRD's schema and CEL, then the webhook). Where the server refuses, we must refuse with the same
 * causes (field, reason and message) from our CRD; where it accepts, our CRD must accept the same
 * object, store the same fields and warn of the same unknown ones, and the webhook may deny only by a
 * rule the catalogue declares stricter (`stricter`, listed in docs/rules.md): the test reads that list.
 */
export interface ServerVerdict {
  allowed: boolean;
  /** The HTTP status (201 created, 422 invalid, 400 bad request). */
  code: number;
  /** `field: message` for each cause, as kubectl shows them. */
  causes: string[];
  /** The Status message when refused. */
  message?: string;
  /** The warnings the server sent (unknown fields). */
  warnings: string[];
  /** The object as the server would store it. */
  stored?: Record<string, unknown>;
}

const plurals: Record<string, string> = {
  ModuleTemplate: "moduletemplates",
  ModuleReleaseMeta: "modulereleasemetas",
};

/** An admin HTTPS client of the control plane, for requests kubectl cannot show (dry runs, warnings). */
export async function dryRunClient(plane: ControlPlane) {
  const options: RequestOptions = {};
  await plane.kubeConfig().applyToHTTPSOptions(options as never);
  const post = (path: string, body: string) =>
    new Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>((resolve, reject) => {
      const req = request(
        `${plane.url}${path}`,
        { ...options, method: "POST", headers: { "content-type": "application/json" } },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => {
            text += chunk;
          });
          res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
        },
      );
      req.setTimeout(60_000, () => req.destroy(new Error("timeout")));
      req.on("error", reject);
      req.end(body);
    });
  /** The server's verdict on creating `object` in kcp-system, nothing stored. */
  return async (object: Record<string, unknown>): Promise<ServerVerdict> => {
    const plural = plurals[String(object.kind)];
    const path = `/apis/operator.kyma-project.io/v1beta2/namespaces/${kymaNamespace}/${plural}?dryRun=All&fieldValidation=Warn`;
    const answer = await post(path, JSON.stringify(object));
    const warnings = headerWarnings(answer.headers.warning);
    const body = JSON.parse(answer.body);
    if (answer.status === 201) return { allowed: true, code: 201, causes: [], warnings, stored: body };
    const causes = ((body.details?.causes ?? []) as { field?: string; message: string }[]).map((cause) =>
      cause.field ? `${cause.field}: ${cause.message}` : cause.message,
    );
    return { allowed: false, code: answer.status, causes, message: body.message, warnings };
  };
}

/** RFC 7234 warnings (`299 - "text"`) as texts. */
function headerWarnings(header: string | string[] | undefined): string[] {
  if (header === undefined) return [];
  const values = Array.isArray(header) ? header : [header];
  return values.flatMap((value) =>
    [...value.matchAll(/\d{3} \S+ "((?:[^"\\]|\\.)*)"/g)].map((match) => JSON.parse(`"${match[1]}"`)),
  );
}

let kinds: OfflineKind[] | undefined;

/** The rules the catalogue declares stricter than the real systems (docs/rules.md's list). */
export const stricterRules = (): ReadonlySet<string> =>
  new Set(
    ruleCatalogue()
      .flatMap(({ rules }) => rules)
      .filter((rule) => rule.stricter !== undefined)
      .map((rule) => rule.id),
  );

export interface KymaJudgement {
  server: ServerVerdict;
  ours: OfflineVerdict;
  /** The object as our CRD stores it (defaults, pruning). */
  stored: unknown;
  /** The message we refuse the object with while decoding it, as the API server does (400). */
  decodeMessages: string[];
}

/** Both verdicts on each object (at most `parallel` requests to the server at once). */
export async function judgeKymaObjects(
  serverVerdict: (object: Record<string, unknown>) => Promise<ServerVerdict>,
  objects: readonly Record<string, unknown>[],
  parallel = 4,
): Promise<KymaJudgement[]> {
  kinds ??= offlineKinds();
  const judged: KymaJudgement[] = new Array(objects.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < objects.length; i = next++) {
      const object = objects[i] as Record<string, unknown>;
      const kind = kindOf(kinds as OfflineKind[], object) as OfflineKind;
      const server = await serverVerdict(object);
      const ours = await admitOffline(kind, structuredClone(object));
      judged[i] = {
        server,
        ours,
        stored: kind.server.decode(structuredClone(object), false).object,
        decodeMessages: ours.errors.filter((problem) => problem.stage === "decode").map((p) => p.message),
      };
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return judged;
}

/** What the API server finds itself (no webhook is registered against it here). */
const crdStage = (problem: Problem) =>
  problem.stage === "decode" ||
  problem.stage === "metadata" ||
  problem.stage === "schema" ||
  problem.stage === "cel";

/** What the server keeps of an object that is ours to compare: the spec, labels and annotations. */
function content(object: unknown) {
  const { spec, metadata } = (object ?? {}) as { spec?: unknown; metadata?: Record<string, unknown> };
  return { spec, labels: metadata?.labels, annotations: metadata?.annotations };
}

/**
 * Where the two verdicts disagree, or undefined. `ts` says what we did: our CRD's causes, the
 * webhook's rules, our unknown-field warnings and what we would store.
 */
export function kymaDisagreement(
  input: unknown,
  { server, ours, stored, decodeMessages }: KymaJudgement,
  stricter: ReadonlySet<string> = stricterRules(),
): Disagreement | undefined {
  const crdCauses = ours.errors.filter(crdStage).map((problem) => problem.message);
  const webhook = ours.errors.filter((problem) => !crdStage(problem));
  // The warnings the API server gives itself: unknown fields, finalizer names.
  const unknownFields = ours.warnings.filter(crdStage).map((w) => w.message);
  const ts = { crdCauses, webhook: webhook.map((p) => p.rule ?? p.message), unknownFields };
  const go = { code: server.code, causes: server.causes, message: server.message, warnings: server.warnings };
  const disagree = (what: string) => ({ input, go: { ...go, what }, ts });
  if (!server.allowed) {
    if (ours.allowed) return disagree("the server refuses what we admit");
    // A request refused while decoding (400) has one message and no causes; of several fields that do
    // not decode, Go names the first it meets in a map's random order: any of ours.
    if (server.code === 400 && server.message !== undefined) {
      const message = server.message;
      if (!decodeMessages.some((ours) => sameMessages([ours], [message])))
        return disagree("our decoding differs from the server's");
      return undefined;
    }
    if (!sameMessages(crdCauses, server.causes)) return disagree("our CRD's causes differ from the server's");
    return undefined;
  }
  if (crdCauses.length > 0) return disagree("our CRD refuses what the server stores");
  const unexplained = webhook.filter((problem) => problem.rule === undefined || !stricter.has(problem.rule));
  if (unexplained.length > 0) return disagree("a denial by a rule not declared stricter");
  if (!isDeepStrictEqual([...unknownFields].sort(), [...server.warnings].sort()))
    return disagree("unknown-field warnings differ");
  if (!isDeepStrictEqual(content(stored), content(server.stored)))
    return { input, go: { ...go, stored: content(server.stored) }, ts: { ...ts, stored: content(stored) } };
  return undefined;
}

/**
 * The same messages, in any order. One documented difference: a value is shown cut at 200 characters
 * (`limits.valueChars`: a huge value cannot bloat a denial), where the API server shows all of it;
 * such a message is `<start>...<rest>` and the server's starts with <start> and ends with <rest>.
 */
export function sameMessages(ours: readonly string[], theirs: readonly string[]): boolean {
  if (ours.length !== theirs.length) return false;
  const left = [...theirs];
  for (const message of ours) {
    const cut = /^(.*?)\.\.\.(: .*)?$/s.exec(message);
    const at = left.findIndex(
      (their) =>
        their === message ||
        (cut !== null &&
          their.length > message.length &&
          their.startsWith(cut[1] as string) &&
          their.endsWith(cut[2] ?? "")),
    );
    if (at < 0) return false;
    left.splice(at, 1);
  }
  return true;
}

/** A differential run over objects: both verdicts on each, and every disagreement. */
export async function kymaDifferential(
  serverVerdict: (object: Record<string, unknown>) => Promise<ServerVerdict>,
  family: string,
  objects: readonly Record<string, unknown>[],
): Promise<DifferentialRun & { refused: number; deniedStricter: number }> {
  const judged = await judgeKymaObjects(serverVerdict, objects);
  const stricter = stricterRules();
  const disagreements = judged.flatMap((judgement, i) => {
    const found = kymaDisagreement(objects[i], judgement, stricter);
    return found ? [found] : [];
  });
  return {
    family,
    cases: objects.length,
    disagreements,
    refused: judged.filter((j) => !j.server.allowed).length,
    deniedStricter: judged.filter((j) => j.server.allowed && !j.ours.allowed).length,
  };
}
