/**
 * API keys in the live store: names, SHA-256 hashes and groups; never the keys. Every creation
 * and revocation bumps the key generation (migration 005), which replicas watch (D151).
 */
import type { ApiKeyRow, Sql } from './live.js';

export function activeKeys(s: Sql): Promise<ApiKeyRow[]> {
  return s.all<ApiKeyRow>('SELECT * FROM api_keys WHERE revoked_at IS NULL ORDER BY name');
}

export function allKeys(s: Sql): Promise<ApiKeyRow[]> {
  return s.all<ApiKeyRow>('SELECT * FROM api_keys ORDER BY name');
}

export async function activeKeyCount(s: Sql): Promise<number> {
  return (await s.get<{ n: number }>('SELECT count(*) AS n FROM api_keys WHERE revoked_at IS NULL'))!.n;
}

export async function hasKeyName(s: Sql, name: string): Promise<boolean> {
  return (await s.get('SELECT 1 AS one FROM api_keys WHERE name = ?', [name])) !== undefined;
}

export async function hasKeyHash(s: Sql, keyHash: string): Promise<boolean> {
  return (await s.get('SELECT 1 AS one FROM api_keys WHERE key_hash = ?', [keyHash])) !== undefined;
}

/** The key generation (moves with every creation and revocation). */
export async function keyGeneration(s: Sql): Promise<number> {
  return (await s.get<{ value: number }>('SELECT value FROM key_generation WHERE one = 1'))!.value;
}

const bump = (s: Sql): Promise<number> => s.run('UPDATE key_generation SET value = value + 1 WHERE one = 1');

export async function insertKey(s: Sql, name: string, keyHash: string, groups: readonly string[]): Promise<void> {
  await s.run('INSERT INTO api_keys(name, key_hash, groups, created_at) VALUES (?, ?, ?, ?)', [name, keyHash, groups.join(','), Date.now()]);
  await bump(s);
}

/** Marks a key revoked; false when no active key has that name. */
export async function revokeKey(s: Sql, name: string): Promise<boolean> {
  const n = await s.run('UPDATE api_keys SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL', [Date.now(), name]);
  if (n === 1) await bump(s);
  return n === 1;
}
