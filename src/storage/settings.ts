/** Settings of the live store (the token secret, seed markers): key → text. */
import type { Sql } from './live.js';

export async function getSetting(s: Sql, key: string): Promise<string | null> {
  return (await s.get<{ value: string }>('SELECT value FROM settings WHERE key = ?', [key]))?.value ?? null;
}

export async function setSetting(s: Sql, key: string, value: string): Promise<void> {
  await s.run('INSERT INTO settings(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value', [key, value]);
}
