/**
 * Accounts in the live store (migration 7, D200–D214): users, settings, refresh-token families,
 * mail tokens, product sources and grants. Every method is one transaction or one consistent
 * read; tokens and codes arrive here already hashed (SHA-256 hex), never in clear.
 */
import crypto from 'node:crypto';
import type { LiveStore, Sql } from './live.js';
import { getSetting, setSetting } from './settings.js';

const SOURCE_KEY_SETTING = 'product_source_key';

export interface UserRow {
  id: string;
  email: string;
  username: string;
  language: string;
  password_hash: string;
  confirmed_at: number | null;
  /** Access tokens carry it; a password reset increments it (D244). */
  token_gen: number;
}

export interface NewUser {
  id: string;
  email: string;
  username: string;
  language: string;
  password_hash: string;
}

export interface StoredSettings {
  version: number;
  vehicle_id: string;
  tariff_ids: string[];
  /** Names of the user's products, sorted. */
  products: string[];
}

export type MailPurpose = 'confirm' | 'reset';

export type RotateResult = { ok: true; user: UserRow; grace: boolean } | { ok: false; reason: 'unknown' | 'reused' | 'expired' };

/** What a settings `PUT` did (D242): written as sent, merged into newer settings, or nothing. */
export type SettingsWrite = 'written' | 'merged' | 'unchanged';

/** Versions of each user's settings kept as bases of merges (D242). */
export const SETTINGS_HISTORY = 20;

export type ActivateResult = { ok: true; products: string[] } | { ok: false; reason: 'not_found' | 'used' };

export interface SourceRow {
  type: string;
  products: string[];
  created_at: number;
  used_at: number | null;
}

const USER_COLUMNS = 'id, email, username, language, password_hash, confirmed_at, token_gen';

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

const userOf = (r: UserRow): UserRow => ({ ...r, confirmed_at: num(r.confirmed_at), token_gen: Number(r.token_gen) });

async function products(s: Sql, userId: string): Promise<string[]> {
  const rows = await s.all<{ product: string }>('SELECT product FROM user_products WHERE user_id = ? ORDER BY product', [userId]);
  return rows.map((r) => r.product);
}

async function settingsIn(s: Sql, userId: string): Promise<StoredSettings | undefined> {
  const r = await s.get<{ version: number; vehicle_id: string; tariff_ids: string }>(
    'SELECT version, vehicle_id, tariff_ids FROM user_settings WHERE user_id = ?',
    [userId],
  );
  if (r === undefined) return undefined;
  return { version: Number(r.version), vehicle_id: r.vehicle_id, tariff_ids: JSON.parse(r.tariff_ids) as string[], products: await products(s, userId) };
}

const INSERT_REFRESH = 'INSERT INTO refresh_tokens(hash, user_id, family, created_at, expires_at, used_at, revoked_at) VALUES (?, ?, ?, ?, ?, NULL, NULL)';

/** Expired mail tokens cannot be used: each new one deletes them (D244). */
const purgeMailTokens = (s: Sql, now: number): Promise<number> => s.run('DELETE FROM mail_tokens WHERE expires_at <= ?', [now]);

/** Accounts whose address nobody confirmed within this long are deleted (D249). */
export const UNCONFIRMED_TTL_MS = 7 * 86_400_000;

/**
 * D249: deletes accounts never confirmed within UNCONFIRMED_TTL_MS (with their mail tokens; such
 * an account cannot log in, so it has no settings, refresh tokens, products or devices).
 */
async function purgeUnconfirmed(s: Sql, now: number): Promise<void> {
  const old = 'SELECT id FROM users WHERE confirmed_at IS NULL AND created_at < ?';
  await s.run(`DELETE FROM mail_tokens WHERE user_id IN (${old})`, [now - UNCONFIRMED_TTL_MS]);
  await s.run('DELETE FROM users WHERE confirmed_at IS NULL AND created_at < ?', [now - UNCONFIRMED_TTL_MS]);
}

type SettingsValue = Omit<StoredSettings, 'products'>;

