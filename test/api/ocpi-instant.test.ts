/**
 * The character parser of OCPI DateTimes (`ocpiInstant`, D141, D226) against its straightforward
 * twin: `Date.parse` with the fields compared back, as cdr_cost read DateTimes before.
 */
import { describe, expect, it } from 'vitest';
import { ocpiInstant } from '../../src/api/cdr-cost/cdr-cost.js';

const utcDateTime = (s: string): string => (/(Z|z|[+-]\d{2}:\d{2})$/.test(s) ? s : `${s}Z`);

/** The twin: what `ocpiInstant` answered before it read character codes. */
function byDateParse(s: string): number {
  const t = Date.parse(utcDateTime(s));
  if (Number.isNaN(t)) return NaN;
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})/.exec(s)!;
  const off = /([+-])(\d{2}):(\d{2})$/.exec(s);
  const local = new Date(t + (off === null ? 0 : (off[1] === '-' ? -1 : 1) * (Number(off[2]) * 60 + Number(off[3])) * 60_000));
  const same =
    local.getUTCFullYear() === Number(m[1]) &&
    local.getUTCMonth() + 1 === Number(m[2]) &&
    local.getUTCDate() === Number(m[3]) &&
    local.getUTCHours() === Number(m[4]) &&
    local.getUTCMinutes() === Number(m[5]) &&
    local.getUTCSeconds() === Number(m[6]);
  return same ? t : NaN;
}

/** The request schema's DateTime pattern: what reaches the parser over HTTP. */
const PATTERN = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?(Z|z|[+-][0-9]{2}:[0-9]{2})?$/;

function rng(seed: number): () => number {
  let x = seed >>> 0;
  return () => ((x = (Math.imul(x, 1_664_525) + 1_013_904_223) >>> 0) / 2 ** 32);
}

describe('ocpiInstant', () => {
  it('equals the Date.parse twin on 200,000 seeded readings of the schema pattern, impossible fields included', () => {
    const r = rng(20261126);
    const pad = (v: number, n: number) => String(v).padStart(n, '0');
    const pick = (lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
    let valid = 0;
    const differ: string[] = [];
    for (let i = 0; i < 200_000; i++) {
      const year = r() < 0.9 ? pick(1960, 2100) : pick(0, 9999);
      const month = r() < 0.95 ? pick(1, 12) : pick(0, 19);
      const day = r() < 0.9 ? pick(1, 28) : pick(0, 39);
      const hour = r() < 0.95 ? pick(0, 23) : pick(0, 29);
      const minute = r() < 0.95 ? pick(0, 59) : pick(0, 69);
      const second = r() < 0.95 ? pick(0, 59) : pick(58, 69);
      const fraction = r() < 0.5 ? '' : `.${Array.from({ length: pick(1, 9) }, () => pick(0, 9)).join('')}`;
      const z = r();
      const zone = z < 0.3 ? '' : z < 0.55 ? 'Z' : z < 0.6 ? 'z' : `${r() < 0.5 ? '+' : '-'}${pad(r() < 0.9 ? pick(0, 14) : pick(0, 29), 2)}:${pad(r() < 0.9 ? pick(0, 3) * 15 : pick(0, 69), 2)}`;
      const s = `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${pad(hour, 2)}:${pad(minute, 2)}:${pad(second, 2)}${fraction}${zone}`;
      if (!PATTERN.test(s)) differ.push(`${s}: not the pattern`);
      const want = byDateParse(s);
      if (!Object.is(ocpiInstant(s), want)) differ.push(`${s}: ${ocpiInstant(s)} vs ${want}`);
      if (!Number.isNaN(want)) valid++;
    }
    expect(differ).toEqual([]);
    expect(valid).toBeGreaterThan(150_000);
  });

  it('reads the edge cases the same way: leap days and seconds, month ends, offsets, fractions', () => {
    const cases = [
      '2024-02-29T12:00:00Z',
      '2023-02-29T12:00:00Z',
      '2000-02-29T00:00:00Z',
      '1900-02-29T00:00:00Z',
      '2024-06-30T23:59:60Z',
      '2024-04-31T00:00:00Z',
      '2024-12-31T23:59:59.999999999+14:00',
      '2024-01-01T00:00:00.0005-00:30',
      '1970-01-01T00:00:00',
      '0000-01-01T00:00:00Z',
      '9999-12-31T23:59:59Z',
      '2024-03-31T02:30:00+23:59',
      '2024-03-31T02:30:00+24:00',
    ];
    for (const s of cases) expect(ocpiInstant(s), s).toBe(byDateParse(s));
  });

  it('answers NaN for what is not the pattern', () => {
    for (const s of ['', 'monday', '2024-06-03', '2024-06-03 09:30:00Z', '2024-06-03T09:30Z', '2024-06-03T09:30:00.Z', '2024-06-03T09:30:00.1234567890Z', '2024-06-03T09:30:00+0200', '2024-06-03T09:30:00ZZ', '2024-O6-03T09:30:00Z']) {
      expect(ocpiInstant(s), s).toBeNaN();
    }
  });
});
