import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import autocannon from 'autocannon';
import { VectorTile } from '@mapbox/vector-tile';
import { PbfReader } from 'pbf';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { buildSnapshot } from '../../src/import/default-snapshot.js';
import { Snapshot } from '../../src/storage/snapshot.js';
import { ROOT, call, keyFor, startTestApp, startTestServer, type TestServer } from '../helpers/server.js';
import { chargeBody } from '../pool/price-fixtures.js';

const ADMIN = keyFor('admin');
const READER = keyFor('reader');
const COSTS = keyFor('costs');
const FIXTURE_STATION = 'f0000000-0000-5000-8000-000000000001';

const swapBody = (p?: string) => ({ data: { type: 'snapshot_reload', attributes: p === undefined ? {} : { path: p } } });

describe('hot snapshot swap (SIGHUP, POST /admin/snapshot)', () => {
  let srv: TestServer;
  let dir: string;
  const sample = inject('testSnapshot');
  let extra: string;
  let sampleVersion: string;
  let extraVersion: string;
  const health = async () => (await call(srv, 'GET', '/health')).json.snapshot.version as string;
  const swap = (p?: string, key = ADMIN) => call(srv, 'POST', '/admin/snapshot', { key, body: swapBody(p) });

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(inject('testTmpRoot'), 'swap-'));
    extra = path.join(dir, 'extra.sqlite');
    buildSnapshot({ out: extra, sample: true, progress: false, extra: path.join(ROOT, 'test/fixtures/stations-extra.jsonl') });
    for (const [f, set] of [[sample, (v: string) => (sampleVersion = v)], [extra, (v: string) => (extraVersion = v)]] as const) {
      const s = Snapshot.open(f);
      set(s.meta.snapshotVersion);
      s.close();
    }
    srv = await startTestServer({
      keys: { admin: 'Admin', reader: 'ReadStations', costs: 'ReadCosts', catalog: 'ReadSimpleTariffs,ReadVehicles' },
      env: { WORKERS: '2', PRICING_INLINE_MAX_EVALUATIONS: '0' },
    });
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it('refuses missing or wrong keys and groups', async () => {
    expect((await call(srv, 'POST', '/admin/snapshot', { body: swapBody() })).status).toBe(403);
    const wrong = await swap(undefined, 'nope-nope-nope');
    expect(wrong.status).toBe(403);
    const group = await swap(undefined, READER);
    expect(group.status).toBe(403);
    expect(group.json.errors[0].title).toBe('action admin not allowed');
    expect((await call(srv, 'GET', '/admin/snapshot', { key: ADMIN })).status).toBe(405);
  });

  it('refuses bad bodies with 400', async () => {
    for (const body of [
      { data: { attributes: { path: 5 } } },
      { data: { attributes: { path: '' } } },
      { data: { attributes: { file: 'x' } } },
      { data: { type: 'stations' } },
      { data: { attributes: { path: 'a'.repeat(5000) } } },
      { data: { attributes: [] } },
      // Nulls are checked as sent: a null path is not an absent one (which would reload SNAPSHOT).
      { data: { attributes: { path: null } } },
      { data: { type: null } },
    ]) {
      const r = await call(srv, 'POST', '/admin/snapshot', { key: ADMIN, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
    }
    expect((await call(srv, 'POST', '/admin/snapshot', { key: ADMIN, raw: '{"data":' })).status).toBe(400);
    expect((await call(srv, 'POST', '/admin/snapshot', { key: ADMIN, raw: '', headers: { 'Content-Type': 'text/plain' } })).status).toBe(415);
  });

  it('refuses missing, foreign, truncated and damaged files; the old snapshot keeps serving', async () => {
    const before = await health();
    expect((await swap(path.join(dir, 'nope.sqlite'))).status).toBe(404);
    const text = path.join(dir, 'text.sqlite');
    fs.writeFileSync(text, 'not a database');
    const bytes = fs.readFileSync(extra);
    const head = path.join(dir, 'head.sqlite');
    fs.writeFileSync(head, bytes.subarray(0, 4096));
    const cut = path.join(dir, 'cut.sqlite');
    fs.writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length * 0.9)));
    const damaged = path.join(dir, 'damaged.sqlite');
    const d = Buffer.from(bytes);
    for (let i = Math.floor(d.length / 2); i < Math.floor(d.length / 2) + 65536 * 2; i++) d[i] = 0xa5;
    fs.writeFileSync(damaged, d);
    for (const f of [text, head, cut, damaged]) {
      const r = await swap(f);
      expect(r.status, `${f}: ${r.text}`).toBe(400);
      expect(r.json.errors[0].title).toBe('snapshot refused; the current snapshot keeps serving');
      expect(r.json.errors[0].detail).toContain(f);
    }
    expect(await health()).toBe(before);
    expect(srv.stdout()).toMatch(/snapshot swap refused; the current snapshot keeps serving/);
    // Counted for the operator (D120).
    const metrics = await (await fetch(`${srv.url}/metrics`)).text();
    expect(Number(/cps_snapshot_swaps_total\{result="refused"\} (\d+)/.exec(metrics)?.[1])).toBeGreaterThanOrEqual(4);
    expect(Number(/cps_snapshot_swaps_total\{result="missing"\} (\d+)/.exec(metrics)?.[1])).toBeGreaterThanOrEqual(1);
    expect((await call(srv, 'GET', `/v1/charging_stations/${FIXTURE_STATION}`, { key: READER })).status).toBe(404);
  });

  it('refuses a named pipe, a directory and a device at once, and swaps a regular file afterwards (D178)', async () => {
    const fifo = path.join(dir, 'pipe.sqlite');
    execFileSync('mkfifo', [fifo]);
    for (const f of [fifo, dir]) {
      const t0 = performance.now();
      const r = await swap(f);
      expect(r.status, `${f}: ${r.text}`).toBe(400);
      expect(r.json.errors[0].detail).toBe(`snapshot ${f} refused: not a regular file`);
      expect(performance.now() - t0).toBeLessThan(5000);
    }
    // The refusals left no swap running: the next one is not 409.
    expect((await swap(extra)).status).toBe(200);
    expect((await swap(sample)).status).toBe(200);
  });

  it('loads files from SNAPSHOT_DIR only (SNAPSHOT\'s directory by default), by absolute or relative path (D133)', async () => {
    const root = path.dirname(sample);
    // Outside the directory, whether the file exists or not, also through .. or a symbolic link.
    const link = path.join(dir, 'elsewhere.sqlite');
    fs.symlinkSync('/etc/hostname', link);
    // A directory link leading out, with a file there and without; a link leading nowhere.
    const outside = fs.mkdtempSync(path.join(path.dirname(root), 'cps-outside-'));
    fs.copyFileSync(extra, path.join(outside, 'real.sqlite'));
    fs.symlinkSync(outside, path.join(dir, 'out'));
    fs.symlinkSync(path.join(outside, 'later.sqlite'), path.join(dir, 'dangling.sqlite'));
    const escapes = [path.join(dir, 'out/real.sqlite'), path.join(dir, 'out/nothing.sqlite'), path.join(dir, 'out/sub/nothing.sqlite'), path.join(dir, 'dangling.sqlite')];
    for (const f of ['/dev/zero', '/etc/hostname', '/nonexistent/x.sqlite', '../x.sqlite', `${path.basename(dir)}/../../x.sqlite`, link, root, ...escapes]) {
      const r = await swap(f);
      expect(r.status, `${f}: ${r.text}`).toBe(400);
      expect(r.json.errors[0]).toMatchObject({ title: 'path must name a file in SNAPSHOT_DIR', source: { pointer: '/data/attributes/path' } });
      expect(r.json.errors[0].detail).toContain('SNAPSHOT_DIR');
    }
    fs.rmSync(outside, { recursive: true, force: true });
    // A name that only starts with two dots is a name like any other (404 when missing).
    expect((await swap('..not-a-parent.sqlite')).status).toBe(404);
    // A name relative to the directory.
    const rel = await swap(path.relative(root, extra));
    expect(rel.status, rel.text).toBe(200);
    expect(rel.json.data.attributes.file).toBe(extra);
    expect((await swap(sample)).status).toBe(200);
  });

  it('swaps by request and by SIGHUP; /health and station reads follow; a second swap at once is 409', async () => {
    const r = await swap(extra);
    expect(r.status, r.text).toBe(200);
    expect(r.json.data).toMatchObject({ type: 'snapshots', id: extraVersion, attributes: { version: extraVersion, file: extra } });
    expect(r.json.data.attributes.stations).toBeGreaterThan(1927);
    expect(await health()).toBe(extraVersion);
    expect((await call(srv, 'GET', `/v1/charging_stations/${FIXTURE_STATION}`, { key: READER })).status).toBe(200);
    // A paged reader sees the swap in the pages' meta (D27).
    const page = `/v1/charging_stations?filter[latitude]=48.8566&filter[longitude]=2.3522&filter[radius]=3000&page[size]=5`;
    expect((await call(srv, 'GET', page, { key: READER })).json.meta.snapshot_version).toBe(extraVersion);

    const [a, b] = await Promise.all([swap(sample), swap(sample)]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    expect(await health()).toBe(sampleVersion);
    expect((await call(srv, 'GET', `/v1/charging_stations/${FIXTURE_STATION}`, { key: READER })).status).toBe(404);
    expect((await call(srv, 'GET', page, { key: READER })).json.meta.snapshot_version).toBe(sampleVersion);

    // SIGHUP loads SNAPSHOT (the sample) again.
    await swap(extra);
    srv.proc.kill('SIGHUP');
    for (let i = 0; i < 100 && (await health()) !== sampleVersion; i++) await new Promise((res) => setTimeout(res, 50));
    expect(await health()).toBe(sampleVersion);
  });

  it('map tiles follow a swap: the clusters of the world tile count the new snapshot\'s stations (D191)', async () => {
    /** The stations the clusters of tile 0/0/0 stand for, and how many stations the snapshot has. */
    const world = async (): Promise<number> => {
      const r = await fetch(`${srv.url}/v1/tiles/stations/0/0/0.mvt`, { headers: { 'Api-Key': READER } });
      expect(r.status).toBe(200);
      const l = new VectorTile(new PbfReader(Buffer.from(await r.arrayBuffer()))).layers.clusters;
      let n = 0;
      for (let k = 0; k < l.length; k++) {
        const [[p]] = l.feature(k).loadGeometry();
        if (p.x >= 0 && p.x < 4096 && p.y >= 0 && p.y < 4096) n += Number(l.feature(k).properties.count);
      }
      return n;
    };
    const stations = (f: string): number => {
      const s = Snapshot.open(f);
      try {
        return s.stationCount();
      } finally {
        s.close();
      }
    };
    expect(stations(extra)).toBeGreaterThan(stations(sample));
    expect((await swap(extra)).status).toBe(200);
    expect(await world()).toBe(stations(extra));
    expect((await swap(sample)).status).toBe(200);
    expect(await world()).toBe(stations(sample));
  });

  it('serves radius searches, station reads and charge prices without a failure while swapping 10 times', async () => {
    const snap = Snapshot.open(sample);
    const st = [...snap.stations()].find((s) => s.operator_id !== null && s.country === 'DE')!;
    snap.close();
    const price = JSON.stringify(chargeBody({ network: st.operator_id!, latitude: st.latitude, longitude: st.longitude, country: 'DE' }));
    const q = `filter[latitude]=${st.latitude}&filter[longitude]=${st.longitude}&filter[radius]=3000&page[size]=20`;
    const run = autocannon({
      url: srv.url,
      connections: 8,
      duration: 4,
      requests: [
        { method: 'GET', path: `/v1/charging_stations?${encodeURI(q)}`, headers: { 'Api-Key': READER } },
        { method: 'GET', path: `/v1/charging_stations/${st.id}`, headers: { 'Api-Key': READER } },
        { method: 'POST', path: '/v1/charge_prices', headers: { 'Api-Key': COSTS, 'Content-Type': 'application/json' }, body: price },
      ],
    });
    let swaps = 0;
    const swapping = (async () => {
      await new Promise((res) => setTimeout(res, 300));
      for (let i = 0; i < 10; i++) {
        const r = await swap(i % 2 === 0 ? extra : sample);
        expect(r.status, r.text).toBe(200);
        swaps++;
        await new Promise((res) => setTimeout(res, 200));
      }
    })();
    const [result] = await Promise.all([run, swapping]);
    expect(swaps).toBe(10);
    expect(result.requests.total).toBeGreaterThan(100);
    expect(result.errors).toBe(0);
    expect(result.timeouts).toBe(0);
    expect(result.non2xx).toBe(0);
    expect(await health()).toBe(sampleVersion);
  });

  it('an area search whose body arrives across a swap prices the stations its own snapshot found', async () => {
    const CATALOG = keyFor('catalog');
    const list = await call(srv, 'GET', '/v1/tariffs', { key: CATALOG });
    expect(list.status, list.text.slice(0, 300)).toBe(200);
    const tariffs = list.json.data.map((t: { id: string }) => ({ type: 'tariff', id: t.id }));
    const vehicle = (await call(srv, 'GET', '/v2/vehicles', { key: CATALOG })).json.data[0].id;
    const body = JSON.stringify({
      data: {
        type: 'area_price_preview_request',
        attributes: { battery_range: [10, 80], latitude: 52.52, longitude: 13.405, radius: 20_000, limit: 1000 },
        relationships: { tariffs: { data: tariffs.slice(0, 50) }, vehicle: { data: { type: 'car', id: vehicle } } },
      },
    });
    const search = async () => (await call(srv, 'POST', '/v1/charge_prices/area', { key: COSTS, raw: body })).json;
    expect((await swap(extra)).status).toBe(200);
    const onExtra = await search();
    expect(onExtra.data.length).toBeGreaterThan(0);
    // Headers and half the body on the extra snapshot's route table, the rest after a swap.
    expect((await swap(extra)).status).toBe(200);
    const sock = net.connect(srv.port, '127.0.0.1');
    await new Promise((res) => sock.once('connect', res));
    const chunks: Buffer[] = [];
    sock.on('data', (c: Buffer) => chunks.push(c));
    const ended = new Promise((res) => sock.once('close', res));
    const half = Math.floor(body.length / 2);
    sock.write(`POST /v1/charge_prices/area HTTP/1.1\r\nHost: x\r\nApi-Key: ${COSTS}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body.slice(0, half)}`);
    await new Promise((res) => setTimeout(res, 100));
    expect((await swap(sample)).status).toBe(200);
    sock.write(body.slice(half));
    await ended;
    const text = Buffer.concat(chunks).toString();
    expect(text.startsWith('HTTP/1.1 200'), text.slice(0, 300)).toBe(true);
    const doc = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
    // The route table the request was matched on (the extra snapshot's) found and priced its stations.
    expect(doc).toEqual(onExtra);
  });
});

describe('the snapshot loader\'s time limit (D178)', () => {
  it('refuses a file whose loader does not finish within SNAPSHOT_LOAD_TIMEOUT_MS, and the next swap runs', async () => {
    const app = await startTestApp({ keys: { admin: 'Admin' }, env: { SNAPSHOT_LOAD_TIMEOUT_MS: '1' } });
    try {
      const file = inject('testSnapshot');
      const r = await call(app, 'POST', '/admin/snapshot', { key: ADMIN, body: swapBody(file) });
      expect(r.status, r.text).toBe(400);
      expect(r.json.errors[0].detail).toBe(`snapshot ${file} refused: the loader did not finish within 1 ms`);
      // Not stuck: the next swap is refused for the same reason, not 409 "already running".
      expect((await call(app, 'POST', '/admin/snapshot', { key: ADMIN, body: swapBody(file) })).status).toBe(400);
    } finally {
      await app.stop();
    }
  });
});