async function settingsVersion(s: Sql, userId: string, version: number): Promise<SettingsValue | undefined> {
  const r = await s.get<{ vehicle_id: string; tariff_ids: string }>('SELECT vehicle_id, tariff_ids FROM user_settings_history WHERE user_id = ? AND version = ?', [userId, version]);
  return r === undefined ? undefined : { version, vehicle_id: r.vehicle_id, tariff_ids: JSON.parse(r.tariff_ids) as string[] };
}

/**
 * D242: the change `sent` made from `base`, applied to `stored` (the vehicle when it differs from
 * the base; tariffs added after the stored ones, removed ones left out); undefined when that
 * changes nothing.
 */
export function mergeSettings(stored: SettingsValue, base: SettingsValue, sent: SettingsValue): Omit<SettingsValue, 'version'> | undefined {
  const vehicle_id = sent.vehicle_id !== base.vehicle_id ? sent.vehicle_id : stored.vehicle_id;
  const before = new Set(base.tariff_ids);
  const now = new Set(sent.tariff_ids);
  const kept = stored.tariff_ids.filter((id) => !before.has(id) || now.has(id));
  const have = new Set(kept);
  for (const id of sent.tariff_ids) {
    if (before.has(id) || have.has(id)) continue;
    kept.push(id);
    have.add(id);
  }
  const same = vehicle_id === stored.vehicle_id && kept.length === stored.tariff_ids.length && kept.every((id, i) => id === stored.tariff_ids[i]);
  return same ? undefined : { vehicle_id, tariff_ids: kept };
}

/** Writes `v` as the user's settings and keeps it among the last SETTINGS_HISTORY versions (D242). */
async function storeSettings(s: Sql, userId: string, v: SettingsValue, now: number): Promise<void> {
  const tariffs = JSON.stringify(v.tariff_ids);
  await s.run(
    `INSERT INTO user_settings(user_id, version, vehicle_id, tariff_ids, updated_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT(user_id) DO UPDATE SET version = excluded.version, vehicle_id = excluded.vehicle_id,
       tariff_ids = excluded.tariff_ids, updated_at = excluded.updated_at`,
    [userId, v.version, v.vehicle_id, tariffs, now],
  );
  await s.run(
    `INSERT INTO user_settings_history(user_id, version, vehicle_id, tariff_ids) VALUES (?, ?, ?, ?)
     ON CONFLICT(user_id, version) DO UPDATE SET vehicle_id = excluded.vehicle_id, tariff_ids = excluded.tariff_ids`,
    [userId, v.version, v.vehicle_id, tariffs],
  );
  await s.run('DELETE FROM user_settings_history WHERE user_id = ? AND version <= ?', [userId, v.version - SETTINGS_HISTORY]);
}

export class AccountStore {
  constructor(private readonly live: LiveStore) {}

  /**
   * Creates the user with a confirmation token `tokenHash`; when the address is taken, stores
   * `tokenHash` for the existing user as a reset token instead, so both cases write alike (D206:
   * no enumeration through timing).
   */
  createUser(u: NewUser, tokenHash: string, expiry: { confirm: number; reset: number }, now = Date.now()): Promise<{ created: boolean; user: UserRow }> {
    return this.live.tx(async (s) => {
      const known = await s.get<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE email = ?`, [u.email]);
      const user = known === undefined ? { ...u, confirmed_at: null, token_gen: 0 } : userOf(known);
      if (known === undefined) {
        await s.run('INSERT INTO users(id, email, username, language, password_hash, confirmed_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, NULL, ?, ?)', [
          u.id, u.email, u.username, u.language, u.password_hash, now, now,
        ]);
      }
      // A new account gets a confirmation token; a taken address a reset token, also when it is not
      // confirmed yet: its owner sets a password of their own, so an account someone else opened
      // with the address before them never keeps that person's password (D206).
      const purpose: MailPurpose = known === undefined ? 'confirm' : 'reset';
      await purgeUnconfirmed(s, now);
      await purgeMailTokens(s, now);
      await s.run('INSERT INTO mail_tokens(hash, user_id, purpose, expires_at, used_at) VALUES (?, ?, ?, ?, NULL)', [tokenHash, user.id, purpose, expiry[purpose]]);
      return { created: known === undefined, user };
    });
  }

  async userByEmail(email: string): Promise<UserRow | undefined> {
    const r = await this.live.read((s) => s.get<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE email = ?`, [email]));
    return r === undefined ? undefined : userOf(r);
  }

