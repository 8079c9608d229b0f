/**
 * Rate-limit counts shared by the replicas of one PostgreSQL live store (D218): each replica adds
 * what it counted since its last exchange and reads back every replica's counts of the keys it
 * serves, in one statement, a few times a second; requests are decided on the counts in memory.
 */

/**
 * Requests of a key in one bucket of one window (`policy` 0: all keyed routes, 1: price work;
 * `bucket`: the bucket number, time ÷ the window's bucket length, alike on replicas with the same
 * limits).
 */
export interface BucketCount {
  key: string;
  policy: number;
  bucket: number;
  count: number;
}

export interface SharedCounters {
  /**
   * Adds `deltas` to the stored counts and answers every stored count of `keys` from bucket
   * `since[policy]` on (the added ones with their new totals).
   */
  exchange(deltas: readonly BucketCount[], keys: readonly string[], since: readonly [number, number]): Promise<BucketCount[]>;
  /** Deletes the buckets before `before[policy]`. */
  prune(before: readonly [number, number]): Promise<void>;
}

/** Deltas in one order (key, policy, bucket), so concurrent exchanges lock their rows alike and cannot deadlock. */
export function inLockOrder(deltas: readonly BucketCount[]): BucketCount[] {
  return [...deltas].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.policy - b.policy || a.bucket - b.bucket));
}
