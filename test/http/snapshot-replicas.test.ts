/**
 * Snapshots from a URL and swaps across replicas (D220). The URL part runs on any store (a local
 * HTTP server serves the files); the replicas part runs under `npm run test:pg`: three replicas in
 * process on one PostgreSQL database, each with a SNAPSHOT_DIR of its own.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PgStore } from '../../src/storage/pg-store.js';
import { Snapshot } from '../../src/storage/snapshot.js';
import { call, keyFor, startTestApp, type TestApp } from '../helpers/server.js';
import { fixtureSnapshot } from './stations.fixture.js';

const ADMIN = keyFor('admin');
const READER = keyFor('reader');
const keys = { admin: 'Admin', reader: 'ReadStations' };
const versionOf = (file: string): string => {
  const s = Snapshot.open(file);
  try {
    return s.meta.snapshotVersion;
  } finally {
    s.close();
  }
};
const sha = (file: string): string => createHash('sha256').update(fs.readFileSync(file)).digest('hex');
const swapBody = (attributes: Record<string, unknown>) => ({ data: { type: 'snapshot_reload', attributes } });
const swap = (srv: TestApp, attributes: Record<string, unknown>, key = ADMIN) => call(srv, 'POST', '/admin/snapshot', { key, body: swapBody(attributes) });
const served = async (srv: TestApp): Promise<string> => (await call(srv, 'GET', '/health')).json.snapshot.version as string;

/** A file server on loopback: `/snap/<name>` serves the file, `/status/<n>` answers n, `/moved` redirects; counts requests. */
function fileServer(files: Record<string, string>): Promise<{ base: string; hits: Map<string, number>; close: () => Promise<void> }> {
  const hits = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const url = req.url ?? '';
    hits.set(url, (hits.get(url) ?? 0) + 1);
    const status = /^\/status\/(\d+)$/.exec(url);
    if (status !== null) return void res.writeHead(Number(status[1])).end('no');
    if (url === '/moved') return void res.writeHead(302, { Location: '/snap/two.sqlite' }).end();
    const file = url.startsWith('/snap/') ? files[url.slice(6)] : undefined;
    if (file === undefined) return void res.writeHead(404).end('not here');
    res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        hits,
        close: () => new Promise<void>((r) => server.close(() => r())),
      }),
    ),
  );
}

