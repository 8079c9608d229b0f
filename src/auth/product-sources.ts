/**
 * Product sources (D212, D239): what a client presents to unlock products — an operator's code,
 * or a membership the original web client sends (`emc_membership`, `carbonify_thg`). Each type's
 * fields are read into one canonical form, so the source an operator imported and the one a user
 * types match however it is spaced or cased, and only a hash of that form is stored: SHA-256 for
 * codes (128 random bits), HMAC-SHA-256 under the live store's key for memberships (low-entropy
 * data that a bare hash would not protect).
 */
import crypto from 'node:crypto';
import { hashKey } from './keys.js';
import { normaliseEmail } from './passwords.js';

/** The fields of each source type, in the order of the canonical form and of an import's columns. */
export const SOURCE_FIELDS = {
  code: ['code'],
  emc_membership: ['member_number', 'card_number'],
  carbonify_thg: ['email', 'country', 'quota_year'],
} as const satisfies Record<string, readonly string[]>;

export type SourceType = keyof typeof SOURCE_FIELDS;

export const isSourceType = (t: string): t is SourceType => Object.hasOwn(SOURCE_FIELDS, t);

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** One field's canonical form, or null when it does not fit (D239). */
const CANONICAL: Record<string, (v: unknown) => string | null> = {
  code: (v) => {
    const s = str(v)?.trim() ?? '';
    return /^[A-Za-z0-9_-]{1,200}$/.test(s) ? s : null;
  },
  member_number: (v) => {
    const s = (str(v) ?? '').normalize('NFKC').replace(/\s+/g, '').toUpperCase();
    return s.length >= 1 && s.length <= 40 ? s : null;
  },
  card_number: (v) => {
    const s = (str(v) ?? '').normalize('NFKC').replace(/[\s-]+/g, '').toUpperCase();
    return /^[A-Z0-9]{1,32}$/.test(s) ? s : null;
  },
  email: (v) => normaliseEmail(str(v) ?? ''),
  country: (v) => {
    const s = (str(v) ?? '').trim().toUpperCase();
    return /^[A-Z]{2}$/.test(s) ? s : null;
  },
  quota_year: (v) => {
    const s = typeof v === 'number' ? String(v) : (str(v)?.trim() ?? '');
    if (!/^\d{4}$/.test(s)) return null;
    const y = Number(s);
    return y >= 2000 && y <= 2100 ? s : null;
  },
};

/** The canonical identity of a source (`type` and its fields), or null when it fits no type. */
export function sourceIdentity(source: Readonly<Record<string, unknown>>): { type: SourceType; identity: string } | null {
  const type = source.type;
  if (typeof type !== 'string' || !isSourceType(type)) return null;
  const parts: string[] = [type];
  for (const field of SOURCE_FIELDS[type]) {
    const c = CANONICAL[field](source[field]);
    if (c === null) return null;
    parts.push(c);
  }
  return { type, identity: parts.join('\n') };
}

/** The stored hash of a source identity: SHA-256 of a code (as D212 stored them), else HMAC-SHA-256 under `key`. */
export function sourceHash(type: SourceType, identity: string, key: Buffer): string {
  if (type === 'code') return hashKey(identity.slice(identity.indexOf('\n') + 1));
  return crypto.createHmac('sha256', key).update(identity, 'utf8').digest('hex');
}
