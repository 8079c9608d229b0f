/**
 * Entity tags (D95): `etagOf` keeps recent hashes; each tag must be the one computed straight from
 * its input, for repeated, long and many inputs.
 */
import { describe, expect, it } from 'vitest';
import { etagOf, tagHash } from '../../src/http/conditional.js';

const straight = (v: string, p: string, q: string, lang: string, enc: 'br' | 'gzip' | null, format: 'json' | 'csv' = 'json'): string =>
  `"${tagHash(`${v}\n${p}?${q}\n${lang}${format === 'json' ? '' : `\n${format}`}`)}${enc === null ? '' : `-${enc}`}"`;

describe('etagOf', () => {
  it('is the straightforward hash of its input for repeated, long and many inputs, with each encoding', () => {
    const long = 'x'.repeat(5000);
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 10_000; i++) {
        const q = i % 7 === 0 ? `q=${long}${i}` : `page=${i % 5000}`;
        const enc = i % 3 === 0 ? null : i % 3 === 1 ? 'br' : 'gzip';
        const format = i % 11 === 0 ? 'csv' : 'json';
        const got = etagOf(`v${i % 13}`, `/v1/charging_stations/${i % 97}`, q, i % 2 ? 'de' : '', enc, format);
        expect(got).toBe(straight(`v${i % 13}`, `/v1/charging_stations/${i % 97}`, q, i % 2 ? 'de' : '', enc, format));
      }
    }
  });

  it('differs by every part of its input', () => {
    const base = etagOf('v1', '/a', 'x=1', 'en', null);
    expect(new Set([base, etagOf('v2', '/a', 'x=1', 'en', null), etagOf('v1', '/b', 'x=1', 'en', null), etagOf('v1', '/a', 'x=2', 'en', null), etagOf('v1', '/a', 'x=1', 'de', null), etagOf('v1', '/a', 'x=1', 'en', 'br'), etagOf('v1', '/a', 'x=1', 'en', null, 'csv')]).size).toBe(7);
    expect(etagOf('v1', '/a', 'x=1', 'en', null)).toBe(base);
  });
});
