/**
 * `npm run test:cluster`: two replicas behind nginx on one shared PostgreSQL live store
 * (deploy/cluster.sh with LIVE_STORE=postgres: a throw-away cluster, the replicas, nginx; D150–D152).
 *
 * - Both replicas answer station searches with the same bytes.
 * - Read-your-writes across replicas: a company, a tariff, a charge price, a key written or
 *   created through replica A (or the keys CLI) is seen by replica B at once; a revoked key is
 *   refused by both within KEY_REFRESH_MS; the optimistic lock holds across replicas (one of
 *   two writers of the same version wins, the other gets 409).
 * - SIGKILL of one replica under read and write load: nginx routes around it (reads all 200) and
 *   every acknowledged write is in the store.
 * - PostgreSQL stopped (immediate and fast, several times) under 16 writers: both replicas keep
 *   running and write again by themselves (D174).
 * - A PostgreSQL restart under load: meanwhile writes and catalog reads answer 503 `storage
 *   unavailable`, station search keeps answering 200, `/ready` says why; afterwards everything
 *   answers again by itself, writes work, and the change notifications are back (a change
 *   written straight into the store reaches the replica with no request asking for it).
 * - Statuses (D216): a status PUT on A is in B's answers at once; a bulk of 10,000 on B in A's.
 * - A snapshot swap on A (D220) swaps both replicas, with no failed request through nginx meanwhile.
 * - Rate limits (D218, a second cluster with RATE_LIMIT=on): 200 requests of one key alternating
 *   between A and B serve its limit of 100 plus at most the documented slack; with PostgreSQL
 *   stopped the replicas fail open on their own counts (statuses refused 503), and once it is
 *   back they share the counts made meanwhile and statuses reach the other replica again.
 *
 * Needs Debian's nginx and postgresql (.ci/run installs them with apt when missing).
 */