describe('snapshots from a URL (D220)', () => {
  let files: Awaited<ReturnType<typeof fileServer>>;
  let app: TestApp;
  let off: TestApp;
  const one = inject('testSnapshot');
  let two: string;

  beforeAll(async () => {
    two = fixtureSnapshot();
    files = await fileServer({ 'one.sqlite': one, 'two.sqlite': two });
    app = await startTestApp({ keys, env: { SNAPSHOT_URL_PREFIXES: `${files.base}/snap/,${files.base}/status/,${files.base}/moved,http://127.0.0.1:1/` } });
    off = await startTestApp({ keys });
  }, 60_000);
  afterAll(async () => {
    await app?.stop();
    await off?.stop();
    await files?.close();
  });

  it('refuses bodies that do not name a URL with its SHA-256, or name a path too', async () => {
    const url = `${files.base}/snap/two.sqlite`;
    for (const attributes of [
      { url },
      { sha256: sha(two) },
      { url, sha256: sha(two), path: 'x.sqlite' },
      { url, sha256: sha(two).toUpperCase() },
      { url, sha256: 'abc' },
      { url: 'file:///etc/passwd', sha256: sha(two) },
      { url: 5, sha256: sha(two) },
      { scope: 'everywhere' },
    ]) {
      const r = await swap(app, attributes);
      expect(r.status, JSON.stringify(attributes)).toBe(400);
    }
    expect((await swap(app, { url, sha256: sha(two) }, READER)).status).toBe(403);
    expect((await swap(app, { url, sha256: sha(two) }, 'wrong-key-0000000000')).status).toBe(403);
  });

  it('fetches only URLs under SNAPSHOT_URL_PREFIXES (none when unset)', async () => {
    const r = await swap(off, { url: `${files.base}/snap/two.sqlite`, sha256: sha(two) });
    expect(r.status).toBe(400);
    expect(r.json.errors[0]).toMatchObject({ title: 'url is not allowed', source: { pointer: '/data/attributes/url' } });
    expect(r.json.errors[0].detail).toContain('SNAPSHOT_URL_PREFIXES');
    const outside = await swap(app, { url: `${files.base}/other/two.sqlite`, sha256: sha(two) });
    expect(outside.status).toBe(400);
    expect(outside.json.errors[0].detail).toBe('the URL starts with none of SNAPSHOT_URL_PREFIXES');
    expect(files.hits.get('/other/two.sqlite')).toBeUndefined();
    expect(files.hits.get('/snap/two.sqlite')).toBeUndefined();
  });

  it('answers 404 for a file the server does not have, 503 when it fails, redirects or cannot be reached; nothing changes', async () => {
    const before = await served(app);
    const h = sha(two);
    const cases: [string, number, string][] = [
      [`${files.base}/snap/none.sqlite`, 404, 'snapshot file not found'],
      [`${files.base}/status/410`, 404, 'snapshot file not found'],
      [`${files.base}/status/500`, 503, 'snapshot download failed'],
      [`${files.base}/moved`, 503, 'snapshot download failed'],
      ['http://127.0.0.1:1/two.sqlite', 503, 'snapshot download failed'],
    ];
    for (const [url, status, title] of cases) {
      const r = await swap(app, { url, sha256: h });
      expect(r.status, url).toBe(status);
      expect(r.json.errors[0].title).toBe(title);
    }
    expect(files.hits.get('/snap/two.sqlite')).toBeUndefined();
    expect(await served(app)).toBe(before);
    expect(fs.readdirSync(path.join(app.dataDir, 'snapshots'))).toEqual([]);
  });

  it('refuses a download whose SHA-256 differs and keeps nothing; with the right one swaps, and downloads it once', async () => {
    const url = `${files.base}/snap/two.sqlite`;
    const wrong = await swap(app, { url, sha256: sha(one) });
    expect(wrong.status).toBe(400);
    expect(wrong.json.errors[0].detail).toContain(`SHA-256 ${sha(two)}, not ${sha(one)}`);
    expect(fs.readdirSync(path.join(app.dataDir, 'snapshots'))).toEqual([]);
    const r = await swap(app, { url, sha256: sha(two) });
    expect(r.status, r.text).toBe(200);
    expect(r.json.data.attributes).toMatchObject({ version: versionOf(two), file: path.join(app.dataDir, 'snapshots', `${sha(two)}.sqlite`) });
    // On SQLite no other replica to tell; on PostgreSQL this replica is the only one.
    if (app.databaseUrl === null) expect(r.json.meta).toBeUndefined();
    else expect(r.json.meta.replicas.map((o: { outcome: string }) => o.outcome)).toEqual(['swapped']);
    expect(await served(app)).toBe(versionOf(two));
    expect(await swap(app, { url: `${files.base}/snap/one.sqlite`, sha256: sha(one) })).toMatchObject({ status: 200 });
    expect((await swap(app, { url, sha256: sha(two) })).status).toBe(200);
    expect(files.hits.get('/snap/two.sqlite')).toBe(2); // the wrong hash's try and the first swap
    expect(await served(app)).toBe(versionOf(two));
  });
});

