/**
 * Metric series for the review path, in the shape prom-client's Registry renders and its
 * AggregatorRegistry sums across workers (`get()` as prom-client's own metrics answer it). Each series
 * is found by a Map lookup on its label value and updated in place: prom-client hashes the label
 * values on every update, which with five updates per review cost about a tenth of a review's CPU.
 * Label values come from the served paths, HTTP codes and kinds only, so the series stay few.
 */

type LabelValues = Record<string, string>;

interface MetricValue {
  value: number;
  labels: LabelValues;
  metricName?: string;
}

interface MetricDescription {
  name: string;
  help: string;
}

/** What prom-client's Registry reads of a metric. */
export interface RegistrableMetric extends MetricDescription {
  type: "counter" | "gauge" | "histogram";
  aggregator: "sum";
  get(): Promise<MetricDescription & { type: string; aggregator: "sum"; values: MetricValue[] }>;
}

abstract class Series<T> implements RegistrableMetric {
  abstract readonly type: "counter" | "gauge" | "histogram";
  readonly aggregator = "sum" as const;
  protected readonly series = new Map<string, { labels: LabelValues; state: T }>();

  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  /** The state of the series with these label values (`key` identifies them), created at first use. */
  protected stateOf(key: string, labels: () => LabelValues, create: () => T): T {
    let entry = this.series.get(key);
    if (!entry) {
      entry = { labels: labels(), state: create() };
      this.series.set(key, entry);
    }
    return entry.state;
  }

  protected abstract values(labels: LabelValues, state: T): MetricValue[];

  async get() {
    const values = [...this.series.values()].flatMap(({ labels, state }) => this.values(labels, state));
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}

/** A counter or gauge: one number per combination of label values. */
export class CounterSeries extends Series<{ value: number }> {
  constructor(
    readonly type: "counter" | "gauge",
    name: string,
    help: string,
    private readonly labelNames: readonly string[],
  ) {
    super(name, help);
  }

  /** The series for these label values (in the order of the label names): a live cell to add to. */
  cell(...labelValues: string[]): { value: number } {
    return this.stateOf(
      labelValues.join("\u0000"),
      () => Object.fromEntries(this.labelNames.map((label, i) => [label, labelValues[i] ?? ""])),
      () => ({ value: 0 }),
    );
  }

  protected values(labels: LabelValues, state: { value: number }): MetricValue[] {
    return [{ value: state.value, labels }];
  }
}

interface HistogramState {
  /** Observations per bucket, not cumulative; the last is +Inf. */
  counts: Float64Array;
  sum: number;
  count: number;
}

/** A histogram with one label and prom-client's default buckets. */
export class PathHistogram extends Series<HistogramState> {
  readonly type = "histogram" as const;
  static readonly defaultBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

  constructor(
    name: string,
    help: string,
    private readonly labelName: string,
    private readonly buckets: readonly number[] = PathHistogram.defaultBuckets,
  ) {
    super(name, help);
  }

  /** The series for `labelValue`; `observe` it directly. */
  cell(labelValue: string): HistogramState {
    return this.stateOf(
      labelValue,
      () => ({ [this.labelName]: labelValue }),
      () => ({ counts: new Float64Array(this.buckets.length + 1), sum: 0, count: 0 }),
    );
  }

  observe(state: HistogramState, value: number): void {
    let bucket = 0;
    while (bucket < this.buckets.length && value > (this.buckets[bucket] as number)) bucket++;
    state.counts[bucket] = (state.counts[bucket] ?? 0) + 1;
    state.sum += value;
    state.count++;
  }

  protected values(labels: LabelValues, state: HistogramState): MetricValue[] {
    const values: MetricValue[] = [];
    let cumulative = 0;
    const bounds = [...this.buckets.map(String), "+Inf"];
    for (const [i, le] of bounds.entries()) {
      cumulative += state.counts[i] ?? 0;
      values.push({ value: cumulative, labels: { le, ...labels }, metricName: `${this.name}_bucket` });
    }
    values.push({ value: state.sum, labels, metricName: `${this.name}_sum` });
    values.push({ value: state.count, labels, metricName: `${this.name}_count` });
    return values;
  }
}
