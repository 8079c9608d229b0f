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
   * deletes the profiles unused since `now - ttlMs`. True when it was new.
   */
  put(id: string, body: string, ttlMs: number, now = Date.now()): Promise<boolean> {
    return this.live.tx(async (s) => {
      await s.run('DELETE FROM price_profiles WHERE last_used_at < ?', [now - ttlMs]);
      const renewed = await s.run('UPDATE price_profiles SET last_used_at = ? WHERE id = ?', [now, id]);
      if (renewed > 0) return false;
      await s.run('INSERT INTO price_profiles(id, body, created_at, last_used_at) VALUES (?, ?, ?, ?)', [id, body, now, now]);
      return true;
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
