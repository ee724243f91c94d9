/**
 * A seeded random source for the differential generators: the same seed gives the same cases on every
 * machine, so a disagreement found by `npm run fuzz:oracle` is replayed by its seed and index.
 */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0 || 1;
  }

  /** A float in [0, 1) (mulberry32). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.next() * list.length)] as T;
  }

  /** `count` picks joined (count drawn from [min, max]). */
  join(parts: readonly string[], min: number, max: number, separator = ""): string {
    return Array.from({ length: this.int(min, max) }, () => this.pick(parts)).join(separator);
  }
}

/** One disagreement between Go and the TypeScript port: the input and what each said. */
export interface Disagreement {
  input: unknown;
  go: unknown;
  ts: unknown;
}

/** A family's differential run: how many cases, and where Go and the port disagree. */
export interface DifferentialRun {
  family: string;
  cases: number;
  disagreements: Disagreement[];
}

/** The disagreements as lines for an assertion message, the first `limit` of them. */
export function describeDisagreements(run: DifferentialRun, limit = 10): string {
  const lines = run.disagreements
    .slice(0, limit)
    .map(
      (d) =>
        `  input ${JSON.stringify(d.input)}\n    go: ${JSON.stringify(d.go)}\n    ts: ${JSON.stringify(d.ts)}`,
    );
  return `${run.family}: ${run.disagreements.length} of ${run.cases} disagree\n${lines.join("\n")}`;
}