  async user(id: string): Promise<UserRow | undefined> {
    const r = await this.live.read((s) => s.get<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE id = ?`, [id]));
    return r === undefined ? undefined : userOf(r);
  }

  /** Replaces the hash of a password that was just verified (new scrypt parameters, D202). */
  async rehash(id: string, hash: string, now = Date.now()): Promise<void> {
    await this.live.tx((s) => s.run('UPDATE users SET password_hash = ?, updated_at = ? WHERE id = ?', [hash, now, id]));
  }

  /** A mail token of the user (confirmation or reset). */
  async addMailToken(userId: string, purpose: MailPurpose, hash: string, expiresAt: number, now = Date.now()): Promise<void> {
    await this.live.tx(async (s) => {
      await purgeMailTokens(s, now);
      await s.run('INSERT INTO mail_tokens(hash, user_id, purpose, expires_at, used_at) VALUES (?, ?, ?, ?, NULL)', [hash, userId, purpose, expiresAt]);
    });
  }

  /** Whether reset token `hash` can still be used (the form is shown only then, D243). */
  async resetTokenUsable(hash: string, now = Date.now()): Promise<boolean> {
    return (await this.resetTokenEmail(hash, now)) !== undefined;
  }

  /** The user's token generation (D244); undefined when the user does not exist. */
  async tokenGeneration(userId: string): Promise<number | undefined> {
    const r = await this.live.read((s) => s.get<{ token_gen: number }>('SELECT token_gen FROM users WHERE id = ?', [userId]));
    return r === undefined ? undefined : Number(r.token_gen);
  }

  /** Uses a confirmation token and confirms its user; false when it is unknown, used or expired. */
  confirm(hash: string, now = Date.now()): Promise<boolean> {
    return this.live.tx(async (s) => {
      const t = await s.get<{ user_id: string }>("SELECT user_id FROM mail_tokens WHERE hash = ? AND purpose = 'confirm' AND used_at IS NULL AND expires_at > ?", [hash, now]);
      if (t === undefined) return false;
      await s.run('UPDATE mail_tokens SET used_at = ? WHERE hash = ?', [now, hash]);
      await s.run('UPDATE users SET confirmed_at = COALESCE(confirmed_at, ?), updated_at = ? WHERE id = ?', [now, now, t.user_id]);
      return true;
    });
  }

  /** The address of the user of a usable reset token (the password rules of D202 need it), or undefined. */
  async resetTokenEmail(hash: string, now = Date.now()): Promise<string | undefined> {
    const r = await this.live.read((s) =>
      s.get<{ email: string }>("SELECT u.email FROM mail_tokens t JOIN users u ON u.id = t.user_id WHERE t.hash = ? AND t.purpose = 'reset' AND t.used_at IS NULL AND t.expires_at > ?", [hash, now]),
    );
    return r?.email;
  }

  /**
   * Sets the password of the reset token's user (D209): confirms the address, uses every reset
   * token of the user and deletes every refresh token (D204). False when the token is unknown,
   * used or expired.
   */
  resetPassword(hash: string, passwordHash: string, now = Date.now()): Promise<boolean> {
    return this.live.tx(async (s) => {
      const t = await s.get<{ user_id: string }>("SELECT user_id FROM mail_tokens WHERE hash = ? AND purpose = 'reset' AND used_at IS NULL AND expires_at > ?", [hash, now]);
      if (t === undefined) return false;
      await s.run("UPDATE mail_tokens SET used_at = ? WHERE user_id = ? AND purpose = 'reset' AND used_at IS NULL", [now, t.user_id]);
      await s.run('UPDATE users SET password_hash = ?, confirmed_at = COALESCE(confirmed_at, ?), token_gen = token_gen + 1, updated_at = ? WHERE id = ?', [
        passwordHash, now, now, t.user_id,
      ]);
      await s.run('DELETE FROM refresh_tokens WHERE user_id = ?', [t.user_id]);
      return true;
    });
  }

  /** Starts a refresh-token family with its first token (a login). */
  async startFamily(userId: string, hash: string, family: string, expiresAt: number, now = Date.now()): Promise<void> {
    await this.live.tx(async (s) => {
      // Expired refresh tokens are refused whatever they are: each login deletes them (D244).
      await s.run('DELETE FROM refresh_tokens WHERE expires_at <= ?', [now]);
      await s.run(INSERT_REFRESH, [hash, userId, family, now, expiresAt]);
    });
  }

  /**
   * Uses refresh token `hash` and stores `next` in its family (D204). A token used within
   * `graceMs` of its rotation gets `next` as a sibling of its successor (D241); a token used or
   * revoked before that revokes the whole family (committed, though the answer is a refusal).
   */
  rotate(hash: string, next: string, expiresAt: number, graceMs: number, now = Date.now()): Promise<RotateResult> {
    return this.live.tx(async (s): Promise<RotateResult> => {
      const t = await s.get<{ user_id: string; family: string; expires_at: number; used_at: number | null; revoked_at: number | null }>(
        'SELECT user_id, family, expires_at, used_at, revoked_at FROM refresh_tokens WHERE hash = ?',
        [hash],
      );
      if (t === undefined) return { ok: false, reason: 'unknown' };
      const usedAt = num(t.used_at);
      const grace = usedAt !== null && t.revoked_at === null && now - usedAt <= graceMs;
      if ((usedAt !== null && !grace) || t.revoked_at !== null) {
        await s.run('UPDATE refresh_tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE family = ?', [now, t.family]);
        return { ok: false, reason: 'reused' };
      }
      if (Number(t.expires_at) <= now) return { ok: false, reason: 'expired' };
      const user = await s.get<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE id = ?`, [t.user_id]);
      if (user === undefined) return { ok: false, reason: 'unknown' };
      if (!grace) await s.run('UPDATE refresh_tokens SET used_at = ? WHERE hash = ?', [now, hash]);
      await s.run(INSERT_REFRESH, [next, t.user_id, t.family, now, expiresAt]);
      return { ok: true, user: userOf(user), grace };
    });
  }

  /** The user (when it exists) and its settings (undefined when it has none yet). */
  async settings(userId: string): Promise<{ user: boolean; settings: StoredSettings | undefined }> {
    return this.live.read(async (s) => {
      const r = await s.get<{ version: number | null; vehicle_id: string | null; tariff_ids: string | null }>(
        'SELECT st.version, st.vehicle_id, st.tariff_ids FROM users u LEFT JOIN user_settings st ON st.user_id = u.id WHERE u.id = ?',
        [userId],
      );
      if (r === undefined) return { user: false, settings: undefined };
      if (r.version === null) return { user: true, settings: undefined };
      const settings = { version: Number(r.version), vehicle_id: r.vehicle_id!, tariff_ids: JSON.parse(r.tariff_ids!) as string[], products: await products(s, userId) };
      return { user: true, settings };
    });
  }

  /**
   * Writes the settings when `version` is above the stored one (or none is stored, D211); else
   * merges the change made from version − 1 into the stored settings (D242). Answers what is
   * stored afterwards and what happened; undefined when the user is gone.
   */
  putSettings(userId: string, version: number, vehicleId: string, tariffIds: readonly string[], now = Date.now()): Promise<{ settings: StoredSettings; write: SettingsWrite } | undefined> {
    return this.live.tx(async (s) => {
      const u = await s.get<{ one: number }>('SELECT 1 AS one FROM users WHERE id = ?', [userId]);
      if (u === undefined) return undefined;
      const stored = await settingsIn(s, userId);
      let write: SettingsWrite = 'written';
      let next = { version, vehicle_id: vehicleId, tariff_ids: [...tariffIds] };
      if (stored !== undefined && version <= stored.version) {
        const base = await settingsVersion(s, userId, version - 1);
        const merged = base === undefined ? undefined : mergeSettings(stored, base, next);
        if (merged === undefined) return { settings: stored, write: 'unchanged' };
        next = { ...merged, version: stored.version + 1 };
        write = 'merged';
      }
      await storeSettings(s, userId, next, now);
      return { settings: (await settingsIn(s, userId))!, write };
    });
  }

  /**
   * Stores product sources (their hashes) of one type granting `productNames`, in one transaction;
   * a hash already stored is left as it is. Answers how many were new.
   */
  createSources(type: string, productNames: readonly string[], hashes: readonly string[], now = Date.now()): Promise<number> {
    return this.live.tx(async (s) => {
      let added = 0;
      for (const h of hashes) {
        added += await s.run('INSERT INTO product_sources(hash, type, products, created_at, used_at, used_by) VALUES (?, ?, ?, ?, NULL, NULL) ON CONFLICT(hash) DO NOTHING', [
          h, type, JSON.stringify(productNames), now,
        ]);
      }
      return added;
    });
  }

  /** The key of the membership sources' HMAC (D239): generated in the live store on first use. */
  productSourceKey(): Promise<Buffer> {
    return this.live.tx(async (s) => {
      let v = await getSetting(s, SOURCE_KEY_SETTING);
      if (v === null) {
        v = crypto.randomBytes(32).toString('base64url');
        await setSetting(s, SOURCE_KEY_SETTING, v);
      }
      return Buffer.from(v, 'base64url');
    });
  }

  async sources(): Promise<SourceRow[]> {
    const rows = await this.live.read((s) =>
      s.all<{ type: string; products: string; created_at: number; used_at: number | null }>('SELECT type, products, created_at, used_at FROM product_sources ORDER BY created_at, hash'),
    );
    return rows.map((r) => ({ type: r.type, products: JSON.parse(r.products) as string[], created_at: Number(r.created_at), used_at: num(r.used_at) }));
  }

  /** Uses source `hash` of `type` for the user and grants its products (D212). */
  activate(userId: string, type: string, hash: string, now = Date.now()): Promise<ActivateResult | undefined> {
    return this.live.tx(async (s): Promise<ActivateResult | undefined> => {
      const u = await s.get<{ one: number }>('SELECT 1 AS one FROM users WHERE id = ?', [userId]);
      if (u === undefined) return undefined;
      const src = await s.get<{ products: string; used_at: number | null }>('SELECT products, used_at FROM product_sources WHERE hash = ? AND type = ?', [hash, type]);
      if (src === undefined) return { ok: false, reason: 'not_found' };
      if (src.used_at !== null) return { ok: false, reason: 'used' };
      await s.run('UPDATE product_sources SET used_at = ?, used_by = ? WHERE hash = ?', [now, userId, hash]);
      for (const p of JSON.parse(src.products) as string[]) {
        await s.run('INSERT INTO user_products(user_id, product, granted_at) VALUES (?, ?, ?) ON CONFLICT(user_id, product) DO NOTHING', [userId, p, now]);
      }
      return { ok: true, products: await products(s, userId) };
    });
  }

  /** Deletes the user and everything of it (D213); false when it did not exist. */
  deleteUser(userId: string): Promise<boolean> {
    return this.live.tx(async (s) => {
      for (const t of ['user_settings', 'user_settings_history', 'refresh_tokens', 'mail_tokens', 'user_products']) await s.run(`DELETE FROM ${t} WHERE user_id = ?`, [userId]);
      await s.run('UPDATE product_sources SET used_by = NULL WHERE used_by = ?', [userId]);
      await s.run('UPDATE crm_devices SET user_id = NULL WHERE user_id = ?', [userId]);
      return (await s.run('DELETE FROM users WHERE id = ?', [userId])) > 0;
    });
  }

  /** Every user's settings, by user id (the export, D214). */
  async *allSettings(): AsyncGenerator<StoredSettings & { user_id: string; updated_at: number }> {
    let after = '';
    for (;;) {
      const rows = await this.live.read((s) =>
        s.all<{ user_id: string; updated_at: number }>('SELECT user_id, updated_at FROM user_settings WHERE user_id > ? ORDER BY user_id LIMIT 500', [after]),
      );
      if (rows.length === 0) return;
      for (const r of rows) {
        const st = await this.live.read((s) => settingsIn(s, r.user_id));
        if (st !== undefined) yield { user_id: r.user_id, updated_at: Number(r.updated_at), ...st };
      }
      after = rows[rows.length - 1].user_id;
    }
  }
}