describe.skipIf(process.env.TEST_DATABASE_URL === undefined)('snapshot swaps across replicas on one PostgreSQL store (D220, npm run test:pg)', () => {
  const one = inject('testSnapshot');
  let two: string;
  let a: TestApp;
  let b: TestApp;
  let c: TestApp;
  let files: Awaited<ReturnType<typeof fileServer>>;
  const dirs: Record<string, string> = {};

  /** A SNAPSHOT_DIR holding `one.sqlite` and, per `twoAs`, `two.sqlite` as the second snapshot, as another version, or not at all. */
  const snapshotDir = (name: string, twoAs: 'two' | 'one' | 'none'): string => {
    const dir = fs.mkdtempSync(path.join(inject('testTmpRoot'), `replica-${name}-`));
    fs.copyFileSync(one, path.join(dir, 'one.sqlite'));
    if (twoAs !== 'none') fs.copyFileSync(twoAs === 'two' ? two : one, path.join(dir, 'two.sqlite'));
    return (dirs[name] = dir);
  };

  beforeAll(async () => {
    two = fixtureSnapshot();
    files = await fileServer({ 'two.sqlite': two });
    const env = (name: string, twoAs: 'two' | 'one' | 'none') => {
      const dir = snapshotDir(name, twoAs);
      return { SNAPSHOT: path.join(dir, 'one.sqlite'), SNAPSHOT_DIR: dir, SNAPSHOT_SWAP_WAIT_MS: '10000', SNAPSHOT_URL_PREFIXES: `${files.base}/snap/` };
    };
    a = await startTestApp({ keys, env: env('a', 'two') });
    b = await startTestApp({ env: { ...env('b', 'two'), DATABASE_URL: a.databaseUrl! } });
    c = await startTestApp({ env: { ...env('c', 'one'), DATABASE_URL: a.databaseUrl! } });
  }, 60_000);
  afterAll(async () => {
    for (const s of [a, b, c]) await s?.stop();
    await files?.close();
  });

  it('swaps every replica by one request and lists each outcome; a replica whose file is another version keeps its snapshot and says so on /ready', async () => {
    const r = await swap(a, { path: 'two.sqlite' });
    expect(r.status, r.text).toBe(200);
    const byId = (o: { id: string }[]) => Object.fromEntries(o.map((x) => [x.id, x]));
    const outcomes = byId(r.json.meta.replicas);
    expect(Object.keys(outcomes)).toHaveLength(3);
    const v2 = versionOf(two);
    const v1 = versionOf(one);
    expect(r.json.meta.replicas.filter((o: { outcome: string }) => o.outcome === 'swapped').map((o: { version: string }) => o.version)).toEqual([v2, v2]);
    const refused = r.json.meta.replicas.find((o: { outcome: string }) => o.outcome === 'refused');
    expect(refused).toMatchObject({ version: v1 });
    expect(refused.detail).toContain(`is version ${v1}, not ${v2}`);
    expect([await served(a), await served(b), await served(c)]).toEqual([v2, v2, v1]);
    const ready = await call(c, 'GET', '/ready');
    expect(ready.status).toBe(200);
    expect(ready.json.snapshot).toMatchObject({ version: v1, cluster: { version: v2 } });
    expect((await call(b, 'GET', '/ready')).json.snapshot.cluster).toBeUndefined();
    // A later swap that works clears it.
    const back = await swap(b, { path: 'one.sqlite' });
    expect(back.status, back.text).toBe(200);
    expect(back.json.meta.replicas.map((o: { outcome: string }) => o.outcome)).toEqual(['swapped', 'swapped', 'swapped']);
    expect([await served(a), await served(b), await served(c)]).toEqual([v1, v1, v1]);
    expect((await call(c, 'GET', '/ready')).json.snapshot.cluster).toBeUndefined();
  });

  it('a missing file is the outcome `missing`; scope "replica" swaps the receiving replica only', async () => {
    fs.rmSync(path.join(dirs.c, 'two.sqlite'));
    const r = await swap(a, { path: 'two.sqlite' });
    expect(r.status).toBe(200);
    expect(r.json.meta.replicas.map((o: { outcome: string }) => o.outcome).sort()).toEqual(['missing', 'swapped', 'swapped']);
    const one1 = await swap(b, { path: 'one.sqlite', scope: 'replica' });
    expect(one1.status).toBe(200);
    expect(one1.json.meta).toBeUndefined();
    expect([await served(a), await served(b)]).toEqual([versionOf(two), versionOf(one)]);
  });

  it('every replica downloads a URL swap and checks its hash', async () => {
    const r = await swap(c, { url: `${files.base}/snap/two.sqlite`, sha256: sha(two) });
    expect(r.status, r.text).toBe(200);
    expect(r.json.meta.replicas.map((o: { outcome: string }) => o.outcome)).toEqual(['swapped', 'swapped', 'swapped']);
    for (const s of [a, b, c]) expect(await served(s)).toBe(versionOf(two));
    expect(files.hits.get('/snap/two.sqlite')).toBe(3); // each replica into its own DATA_DIR
  });

  it('lists a replica alive but silent as pending once SNAPSHOT_SWAP_WAIT_MS passed; a stopped replica is not waited for', async () => {
    const db = await PgStore.open(a.databaseUrl!, { migrate: false });
    const d = await startTestApp({ env: { SNAPSHOT: one, SNAPSHOT_DIR: dirs.a, SNAPSHOT_SWAP_WAIT_MS: '300', DATABASE_URL: a.databaseUrl! } });
    try {
      await db.tx((s) => s.run('INSERT INTO replicas(id, name, started_at, seen_at, snapshot_version) VALUES (?, ?, ?, ?, ?)', ['silent', 'elsewhere:1', Date.now(), Date.now(), 'x']));
      const t0 = performance.now();
      const r = await swap(d, { path: 'one.sqlite' });
      expect(r.status, r.text).toBe(200);
      expect(performance.now() - t0).toBeLessThan(5000);
      expect(r.json.meta.replicas.find((o: { id: string }) => o.id === 'silent')).toEqual({ id: 'silent', name: 'elsewhere:1', outcome: 'pending', version: null, detail: null });
      expect(r.json.meta.replicas).toHaveLength(5);
    } finally {
      await db.tx((s) => s.run("DELETE FROM replicas WHERE id = 'silent'"));
      await d.stop();
    }
    const after = await db.read((s) => s.all<{ id: string }>('SELECT id FROM replicas'));
    await db.close();
    expect(after).toHaveLength(3);
  });
});
