/**
 * Price profiles in the live store (table `price_profiles`, migration 6, D196): stored once under
 * the id derived from their normalised form, renewed by use, deleted once expired.
 */
import type { LiveStore } from './live.js';

export interface StoredProfile {
  /** The normalised profile as JSON text. */
  body: string;
  last_used_at: number;
}

export class PriceProfileStore {
  constructor(private readonly live: LiveStore) {}

  /**
   * Stores the profile, or renews it when it is there and not expired; in the same transaction
   * deletes the profiles unused since `now - ttlMs`. A new profile is stored only when `mayCreate`
   * (else 'refused'), and then the least recently used beyond `max` are deleted (D261).
   */
  put(id: string, body: string, ttlMs: number, now = Date.now(), mayCreate = true, max = Infinity): Promise<'created' | 'renewed' | 'refused'> {
    return this.live.tx(async (s) => {
      await s.run('DELETE FROM price_profiles WHERE last_used_at < ?', [now - ttlMs]);
      const renewed = await s.run('UPDATE price_profiles SET last_used_at = ? WHERE id = ?', [now, id]);
      if (renewed > 0) return 'renewed';
      if (!mayCreate) return 'refused';
      await s.run('INSERT INTO price_profiles(id, body, created_at, last_used_at) VALUES (?, ?, ?, ?)', [id, body, now, now]);
      if (Number.isFinite(max)) {
        // The newest `max` stay: the use time of the max-th newest bounds the rest (indexed by last use).
        const edge = await s.get<{ t: number }>('SELECT last_used_at AS t FROM price_profiles ORDER BY last_used_at DESC, id DESC LIMIT 1 OFFSET ?', [max]);
        if (edge !== undefined) await s.run('DELETE FROM price_profiles WHERE last_used_at <= ? AND id <> ?', [Number(edge.t), id]);
      }
      return 'created';
    });
  }

  /** The profile when it is there and was used since `now - ttlMs`. */
  get(id: string, ttlMs: number, now = Date.now()): Promise<StoredProfile | undefined> {
    return this.live.read((s) => s.get<StoredProfile>('SELECT body, last_used_at FROM price_profiles WHERE id = ? AND last_used_at >= ?', [id, now - ttlMs]));
  }

  /** Records a use (renews the profile); false when it is gone or expired (an expired one is never revived). */
  async touch(id: string, now: number, ttlMs: number): Promise<boolean> {
    return (await this.live.tx((s) => s.run('UPDATE price_profiles SET last_used_at = ? WHERE id = ? AND last_used_at >= ?', [now, id, now - ttlMs]))) > 0;
  }
}
