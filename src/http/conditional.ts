/**
 * Conditional requests (D95). A cacheable route names what its answer depends on (snapshot version,
 * catalog generation, the key's groups where they change the answer) as a validator string; the
 * ETag adds the request's path and query, `Accept-Language`, the negotiated encoding and a
 * representation other than JSON (D236), so one entity tag stands for exactly one body. A matching
 * `If-None-Match` is answered 304 before the handler runs.
 */
import { createHash } from 'node:crypto';
import type { Encoding } from './compress.js';
import type { Format } from '../api/types.js';

export function etagOf(validator: string, path: string, query: string, acceptLanguage: string, enc: Encoding | null, format: Format = 'json'): string {
  const rep = format === 'json' ? '' : `\n${format}`;
  const h = createHash('sha1').update(`${validator}\n${path}?${query}\n${acceptLanguage}${rep}`).digest('base64url').slice(0, 22);
  return `"${h}${enc === null ? '' : `-${enc}`}"`;
}

/** RFC 9110 §13.1.2: weak comparison over a list of entity tags, or `*`. */
export function ifNoneMatchHits(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  for (const part of header.split(',')) {
    let t = part.trim();
    if (t.startsWith('W/')) t = t.slice(2);
    if (t === etag) return true;
  }
  return false;
}
