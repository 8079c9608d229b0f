/**
 * Response compression (D94): `Accept-Encoding` negotiated with q-values (the negotiator package)
 * among br and gzip, whole-body compression with levels chosen by measurement.
 *
 * Measured on this machine (2 × Xeon, one thread) on a radius page of 400 stations (336 KB):
 *   br quality 0: 0.22 ms, 10.8×   br 1: 0.31 ms, 12.8×   br 3: 0.80 ms, 14.3×   br 5: 2.1 ms, 15.3×
 *   gzip level 1: 0.78 ms, 11.1×   gzip 3: 0.78 ms, 11.6×   gzip 6: 1.57 ms, 13.6×
 *   one raw-deflate block per station fragment, stitched (the pre-compressed fragment idea): 2.0×
 * Per-fragment blocks cannot share a window, so they shrink pages only 2× (not the 5× asked);
 * whole-body br at quality 1 costs less than building the page itself, so pages are compressed
 * whole: br quality 1 when the client takes br (preferred on equal q: faster and smaller), else
 * gzip level 3. Bodies of at least ASYNC_MIN_BYTES (a busy station's charge prices, 1.2 MB:
 * 1.1 ms br, 2.8 ms gzip) are compressed on the libuv thread pool so the event loop goes on
 * serving meanwhile; smaller ones synchronously (a pool hop costs more than compressing them).
 */
import zlib from 'node:zlib';
import Negotiator from 'negotiator';

export type Encoding = 'br' | 'gzip';

const OFFERED = ['br', 'gzip', 'identity'];
export const BR_QUALITY = 1;
export const GZIP_LEVEL = 3;
export const ASYNC_MIN_BYTES = 128 * 1024;

/** Negotiated encodings by Accept-Encoding value: clients send few distinct values; bounded. */
const negotiated = new Map<string, Encoding | null>();
const NEGOTIATED_MAX = 256;

/** The encoding to use for an `Accept-Encoding` value (null: identity). */
export function negotiateEncoding(acceptEncoding: string): Encoding | null {
  if (acceptEncoding.length === 0) return null;
  const hit = negotiated.get(acceptEncoding);
  if (hit !== undefined) return hit;
  // Equal q-values: br first (faster and smaller, above), not the client's order. The typings lag
  // behind negotiator 1.x, which takes `preferred`.
  const negotiator = new Negotiator({ headers: { 'accept-encoding': acceptEncoding } }) as unknown as {
    encoding(available: string[], options: { preferred: string[] }): string | undefined;
  };
  const best = negotiator.encoding(OFFERED, { preferred: OFFERED });
  const enc: Encoding | null = best === 'br' || best === 'gzip' ? best : null;
  if (acceptEncoding.length <= 256) {
    if (negotiated.size >= NEGOTIATED_MAX) negotiated.clear();
    negotiated.set(acceptEncoding, enc);
  }
  return enc;
}

function brOptions(size: number): zlib.BrotliOptions {
  return {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: BR_QUALITY,
      [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: size,
    },
  };
}

const GZIP_OPTIONS: zlib.ZlibOptions = { level: GZIP_LEVEL };

export function compressSync(body: Buffer | string, enc: Encoding): Buffer {
  const buf = typeof body === 'string' ? Buffer.from(body) : body;
  return enc === 'br' ? zlib.brotliCompressSync(buf, brOptions(buf.length)) : zlib.gzipSync(buf, GZIP_OPTIONS);
}

/** Bodies of at least this many bytes are gzipped in PARALLEL_PARTS parts side by side. */
export const PARALLEL_GZIP_MIN_BYTES = 512 * 1024;
const PARALLEL_PARTS = 4;

function deflatePart(buf: Buffer, last: boolean): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    zlib.deflateRaw(buf, { level: GZIP_LEVEL, finishFlush: last ? zlib.constants.Z_FINISH : zlib.constants.Z_SYNC_FLUSH }, (e, out) => (e ? reject(e) : resolve(out))),
  );
}

/**
 * gzip as pigz does it: the body cut into parts deflated independently on the thread pool (each
 * but the last ends on a sync flush, byte-aligned and not final, so the raw streams concatenate
 * into one valid deflate stream), wrapped in one gzip member with the CRC-32 of the whole body.
 * On 1.35 MB of answer JSON: 3.4–3.5 ms for one zlib.gzip on the pool, 2.7–2.8 ms in two parts
 * (load average 1.25 on two cores); the ratio stays (11.7× → 11.6×: the second part starts
 * without the first's window). On the busy station's 1.22 MB answer (2026-11-25, medians of 60,
 * level 1 / 3): one part 3.61 / 3.77 ms, two 2.61 / 2.65, three 2.40 / 2.50, four 2.34 / 2.19 ms
 * at 10.4× → 10.3×; the two vCPUs do not scale two parts to half the time, more parts still
 * gain a little, and four is the libuv pool's size. compress.test.ts checks that it decodes to
 * the body, against zlib.gzip's output.
 */
export async function gzipParallel(buf: Buffer): Promise<Buffer> {
  const size = Math.ceil(buf.length / PARALLEL_PARTS);
  const parts: Promise<Buffer>[] = [];
  for (let k = 0; k < PARALLEL_PARTS; k++) parts.push(deflatePart(buf.subarray(k * size, Math.min(buf.length, (k + 1) * size)), k === PARALLEL_PARTS - 1));
  const crc = zlib.crc32(buf);
  const deflated = await Promise.all(parts);
  const header = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]);
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(buf.length >>> 0, 4);
  return Buffer.concat([header, ...deflated, trailer]);
}

export function compressAsync(body: Buffer | string, enc: Encoding): Promise<Buffer> {
  const buf = typeof body === 'string' ? Buffer.from(body) : body;
  if (enc === 'gzip' && buf.length >= PARALLEL_GZIP_MIN_BYTES) return gzipParallel(buf);
  return new Promise((resolve, reject) => {
    const done = (e: Error | null, out: Buffer): void => (e ? reject(e) : resolve(out));
    if (enc === 'br') zlib.brotliCompress(buf, brOptions(buf.length), done);
    else zlib.gzip(buf, GZIP_OPTIONS, done);
  });
}
