/**
 * A latency histogram as Prometheus counts it (D120): counts per bucket (not cumulative), the sum
 * and the count, in seconds. `observe` is a few comparisons and additions, no allocation.
 */

/** Bucket bounds in seconds (0.5 ms … 5 s), shared by every latency histogram of the service. */
export const LATENCY_BUCKETS_S: readonly number[] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

export class Histogram {
  /** Observations per bucket (the last bound's overflow is only in `count`). */
  readonly counts = new Float64Array(LATENCY_BUCKETS_S.length);
  sum = 0;
  count = 0;

  observe(seconds: number): void {
    let k = 0;
    while (k < LATENCY_BUCKETS_S.length && seconds > LATENCY_BUCKETS_S[k]) k++;
    if (k < LATENCY_BUCKETS_S.length) this.counts[k]++;
    this.sum += seconds;
    this.count++;
  }
}
