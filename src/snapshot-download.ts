/**
 * Snapshots from a URL (D220): downloaded to `DATA_DIR/snapshots/<sha256>.sqlite` through a
 * temporary file hashed while written, renamed only when its SHA-256 is the one given; a file
 * already there under that name is used again. Redirects are not followed; the download has the
 * loader's time limit. Only URLs under one of SNAPSHOT_URL_PREFIXES are fetched (the handler checks).
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { SwapError } from './api/snapshot-control.js';

/** The local file holding the snapshot of `url` with SHA-256 `sha256`; rejects with SwapError. */
export async function downloadSnapshot(dataDir: string, url: string, sha256: string, timeoutMs: number): Promise<string> {
  const dir = path.join(dataDir, 'snapshots');
  const file = path.join(dir, `${sha256}.sqlite`);
  if (fs.existsSync(file)) return file;
  fs.mkdirSync(dir, { recursive: true });
  let res: Response;
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    res = await fetch(url, { redirect: 'manual', signal });
  } catch (e) {
    throw new SwapError('unreachable', `${url}: ${(e as Error).message}`);
  }
  if (res.status === 404 || res.status === 410) throw new SwapError('missing', `${url} answered ${res.status}`);
  if (res.status !== 200 || res.body === null) {
    await res.body?.cancel().catch(() => {});
    throw new SwapError('unreachable', `${url} answered ${res.status}${res.status >= 300 && res.status < 400 ? ' (redirects are not followed)' : ''}`);
  }
  const tmp = path.join(dir, `.${sha256}.${randomBytes(4).toString('hex')}.part`);
  const hash = createHash('sha256');
  const tap = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  try {
    await pipeline(Readable.fromWeb(res.body), tap, fs.createWriteStream(tmp), { signal });
    const got = hash.digest('hex');
    if (got !== sha256) throw new SwapError('refused', `${url}: SHA-256 ${got}, not ${sha256}`);
    fs.renameSync(tmp, file);
    return file;
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    if (e instanceof SwapError) throw e;
    throw new SwapError('unreachable', `${url}: ${(e as Error).message}`);
  }
}
