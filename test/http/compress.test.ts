/**
 * The hand-made parts of response compression: the parallel gzip decodes to the body exactly as
 * zlib's own gzip does (its straightforward twin), and the negotiation follows q-values.
 */
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { gzipParallel, negotiateEncoding, PARALLEL_GZIP_MIN_BYTES } from '../../src/http/compress.js';
import { mulberry32 } from '../../src/domain/random.js';

describe('parallel gzip', () => {
  it('decodes to the body like zlib.gzip, for sizes around the part boundaries', async () => {
    const rnd = mulberry32(94);
    const words = ['{"id":"', 'charge_price', '","price":', '0.39', ',"plug":"type2"', '},', 'é€', '\n'];
    for (const size of [1, 2, 3, 1000, PARALLEL_GZIP_MIN_BYTES - 1, PARALLEL_GZIP_MIN_BYTES, PARALLEL_GZIP_MIN_BYTES + 1, 1_300_001]) {
      const parts: string[] = [];
      let n = 0;
      while (n < size) {
        const w = words[Math.floor(rnd() * words.length)];
        parts.push(w);
        n += Buffer.byteLength(w);
      }
      const body = Buffer.from(parts.join('')).subarray(0, size);
      const ours = await gzipParallel(body);
      expect(zlib.gunzipSync(ours).equals(body), `size ${size}`).toBe(true);
      expect(zlib.gunzipSync(zlib.gzipSync(body)).equals(body)).toBe(true);
      // Within a few bytes per part of one-stream gzip.
      if (size > 1000) expect(ours.length).toBeLessThan(zlib.gzipSync(body, { level: 3 }).length * 1.05 + 64);
    }
  });

  it('negotiates br and gzip by q-value, br on a tie, identity otherwise', () => {
    expect(negotiateEncoding('')).toBeNull();
    expect(negotiateEncoding('gzip, deflate, br, zstd')).toBe('br');
    expect(negotiateEncoding('gzip')).toBe('gzip');
    expect(negotiateEncoding('br;q=0.2, gzip;q=0.8')).toBe('gzip');
    expect(negotiateEncoding('br;q=0, gzip;q=0')).toBeNull();
    expect(negotiateEncoding('*')).toBe('br');
    expect(negotiateEncoding('*;q=0')).toBeNull();
    expect(negotiateEncoding('identity;q=1, *;q=0')).toBeNull();
    expect(negotiateEncoding('deflate, compress')).toBeNull();
    expect(negotiateEncoding('BR')).toBe('br');
  });
});
