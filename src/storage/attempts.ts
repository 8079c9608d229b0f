/**
 * Attempts of the accounts' guessing limits shared by the replicas of one PostgreSQL live store
 * (D219): one row per attempt under the SHA-256 of the limit's name and the key (an address, a
 * client address, a user id), checked and counted in one transaction that holds a lock on that
 * key, so parallel attempts on any replicas cannot pass a limit together.
 */
import { createHash } from 'node:crypto';

export interface SharedAttempts {
  /**
   * 0 when fewer than `limit` attempts of `key` were counted within `windowMs` before `now` (then
   * this one is counted when `count`), else the seconds until the oldest leaves the window.
   */
  take(key: string, limit: number, windowMs: number, now: number, count: boolean): Promise<number>;
  /** Counts an attempt at `now` whatever the count. */
  count(key: string, now: number): Promise<void>;
  /** Takes back one attempt counted at `at` (a login that turned out right). */
  release(key: string, at: number): Promise<void>;
}

/** The stored key of an attempt: no address or client address reaches the store. */
export function attemptKey(limit: string, key: string): string {
  return createHash('sha256').update(`${limit}\n${key}`).digest('hex');
}

/** Rows older than this are deleted with the next attempt after PRUNE_EVERY_MS (the longest window is an hour). */
export const PRUNE_AFTER_MS = 86_400_000;
export const PRUNE_EVERY_MS = 600_000;
