/**
 * Query parameter parsing per D9: CSV, booleans, integers, floats and paging, each failing with a
 * 400 whose `source.parameter` names the parameter.
 */
import { badParameter } from './errors.js';

/** Parses a raw query string (after `?`); the last occurrence of a parameter wins. */
export function parseQueryString(raw: string): Map<string, string> {
  const out = new Map<string, string>();
  if (raw.length === 0) return out;
  let start = 0;
  while (start <= raw.length) {
    let end = raw.indexOf('&', start);
    if (end === -1) end = raw.length;
    if (end > start) {
      const eq = raw.indexOf('=', start);
      const hasEq = eq !== -1 && eq < end;
      const k = decode(raw.slice(start, hasEq ? eq : end));
      const v = hasEq ? decode(raw.slice(eq + 1, end)) : '';
      out.set(k, v);
    }
    start = end + 1;
  }
  return out;
}

function decode(s: string): string {
  const plus = s.includes('+') ? s.replace(/\+/g, ' ') : s;
  if (!plus.includes('%')) return plus;
  try {
    return decodeURIComponent(plus);
  } catch {
    return plus;
  }
}

export type Query = ReadonlyMap<string, string>;

/** CSV: split, trim, drop empty items; present but empty → 400. Absent → undefined. */
export function csv(q: Query, name: string): string[] | undefined {
  const v = q.get(name);
  if (v === undefined) return undefined;
  const items = v
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (items.length === 0) throw badParameter(name, `${name} must not be empty`);
  return items;
}

export function bool(q: Query, name: string): boolean | undefined {
  const v = q.get(name);
  if (v === undefined) return undefined;
  const l = v.trim().toLowerCase();
  if (l === 'true') return true;
  if (l === 'false') return false;
  throw badParameter(name, `${name} must be true or false`);
}

const NUMBER_RE = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

export function float(q: Query, name: string, min = -Infinity, max = Infinity): number | undefined {
  const v = q.get(name);
  if (v === undefined) return undefined;
  const t = v.trim();
  if (!NUMBER_RE.test(t)) throw badParameter(name, `${name} must be a number`);
  const n = Number(t);
  if (!Number.isFinite(n)) throw badParameter(name, `${name} must be a finite number`);
  if (n < min || n > max) throw badParameter(name, `${name} must be between ${min} and ${max}`);
  return n;
}

export function int(q: Query, name: string, min = -Infinity, max = Infinity): number | undefined {
  const v = q.get(name);
  if (v === undefined) return undefined;
  const t = v.trim();
  if (!/^[+-]?\d+$/.test(t)) throw badParameter(name, `${name} must be an integer`);
  const n = Number(t);
  if (!Number.isSafeInteger(n)) throw badParameter(name, `${name} is out of range`);
  if (n < min) throw badParameter(name, `${name} must be at least ${min}`);
  if (n > max) throw badParameter(name, `${name} must be at most ${max}`);
  return n;
}

export interface Page {
  size: number;
  number: number;
  /** Index of the first item of the page. */
  offset: number;
}

/** `page[size]` (1..max, default `def`) and `page[number]` (≥ 1, default 1), D15. */
export function page(q: Query, def: number, max: number): Page {
  const size = int(q, 'page[size]', 1, max) ?? def;
  const number = int(q, 'page[number]', 1) ?? 1;
  return { size, number, offset: (number - 1) * size };
}

/**
 * Sparse fieldset `fields[type]` (D16): the named members, or undefined when absent.
 * Unknown names → 400.
 */
export function fields(q: Query, type: string, allowed: readonly string[]): Set<string> | undefined {
  const name = `fields[${type}]`;
  const list = csv(q, name);
  if (list === undefined) return undefined;
  for (const f of list) {
    if (!allowed.includes(f)) throw badParameter(name, `unknown field "${f}" in ${name}`);
  }
  return new Set(list);
}
