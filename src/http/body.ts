/**
 * The request body stages: media type (D12), size limit (413, D108), reading it off the transport,
 * and parsing it as a JSON:API document (D8).
 */
import { ApiError } from '../api/jsonapi/errors.js';
import { MAX_DEPTH, deepPointer, tooDeep } from '../api/jsonapi/depth.js';
import type { Exchange } from './exchange.js';
import { jsonApiParametersAllowed } from './negotiate.js';

/** D12, D236: `application/json` (any parameters), the JSON:API type (`profile` only), or none. */
export function acceptableMediaType(ct: string): boolean {
  if (ct.length === 0) return true;
  const semi = ct.indexOf(';');
  const base = (semi === -1 ? ct : ct.slice(0, semi)).trim().toLowerCase();
  if (base === 'application/json') return true;
  return base === 'application/vnd.api+json' && (semi === -1 || jsonApiParametersAllowed(ct.slice(semi + 1)));
}

/**
 * How much of an oversized body is read (and dropped) so that the client, which is still sending,
 * can read the 413 (D108): 4 × the limit, at least 64 MiB. Past it the 413 closes the connection.
 */
export const drainLimit = (limit: number): number => Math.max(64 * 1024 * 1024, 4 * limit);

/**
 * Reads the body, copying each chunk (uWS reuses the ArrayBuffer); null when over the limit. A
 * body without a declared length (chunked) that goes over the limit is read on and dropped until
 * it ends, then refused, so the client reads the 413 instead of a reset (`close` false); one that
 * is still sending at the drain limit is refused with the connection closed (`close` true).
 */
export function readBody(ex: Exchange, limit: number, cb: (buf: Buffer | null, close: boolean) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let over = false;
  const drain = drainLimit(limit);
  ex.res.onData((ab, isLast) => {
    if (ex.aborted || ex.done) return;
    size += ab.byteLength;
    ex.bytesIn = size;
    if (over || size > limit) {
      if (!over) {
        over = true;
        chunks.length = 0;
      }
      if (isLast) cb(null, false);
      else if (size > drain) cb(null, true);
      return;
    }
    chunks.push(Buffer.from(ab.slice(0)));
    if (isLast) cb(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size), false);
  });
}

/** D8: the body must be a JSON object with a `data` object (any object on `bareBody` routes). */
export function parseBody(buf: Buffer, bare: boolean): unknown {
  if (buf.length === 0) throw new ApiError('BAD_REQUEST', 'request body is required', { source: { pointer: '' } });
  const deep = tooDeep(buf);
  let v: unknown;
  try {
    v = JSON.parse(buf.toString('utf8'));
  } catch {
    throw new ApiError('BAD_REQUEST', 'malformed JSON in request body');
  }
  if (deep) {
    throw new ApiError('BAD_REQUEST', `request body nests deeper than ${MAX_DEPTH} levels`, { source: { pointer: deepPointer(v) ?? '' } });
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    throw new ApiError('BAD_REQUEST', 'request body must be a JSON object', { source: { pointer: '' } });
  }
  if (bare) return v;
  const data = (v as { data?: unknown }).data;
  if (data === null || data === undefined || typeof data !== 'object' || Array.isArray(data)) {
    throw new ApiError('BAD_REQUEST', 'request body must have a data object', { source: { pointer: '/data' } });
  }
  return v;
}