import { execFile, execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { buildSnapshot } from '../../src/import/default-snapshot.js';
import { openLiveStore } from '../../src/storage/open.js';
import { Snapshot } from '../../src/storage/snapshot.js';
import { writeCompany } from '../../src/storage/companies.js';
import { logChange, nextGeneration } from '../../src/storage/tariffs.js';
import { call, type TestServer } from '../helpers/server.js';
import { chargeBody, comp, putCompany, putTariff, ref, seg } from '../pool/price-fixtures.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SCRIPT = path.join(ROOT, 'deploy/cluster.sh');
const PG = path.join(ROOT, 'deploy/postgres.sh');
const KEY = 'cluster-test-key-00000001';
const KEY_REFRESH_MS = 500;
const run = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** PostgreSQL stop modes of the restart test: each several times (CI: fewer rounds). */
const ROUNDS = process.env.CI === 'true' ? ['immediate', 'fast', 'immediate'] : ['immediate', 'fast', 'immediate', 'fast', 'immediate', 'fast'];

let dir: string;
let databaseUrl: string;
/** The sample snapshot with the fixture stations (test/fixtures/stations-extra.jsonl), which have EVSE ids. */
let withEvses: string;
/** A station of that snapshot with EVSE ids (found by the status test). */
let evseStation: { id: string; evseIds: string[] } | null = null;

describe('replicas behind nginx on a shared PostgreSQL live store', () => {
  let url: string;
  let a: TestServer;
  let b: TestServer;
  const replica = (k: number): TestServer => ({ url: `http://127.0.0.1:${fs.readFileSync(path.join(dir, `replica-${k}.port`), 'utf8').trim()}` }) as TestServer;

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cps-cluster-test-'));
    // SNAPSHOT_DIR of both replicas (shared storage): the snapshot they start with and a second one.
    // one.sqlite: the sample with the fixture stations, whose EVSEs take statuses; two.sqlite: the sample.
    fs.mkdirSync(path.join(dir, 'snapshots'));
    withEvses = path.join(inject('testTmpRoot'), 'cluster-with-evses.sqlite');
    buildSnapshot({ out: withEvses, sample: true, progress: false, extra: path.join(ROOT, 'test/fixtures/stations-extra.jsonl') });
    fs.copyFileSync(withEvses, path.join(dir, 'snapshots/one.sqlite'));
    fs.copyFileSync(inject('testSnapshot'), path.join(dir, 'snapshots/two.sqlite'));
    let out: string;
    try {
      out = execFileSync(SCRIPT, ['start', dir, '2'], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, LIVE_STORE: 'postgres', CLUSTER_KEY: KEY, SNAPSHOT: path.join(dir, 'snapshots/one.sqlite'), KEY_REFRESH_MS: String(KEY_REFRESH_MS) },
      });
    } catch (e) {
      throw new Error(`deploy/cluster.sh start failed: ${String((e as { stderr?: string }).stderr)}`);
    }
    url = /URL=(\S+)/.exec(out)![1];
    databaseUrl = /DATABASE_URL=(\S+)/.exec(out)![1];
    a = replica(1);
    b = replica(2);
  }, 120_000);
  afterAll(() => {
    execFileSync(SCRIPT, ['stop', dir]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const get = async (p: string, base = url): Promise<{ status: number; body: string }> => {
    const r = await fetch(base + p, { headers: { 'Api-Key': KEY } });
    return { status: r.status, body: await r.text() };
  };
  const search = '/v1/charging_stations?filter[latitude]=48.8566&filter[longitude]=2.3522&filter[radius]=20000&page[size]=20';
  const keysCli = (...args: string[]) =>
    run(process.execPath, [path.join(ROOT, 'dist/src/cli/keys.js'), ...args], { env: { PATH: process.env.PATH ?? '', DATA_DIR: dir, DATABASE_URL: databaseUrl } });

  it('answers alike from both replicas', async () => {
    const bodies = new Set<string>();
    for (const base of [a.url, b.url, url, url]) {
      const r = await get(search, base);
      expect(r.status).toBe(200);
      bodies.add(r.body);
    }
    expect(bodies.size).toBe(1);
    expect(JSON.parse([...bodies][0]).data.length).toBeGreaterThan(0);
  });

  /** A GET from the loopback address `from` (Linux answers the whole 127/8), with extra headers. */
  const getFrom = (base: string, p: string, from: string, headers: Record<string, string> = {}): Promise<number> =>
    new Promise((resolve, reject) => {
      const u = new URL(base + p);
      const req = http.request({ host: u.hostname, port: u.port, path: u.pathname + u.search, localAddress: from, headers: { 'Api-Key': KEY, ...headers } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      });
      req.on('error', reject);
      req.end();
    });

  it('behind nginx each client has its own guessing limits; X-Forwarded-For counts only from nginx (D245)', async () => {
    const junk = `/account/confirm?token=${'j'.repeat(43)}`;
    // 20 mail-page requests per client address in 15 minutes (D209): the 21st from one client is refused…
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) statuses.push(await getFrom(url, junk, '127.0.0.2'));
    expect(statuses.slice(0, 20).every((s) => s === 400)).toBe(true);
    expect(statuses[20]).toBe(429);
    // …while another client through the same nginx is not.
    expect(await getFrom(url, junk, '127.0.0.3')).toBe(400);
    // Straight to a replica from an address that is not nginx's, X-Forwarded-For chooses nothing: the
    // limited client cannot be blamed, and the sender is counted as itself.
    expect(await getFrom(a.url, junk, '127.0.0.4', { 'X-Forwarded-For': '127.0.0.3' })).toBe(400);
    expect(await getFrom(a.url, junk, '127.0.0.5', { 'X-Forwarded-For': '127.0.0.2' })).toBe(400);
  });

  describe('read-your-writes across replicas', () => {
    it('sees a company written on A on B at once, and B’s next version on A', async () => {
      for (let k = 0; k < 5; k++) {
        const id = await putCompany(a, KEY, { name: `Written on A ${k}` });
        const onB = await call(b, 'GET', `/v1/companies?filter[id]=${id}`, { key: KEY });
        expect(onB.json.data.map((c: { attributes: { name: string } }) => c.attributes.name)).toEqual([`Written on A ${k}`]);
        await putCompany(b, KEY, { name: `Written on B ${k}` }, id, 2);
        const onA = await call(a, 'GET', `/v1/companies?filter[id]=${id}`, { key: KEY });
        expect(onA.json.data[0].attributes).toMatchObject({ name: `Written on B ${k}`, version: 2 });
      }
    });

    it('prices on B with a tariff written on A at once, and with its next version', async () => {
      const emp = await putCompany(a, KEY, {});
      const cpo = await putCompany(a, KEY, { is_cpo: true, is_emp: false, supported_emps: [emp] });
      const price = async (srv: TestServer, tariff: string) => {
        const r = await call(srv, 'POST', '/v1/charge_prices', { key: KEY, body: chargeBody({ network: cpo, relationships: { tariffs: { data: [ref('tariff', tariff)] } } }) });
        expect(r.status, r.text).toBe(200);
        return r.json.data[0]?.attributes.charge_point_prices[0].price as number | undefined;
      };
      const tariff = await putTariff(a, KEY, emp, { attributes: { prices: [comp([seg('kwh', 0.5)])] } });
      const listed = await call(b, 'GET', `/v2/tariffs?filter[emp.id]=${emp}`, { key: KEY });
      expect(listed.json.data.map((t: { id: string }) => t.id)).toEqual([tariff]);
      expect(await price(b, tariff)).toBeCloseTo(11, 6); // 22 kWh × 0.50
      await putTariff(a, KEY, emp, { version: 2, attributes: { prices: [comp([seg('kwh', 0.25)])] } }, tariff);
      expect(await price(b, tariff)).toBeCloseTo(5.5, 6);
      await putTariff(b, KEY, emp, { version: 3, attributes: { prices: [comp([seg('kwh', 1)])] } }, tariff);
      expect(await price(a, tariff)).toBeCloseTo(22, 6);
    });

    it('accepts a key created by the CLI on both replicas at once, and refuses it on both within KEY_REFRESH_MS of its revocation', async () => {
      const name = `late-${randomUUID().slice(0, 8)}`;
      const key = `late-key-${randomUUID()}`;
      await keysCli('create', '--groups', 'ReadTariffs', '--key', key, '--name', name);
      for (const srv of [b, a]) expect((await call(srv, 'GET', '/v1/companies?page[size]=1', { key })).status).toBe(200);
      await keysCli('revoke', name);
      const t0 = performance.now();
      await sleep(KEY_REFRESH_MS + 200);
      for (const srv of [a, b]) {
        const r = await call(srv, 'GET', '/v1/companies?page[size]=1', { key });
        expect(r.status).toBe(403);
        expect(r.json.errors[0].title).toBe('api_key invalid');
      }
      expect(performance.now() - t0).toBeLessThan(KEY_REFRESH_MS + 1000);
    });

    it('catches up by notification: a change written straight into the store reaches both replicas with no request asking for it', async () => {
      const before = await Promise.all([catchUps(a), catchUps(b)]);
      await writeDirectly();
      await vi.waitFor(async () => expect(await Promise.all([catchUps(a), catchUps(b)])).toEqual([before[0] + 1, before[1] + 1]), { timeout: 2000, interval: 20 });
    });

    it('keeps the optimistic lock across replicas: a stale version on B gets 409, and of concurrent writers of one version exactly one wins', async () => {
      const id = await putCompany(a, KEY, { name: 'v1' });
      await putCompany(a, KEY, { name: 'v2 on A' }, id, 2);
      const stale = await call(b, 'PUT', `/v1/companies/${id}`, {
        key: KEY,
        body: { data: { id, type: 'company', attributes: { name: 'v2 on B', version: 2, is_cpo: false, is_emp: true, external_source_mapping: {} }, relationships: { supported_emps: { data: [] } } } },
      });
      expect(stale.status).toBe(409);
      for (let round = 3; round < 8; round++) {
        const results = await Promise.all(
          Array.from({ length: 8 }, (_, k) =>
            call(k % 2 === 0 ? a : b, 'PUT', `/v1/companies/${id}`, {
              key: KEY,
              body: { data: { id, type: 'company', attributes: { name: `v${round} by ${k}`, version: round, is_cpo: false, is_emp: true, external_source_mapping: {} }, relationships: { supported_emps: { data: [] } } } },
            }),
          ),
        );
        const statuses = results.map((r) => r.status).sort();
        expect(statuses).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
        const winner = results.find((r) => r.status === 200)!.json.data.attributes.name;
        for (const srv of [a, b]) expect((await call(srv, 'GET', `/v1/companies?filter[id]=${id}`, { key: KEY })).json.data[0].attributes.name).toBe(winner);
      }
    });
  });

  it('shows a status accepted by A in B’s answers at once, and a bulk of 10,000 statuses on B in A’s (D216)', async () => {
    const stations = (await stationsWithEvses(a, 20)).map((x) => ({ id: x.id, attributes: { evse_ids: x.evseIds } }));
    expect(stations).toHaveLength(2); // DK*FIX*E1, E2 and E3
    evseStation = { id: stations[0].id, evseIds: stations[0].attributes.evse_ids };
    const available = async (srv: TestServer, id: string): Promise<unknown[]> =>
      (await call(srv, 'GET', `/v1/charging_stations/${id}?availability=true`, { key: KEY })).json.data.attributes.charge_points.map((c: { available_count: unknown }) => c.available_count);
    const first = stations[0];
    expect((await available(b, first.id)).every((n) => n === null)).toBe(true);
    const put = await call(a, 'PUT', '/ocpi/2.2.1/locations/FR/TST/L1/u1', { key: KEY, body: { uid: 'u1', evse_id: first.attributes.evse_ids[0], status: 'AVAILABLE', last_updated: new Date().toISOString() } });
    expect(put.status, put.text).toBe(200);
    await vi.waitFor(async () => expect((await available(b, first.id)).filter((n) => n === 1)).toHaveLength(1), { timeout: 1000, interval: 10 });
    // 10,000 statuses on B over those EVSEs, each EVSE's newest AVAILABLE.
    const evses = stations.flatMap((x) => x.attributes.evse_ids);
    const t0 = Date.now() - 60_000;
    const statuses = Array.from({ length: 10_000 }, (_, i) => ({ evse_id: evses[i % evses.length], status: i >= 10_000 - evses.length ? 'AVAILABLE' : 'OUTOFORDER', last_updated: new Date(t0 + i).toISOString() }));
    const bulk = await call(b, 'POST', '/v1/availability', { key: KEY, body: { data: { type: 'evse_statuses', attributes: { statuses } } } });
    expect(bulk.status, bulk.text.slice(0, 300)).toBe(200);
    expect(bulk.json.meta).toMatchObject({ received: 10_000, unknown: 0 });
    for (const x of stations) {
      const onB = await available(b, x.id);
      expect(onB.some((n) => typeof n === 'number' && n > 0)).toBe(true);
      await vi.waitFor(async () => expect(await available(a, x.id)).toEqual(onB), { timeout: 1000, interval: 10 });
    }
  });

  it('swaps both replicas by one request on A, with no failed request through nginx meanwhile (D220)', async () => {
    const versionOf = (f: string): string => {
      const snap = Snapshot.open(path.join(dir, 'snapshots', f));
      try {
        return snap.meta.snapshotVersion;
      } finally {
        snap.close();
      }
    };
    const [v1, v2] = [versionOf('one.sqlite'), versionOf('two.sqlite')];
    const served = async (srv: TestServer) => (await call(srv, 'GET', '/health')).json.snapshot.version as string;
    expect([await served(a), await served(b)]).toEqual([v1, v1]);
    const seen = new Map<number, number>();
    let stop = false;
    const reader = async (): Promise<void> => {
      while (!stop) {
        let status: number;
        try {
          status = (await get(search)).status;
        } catch {
          status = 0;
        }
        seen.set(status, (seen.get(status) ?? 0) + 1);
      }
    };
    const workers = Array.from({ length: 8 }, reader);
    const swapTo = (srv: TestServer, file: string) => call(srv, 'POST', '/admin/snapshot', { key: KEY, body: { data: { type: 'snapshot_reload', attributes: { path: file } } } });
    await sleep(300);
    const r = await swapTo(a, 'two.sqlite');
    await sleep(300);
    stop = true;
    await Promise.all(workers);
    expect(r.status, r.text).toBe(200);
    expect(r.json.meta.replicas.map((o: { outcome: string; version: string }) => [o.outcome, o.version])).toEqual([['swapped', v2], ['swapped', v2]]);
    expect([await served(a), await served(b)]).toEqual([v2, v2]);
    const total = [...seen.values()].reduce((x, y) => x + y, 0);
    expect(total).toBeGreaterThan(50);
    expect(Object.fromEntries(seen)).toEqual({ 200: total });
    const back = await swapTo(b, 'one.sqlite');
    expect(back.json.meta.replicas.map((o: { outcome: string }) => o.outcome)).toEqual(['swapped', 'swapped']);
    expect([await served(a), await served(b)]).toEqual([v1, v1]);
  });

  it('keeps both replicas running through PostgreSQL stops (immediate and fast) under 16 writers through nginx (D174)', async () => {
    const port = new URL(databaseUrl).port;
    const pids = [1, 2].map((k) => Number(fs.readFileSync(path.join(dir, `replica-${k}.pid`), 'utf8')));
    const outcomes = new Map<number, number>();
    let stop = false;
    const writer = async (): Promise<void> => {
      while (!stop) {
        const { status } = await putNewCompany(url, 'through stops');
        outcomes.set(status, (outcomes.get(status) ?? 0) + 1);
        if (status !== 201) await sleep(20);
      }
    };
    const workers = Array.from({ length: 16 }, writer);
    for (const mode of ROUNDS) {
      await sleep(400);
      execFileSync('bash', [PG, 'stop', path.join(dir, 'pg'), mode]);
      await sleep(600);
      execFileSync('bash', [PG, 'start', path.join(dir, 'pg'), port]);
      pids.forEach((pid, i) => expect(alive(pid), `replica ${i + 1} exited after a ${mode} stop:\n${fs.readFileSync(path.join(dir, `replica-${i + 1}.log`), 'utf8').slice(-3000)}`).toBe(true));
      // Both replicas write again by themselves.
      for (const srv of [a, b]) {
        await vi.waitFor(async () => expect((await putCompany(srv, KEY, { name: `after ${mode}` }).then(() => 201, () => 0))).toBe(201), { timeout: 15_000, interval: 100 });
      }
    }
    stop = true;
    await Promise.all(workers);
    for (const pid of pids) expect(alive(pid)).toBe(true);
    for (const srv of [a, b]) expect((await call(srv, 'GET', '/ready')).status).toBe(200);
    expect(outcomes.get(201) ?? 0).toBeGreaterThan(50);
    for (const s of outcomes.keys()) expect([201, 502, 503, 504]).toContain(s);
    for (const k of [1, 2]) expect(fs.readFileSync(path.join(dir, `replica-${k}.log`), 'utf8')).not.toMatch(/unhandled|uncaught/i);
  }, 180_000);

  it('routes around a replica killed with SIGKILL under load: reads all 200, every acknowledged write kept', async () => {
    const id = JSON.parse((await get(search)).body).data[0].id as string;
    const statuses = new Map<number, number>();
    const acked: string[] = [];
    const writeOutcomes = new Map<number, number>();
    let stop = false;
    const reader = async (): Promise<void> => {
      for (let k = 0; !stop; k++) {
        let status: number;
        try {
          status = (await get(k % 2 === 0 ? `/v1/charging_stations/${id}` : search)).status;
        } catch {
          status = 0; // the connection failed
        }
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    };
    const writer = async (): Promise<void> => {
      while (!stop) {
        const { status, id: cid } = await putNewCompany(url, 'under load');
        writeOutcomes.set(status, (writeOutcomes.get(status) ?? 0) + 1);
        if (status === 201) acked.push(cid);
      }
    };
    const workers = [...Array.from({ length: 12 }, reader), ...Array.from({ length: 4 }, writer)];
    await sleep(1000);
    process.kill(Number(fs.readFileSync(path.join(dir, 'replica-1.pid'), 'utf8')), 'SIGKILL');
    await sleep(2000);
    stop = true;
    await Promise.all(workers);
    const total = [...statuses.values()].reduce((x, y) => x + y, 0);
    expect(total).toBeGreaterThan(100);
    expect(Object.fromEntries(statuses)).toEqual({ 200: total });
    expect(acked.length).toBeGreaterThan(20);
    // A write in flight on the killed replica may fail (nginx resends a PUT it could not send,
    // and one whose answer was lost can meet its own commit as a 409); none that was
    // acknowledged may be missing.
    for (const s of writeOutcomes.keys()) expect([0, 201, 409, 502, 503, 504]).toContain(s);
    const ids = new Set<string>();
    for (let i = 0; i < acked.length; i += 50) {
      const chunk = acked.slice(i, i + 50);
      const r = await call(b, 'GET', `/v1/companies?filter[id]=${chunk.join(',')}&page[size]=100`, { key: KEY });
      for (const c of r.json.data as { id: string }[]) ids.add(c.id);
    }
    expect(acked.filter((x) => !ids.has(x))).toEqual([]);
  });

  it('answers 503 for writes and catalog reads while PostgreSQL restarts, keeps station search up, and recovers by itself', async () => {
    const port = new URL(databaseUrl).port;
    const emp = await putCompany(b, KEY, {});
    const seen = { search: new Map<number, number>(), companies: new Map<number, number>() };
    const bodies: string[] = [];
    let stop = false;
    const count = (m: Map<number, number>, s: number) => m.set(s, (m.get(s) ?? 0) + 1);
    const load = async (): Promise<void> => {
      for (let k = 0; !stop; k++) {
        const s = await get(search, b.url);
        count(seen.search, s.status);
        const c = await call(b, 'GET', `/v1/companies?filter[id]=${emp}`, { key: KEY });
        count(seen.companies, c.status);
        if (c.status === 503) bodies.push(c.text);
      }
    };
    const workers = Array.from({ length: 4 }, load);
    await sleep(500);
    execFileSync('bash', [PG, 'stop', path.join(dir, 'pg')]);
    await sleep(300);
    const downId = randomUUID();
    const write = await call(b, 'PUT', `/v1/companies/${downId}`, {
      key: KEY,
      body: { data: { id: downId, type: 'company', attributes: { name: 'x', version: 1, is_cpo: false, is_emp: true, external_source_mapping: {} }, relationships: { supported_emps: { data: [] } } } },
    });
    const ready = await call(b, 'GET', '/ready');
    await sleep(1200);
    execFileSync('bash', [PG, 'start', path.join(dir, 'pg'), port]);
    const back = performance.now();
    let recoveredMs = -1;
    while (performance.now() - back < 15_000) {
      const c = await call(b, 'GET', `/v1/companies?filter[id]=${emp}`, { key: KEY });
      if (c.status === 200) {
        recoveredMs = performance.now() - back;
        break;
      }
      await sleep(50);
    }
    stop = true;
    await Promise.all(workers);
    expect(write.status).toBe(503);
    expect(write.json.errors[0]).toMatchObject({ status: '503', title: 'storage unavailable' });
    expect(ready.status).toBe(503);
    expect(ready.json.meta.checks.live_store).toMatch(/^database unreachable/);
    expect(Object.fromEntries(seen.search)).toEqual({ 200: [...seen.search.values()].reduce((x, y) => x + y, 0) });
    expect([...seen.companies.keys()].sort()).toEqual([200, 503]);
    expect(JSON.parse(bodies[0]).errors[0]).toMatchObject({ status: '503', title: 'storage unavailable' });
    expect(recoveredMs).toBeGreaterThanOrEqual(0);
    // Writes work again, through nginx too; the write refused during the outage left nothing.
    const id = await putCompany({ url } as TestServer, KEY, { name: 'after the restart' });
    expect((await call(b, 'GET', `/v1/companies?filter[id]=${id},${downId}`, { key: KEY })).json.data.map((c: { attributes: { name: string } }) => c.attributes.name)).toEqual(['after the restart']);
    expect((await call(b, 'GET', '/ready')).status).toBe(200);

    // The replica catches up by itself after the restart too (the notification connection is
    // back, or its reconnect catches up): a change written straight into the store arrives
    // with no request asking for it.
    const before = await catchUps(b);
    await writeDirectly();
    await vi.waitFor(async () => expect(await catchUps(b)).toBe(before + 1), { timeout: 3000, interval: 50 });
  });
});

describe('rate limits across replicas, and the shared store stopped under load (D216, D218)', () => {
  let dir2: string;
  let url2: string;
  let a: TestServer;
  let b: TestServer;
  const replica = (k: number): TestServer => ({ url: `http://127.0.0.1:${fs.readFileSync(path.join(dir2, `replica-${k}.port`), 'utf8').trim()}` }) as TestServer;
  const LIMIT = 100;

  beforeAll(async () => {
    dir2 = fs.mkdtempSync(path.join(os.tmpdir(), 'cps-cluster-limits-'));
    const out = execFileSync(SCRIPT, ['start', dir2, '2'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LIVE_STORE: 'postgres', CLUSTER_KEY: KEY, SNAPSHOT: withEvses, RATE_LIMIT: 'on', RATE_LIMIT_REQUESTS: String(LIMIT), RATE_LIMIT_WINDOW_S: '300', RATE_LIMIT_SYNC_MS: '100' },
    });
    url2 = /DATABASE_URL=(\S+)/.exec(out)![1];
    a = replica(1);
    b = replica(2);
    for (const k of ['limited-1', 'limited-2']) {
      await run(process.execPath, [path.join(ROOT, 'dist/src/cli/keys.js'), 'create', '--groups', 'ReadStations', '--key', `${k}-key-0000000000`, '--name', k], {
        env: { PATH: process.env.PATH ?? '', DATA_DIR: dir2, DATABASE_URL: url2 },
      });
    }
  }, 120_000);
  afterAll(() => {
    execFileSync(SCRIPT, ['stop', dir2]);
    fs.rmSync(dir2, { recursive: true, force: true });
  });

  /** `n` station reads with `key`, alternating between A and B, `gapMs` apart: the statuses and the last 429. */
  const alternate = async (key: string, n: number, gapMs: number): Promise<{ served: number; refused: number; other: number; last429: Response | null }> => {
    const tally = { served: 0, refused: 0, other: 0, last429: null as Response | null };
    for (let i = 0; i < n; i++) {
      const r = await fetch(`${(i % 2 === 0 ? a : b).url}/v1/charging_stations?filter[latitude]=48.8566&filter[longitude]=2.3522&filter[radius]=1000&page[size]=1`, { headers: { 'Api-Key': key } });
      await r.arrayBuffer();
      if (r.status === 200) tally.served++;
      else if (r.status === 429) {
        tally.refused++;
        tally.last429 = r;
      } else tally.other++;
      await sleep(gapMs);
    }
    return tally;
  };

  it('holds a key’s limit for the cluster: 200 requests alternating between A and B serve the limit plus at most the documented slack', async () => {
    const t = await alternate('limited-1-key-0000000000', 200, 10);
    expect(t.other).toBe(0);
    // D218: beyond the limit, at most what the other replica admits in one exchange interval (100 ms ≈ 5 of its requests here).
    expect(t.served).toBeGreaterThanOrEqual(LIMIT);
    expect(t.served).toBeLessThanOrEqual(LIMIT + 10);
    expect(t.last429!.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(t.last429!.headers.get('ratelimit')).toMatch(/^"requests";r=0;t=\d+$/);
    expect(t.last429!.headers.get('ratelimit-policy')).toBe(`"requests";q=${LIMIT};w=300`);
  });

  it('fails open while PostgreSQL is stopped (each replica on its own counts; statuses refused 503), then shares the counts made meanwhile', async () => {
    const key = 'limited-2-key-0000000000';
    const port = new URL(url2).port;
    // Found by the first cluster's status test (same snapshot): this key is limited to 100 requests here.
    const station = { id: evseStation!.id, attributes: { evse_ids: evseStation!.evseIds } };
    const putStatus = (srv: TestServer) =>
      call(srv, 'PUT', '/ocpi/2.2.1/locations/FR/TST/L2/u2', { key: KEY, body: { uid: 'u2', evse_id: station.attributes.evse_ids[0], status: 'AVAILABLE', last_updated: new Date().toISOString() } });
    expect(await alternate(key, 60, 10)).toMatchObject({ served: 60, refused: 0 });
    await sleep(400); // both replicas hold the 60 (one exchange each)
    // A clean stop: a crash (immediate) would also empty the UNLOGGED counts (D218).
    execFileSync('bash', [PG, 'stop', path.join(dir2, 'pg'), 'fast']);
    try {
      // Each replica admits the 40 left of what it knows: 80 of 100, where one process would admit 40.
      const down = await alternate(key, 100, 10);
      expect(down).toMatchObject({ other: 0 });
      expect(down.served).toBeGreaterThanOrEqual(78);
      expect(down.served).toBeLessThanOrEqual(80);
      const status = await putStatus(a);
      expect(status.status).toBe(503);
      expect(status.json.errors[0].title).toBe('storage unavailable');
    } finally {
      execFileSync('bash', [PG, 'start', path.join(dir2, 'pg'), port]);
    }
    for (const k of [1, 2]) {
      await vi.waitFor(() => expect(fs.readFileSync(path.join(dir2, `replica-${k}.log`), 'utf8')).toContain('rate-limit counts are shared again'), { timeout: 20_000, interval: 100 });
    }
    await sleep(400);
    // 60 + 80 counted by the cluster: over the limit on both replicas.
    expect(await alternate(key, 4, 0)).toMatchObject({ served: 0, refused: 4 });
    for (const k of [1, 2]) expect(fs.readFileSync(path.join(dir2, `replica-${k}.log`), 'utf8')).toContain('rate-limit counts cannot be shared');
    // Statuses are written and reach the other replica again.
    await vi.waitFor(async () => expect((await putStatus(a)).status).toBe(200), { timeout: 10_000, interval: 200 });
    await vi.waitFor(
      async () => {
        const r = await call(b, 'GET', `/v1/charging_stations/${station.id}?availability=true`, { key: KEY });
        expect(r.json.data.attributes.charge_points.some((c: { available_count: unknown }) => c.available_count === 1)).toBe(true);
      },
      { timeout: 2000, interval: 20 },
    );
  }, 60_000);
});

/** Up to `n` stations with EVSE ids near the fixture stations in Copenhagen (a station read names them; search pages do not). */
async function stationsWithEvses(srv: TestServer, n: number): Promise<{ id: string; evseIds: string[] }[]> {
  const page = await call(srv, 'GET', '/v1/charging_stations?filter[latitude]=55.6761&filter[longitude]=12.5683&filter[radius]=20000&page[size]=100', { key: KEY });
  const out: { id: string; evseIds: string[] }[] = [];
  for (const { id } of page.json.data as { id: string }[]) {
    const r = await call(srv, 'GET', `/v1/charging_stations/${id}`, { key: KEY });
    const evseIds = (r.json.data.attributes.evse_ids ?? []) as string[];
    if (evseIds.length > 0) out.push({ id, evseIds });
    if (out.length === n) break;
  }
  return out;
}

/** PUT of a new company through `base`: its status (0 when the connection failed) and id. */
async function putNewCompany(base: string, name: string): Promise<{ status: number; id: string }> {
  const id = randomUUID();
  try {
    const r = await call({ url: base }, 'PUT', `/v1/companies/${id}`, {
      key: KEY,
      body: { data: { id, type: 'company', attributes: { name, version: 1, is_cpo: false, is_emp: true, external_source_mapping: {} }, relationships: { supported_emps: { data: [] } } } },
    });
    return { status: r.status, id };
  } catch {
    return { status: 0, id };
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A company written straight into the store, as another replica writes it (one new generation). */
async function writeDirectly(): Promise<void> {
  const direct = await openLiveStore({ dataDir: dir, databaseUrl });
  try {
    await direct.tx(async (s) => {
      const g = await nextGeneration(s);
      const now = Date.now();
      const cid = randomUUID();
      const mapping = { ext_a_ids: null, ext_b_names: null, ext_b_charge_card_ids: null, sheet_names: null, ext_c_operator_ids: null, evse_operator_ids: [] };
      await writeCompany(s, { id: cid, name: 'written directly', url: null, is_cpo: false, is_emp: true, version: 1, created_at: now, updated_at: now, external_source_mapping: mapping, supported_emps: [], cpo_group: null, emp_group: null }, g);
      await logChange(s, g, 'company', cid, 'upsert', now);
    });
  } finally {
    await direct.close();
  }
}

async function catchUps(srv: TestServer): Promise<number> {
  const text = await (await fetch(`${srv.url}/metrics`)).text();
  return Number(/^cps_live_store_catch_ups_total (\d+)/m.exec(text)![1]);
}
