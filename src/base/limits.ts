import { Buffer } from "node:buffer";

/**
 * The service's operating bounds: what one request may be, what one review may cost, what one answer
 * may say, the numbers an operator sizing the webhook needs (docs/operations.md lists them). The API
 * server stores at most 3 MiB per object, but one object can still produce millions of errors or a
 * value echoed in each; these keep every review bounded in time and memory and every answer small
 * enough to build, send and read. Not every bound of the project is here: a cap internal to one
 * algorithm (a cache's size, a search's width, a fixpoint's passes) and a bound that copies a ported
 * system's own (Go's template nesting, the YAML alias count) stay beside the code they bound, as part
 * of it; a bound that two layers share or an operator would tune belongs here.
 */
export const limits = {
  /**
   * A request body: the API server sends at most 3 MiB objects; room for the old object and the
   * envelope. What is judged in full is less (docs/operations.md, Memory): an UPDATE carries two
   * objects, and one worker's heap and deadline hold about 3 MiB of the densest JSON (empty objects)
   * for both together; a CRD-valid UPDATE of empty objects, 3.0 MB new and 1.2 MB old, is denied
   * (webhook.work-budget: 715-857 ms of process CPU at load 22, JSON.parse of it 220 ms).
   */
  bodyBytes: 7 * 1024 * 1024,
  /** An object as JSON: the API server's limit (etcd's request size, less the envelope). */
  objectBytes: 3 * 1024 * 1024,
  /**
   * How deep an object may nest. The API server's JSON decoder stops at 10,000 levels; rules, JSON
   * Patch diffs and deep comparisons recurse, and at a few thousand levels a recursive function runs
   * out of stack. No Module, chart values or ConfigMap needs more than a few dozen levels, so 1,000 is
   * the bound: deliberately stricter than the API server, and checked before any rule runs.
   */
  depth: 1000,
  /** A request's uid, which the answer repeats whole; the API server sends a UUID. */
  uidChars: 256,
  /**
   * Units of work per review. Calibrated (issue 21) by the cheapest unit charged, one cell of an edit
   * distance's table: 20 million of them took 110-125 ms of CPU on the 2-core development machine,
   * about 6 ns each. 12 million units are then about 70 ms, leaving the rest of the 100 ms a review may
   * cost for what no budget charges (JSON parsing, TLS, the answer).
   */
  workUnits: 12_000_000,
  /**
   * Characters of template output one review may render, all its templates together (each execution's
   * output and every value printed as a template's output is checked). Helm keeps a release, its values
   * and its rendered manifest included, in one Secret, which the API server caps at 1 MiB (compressed),
   * so a Module rendering megabytes of values has no room left in its release; 3 MiB, the largest
   * object the API server stores, is far beyond any real chart's values, and it bounds the memory a
   * review may fill with output (stricter: the operator would try to render more).
   */
  renderedChars: 3 * 1024 * 1024,
  /**
   * Open connections at most. Each costs TLS and socket buffers (tens of KB); a few API servers keep
   * at most about a hundred each, so 512 leaves room for them and bounds what a flood of idle
   * connections costs (about 50 MiB) in a pod limited to 256 MiB. Connections over it are closed at once.
   */
  connections: 512,
  /**
   * Reviews waiting for a review worker at most; one more is answered 429 at once. Their bytes count
   * against the memory budget (`serve --memory-budget`); this bounds how long the last one waits: a
   * review costs about a millisecond of a worker, so 128 behind two workers wait well under the API
   * server's timeout, while reviews that run to their deadline are shed rather than queued for minutes.
   */
  queuedReviews: 128,
  /**
   * User regular expressions (RE2), as RE2's own `max_mem`: instructions of one compiled pattern (Go
   * accepts up to about 3.3 million; real patterns use tens), of all the patterns of one schema
   * together (compiling them costs about 100 ms), and characters of a value matched against one.
   */
  re2: { programInstructions: 2_000, schemaInstructions: 10_000, inputChars: 64 * 1024 },
  /** Causes in one denial; apimachinery's convention is to cut the list with a final "and N more". */
  causes: 100,
  /** Errors one rule reports for the items of one list; the rest are counted in one more error. */
  listErrors: 50,
  /** Characters of one cause's message (value and detail) and of one field path. */
  messageChars: 1024,
  fieldChars: 512,
  /** Characters of an echoed value inside a message, as apimachinery's field errors cut long values. */
  valueChars: 200,
  /** The API server keeps at most 4 KiB of warnings per request (and drops those over 120 characters). */
  warningBytes: 4096,
  warningChars: 120,
  /**
   * A manifest file `validate` reads: many objects of at most 3 MiB each, and far more than any
   * repository's manifests hold (the largest CRD bundles are a few MiB); past it the file is reported,
   * not read, so a file a pull request adds cannot fill the CI runner's memory.
   */
  manifestFileBytes: 32 * 1024 * 1024,
  /** The serialized AdmissionReview; beyond it the answer is a short code 500 denial. */
  answerBytes: 1024 * 1024,
} as const;

/** `text`, cut to `max` characters with a trailing "..." when it is longer. */
export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 3)}...`;
}

/**
 * JSON for `value`, cut after about `max` characters without serializing the rest: a 3 MiB value
 * echoed in each of 100 causes must not cost 300 MiB.
 */
export function boundedJson(value: unknown, max: number): string {
  const parts: string[] = [];
  let length = 0;
  const add = (text: string) => {
    parts.push(text);
    length += text.length;
  };
  const write = (node: unknown): void => {
    if (length > max) return;
    if (typeof node === "string") add(JSON.stringify(node.length > max ? node.slice(0, max + 1) : node));
    else if (Array.isArray(node)) {
      add("[");
      for (let i = 0; i < node.length && length <= max; i++) {
        if (i > 0) add(",");
        write(node[i] === undefined ? null : node[i]);
      }
      add("]");
    } else if (node !== null && typeof node === "object") {
      add("{");
      let first = true;
      // Go's encoding/json writes a map's keys sorted; a huge object is not sorted (its text is cut anyway).
      const keys = Object.keys(node);
      if (keys.length <= 1000) keys.sort();
      for (const key of keys) {
        if (length > max) break;
        const item = (node as Record<string, unknown>)[key];
        if (item === undefined || typeof item === "function") continue;
        add(`${first ? "" : ","}${JSON.stringify(key.length > max ? key.slice(0, max + 1) : key)}:`);
        first = false;
        write(item);
      }
      add("}");
    } else add(typeof node === "bigint" ? String(node) : (JSON.stringify(node) ?? "null"));
  };
  write(value);
  const json = parts.join("");
  return json.length > max ? `${json.slice(0, max)}...` : json;
}

/**
 * Warnings as the API server keeps them: each at most 120 characters, all together at most 4 KiB.
 * When some do not fit, the last one kept says how many were left out. Structured warnings keep their
 * rule and field.
 */
export function boundWarnings<W extends string | { message: string }>(
  warnings: readonly W[],
): (W | string)[] {
  const kept: (W | string)[] = [];
  let bytes = 0;
  for (const [i, warning] of warnings.entries()) {
    const text = typeof warning === "string" ? warning : warning.message;
    const fitted = truncate(text, limits.warningChars);
    const size = Buffer.byteLength(fitted);
    // Room for the closing note (at most 40 bytes) unless this is the last warning.
    const reserve = i === warnings.length - 1 ? 0 : 40;
    if (bytes + size + reserve > limits.warningBytes) {
      kept.push(`... and ${warnings.length - i} more warnings`);
      return kept;
    }
    kept.push(
      fitted === text
        ? warning
        : typeof warning === "string"
          ? fitted
          : ({ ...(warning as object), message: fitted } as W),
    );
    bytes += size;
  }
  return kept;
}
