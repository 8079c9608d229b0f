/**
 * `npm run test:crash`: kill -9 during mixed writes, several cycles on one data directory. Each
 * cycle starts the service, runs eight writers (company creations and next versions, tariff
 * creations and next versions, partner feedback, company deletions) against it, kills it with
 * SIGKILL at a random moment, restarts it, and checks the live store against what was
 * acknowledged: every acknowledged write is there, nothing acknowledged as deleted came back, and
 * each row's version is the last acknowledged one or a later one that was in flight at the kill
 * (with the name of that version). The restarted service then answers for what it holds.
 *
 * CRASH_CYCLES (default 6) sets the number of cycles; CI runs 3.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/domain/random.js';
import { SqliteStore } from '../../src/storage/sqlite-store.js';
import { call, freshDataDir, keyFor, startTestServer, type TestServer } from '../helpers/server.js';

const CYCLES = Number(process.env.CRASH_CYCLES ?? 6);
const W = keyFor('writer');
const KEYS = { writer: 'WriteTariffs,ReadTariffs,WriteUserFeedback' };

interface Versioned {
  /** Last acknowledged version (0: none yet) and its name. */
  acked: number;
  names: Map<number, string>;
  /** Versions sent and not acknowledged (in flight at the kill, or refused). */
  attempted: Set<number>;
  deleted: boolean;
}

const companyBody = (id: string, version: number, name: string) => ({
  data: { id, type: 'company', attributes: { name, version, is_cpo: false, is_emp: true, external_source_mapping: {} }, relationships: { supported_emps: { data: [] } } },
});
const tariffBody = (id: string, emp: string, version: number, name: string) => ({
  data: {
    id,
    type: 'tariff',
    attributes: { name, version, currency: 'EUR', prices: [{ restrictions: [], decomposition: [{ dimension: 'kwh', price: 0.3 + version / 100 }] }] },
    relationships: { emp: { data: { type: 'company', id: emp } } },
  },
});

describe('kill -9 during mixed writes', () => {
  const dataDir = freshDataDir();
  const rnd = mulberry32(Number(process.env.CRASH_SEED ?? 7));
  const companies = new Map<string, Versioned>();
  const tariffs = new Map<string, Versioned>();
  const feedback = new Set<string>();
  const feedbackAttempted = new Set<string>();
  let emp = '';
  let srv: TestServer | null = null;
  afterAll(async () => {
    await srv?.stop('SIGKILL');
  });

  async function writer(s: TestServer, stop: { now: boolean }): Promise<void> {
    while (!stop.now) {
      const r = rnd();
      try {
        if (r < 0.3) {
          // A new company, or the next version of one.
          const existing = [...companies.entries()].filter(([, v]) => !v.deleted && v.acked > 0 && v.attempted.size === 0);
          const [id, v] = existing.length > 0 && rnd() < 0.6 ? existing[Math.floor(rnd() * existing.length)] : [randomUUID(), { acked: 0, names: new Map(), attempted: new Set<number>(), deleted: false }];
          companies.set(id, v);
          const version = v.acked + 1;
          const name = `c-${id.slice(0, 8)}-v${version}`;
          v.names.set(version, name);
          v.attempted.add(version);
          const res = await call(s, 'PUT', `/v1/companies/${id}`, { key: W, body: companyBody(id, version, name) });
          if (res.status === 200 || res.status === 201) {
            v.attempted.delete(version);
            v.acked = version;
          } else expect(res.status, res.text).toBe(409);
        } else if (r < 0.6) {
          const existing = [...tariffs.entries()].filter(([, v]) => v.acked > 0 && v.attempted.size === 0);
          const [id, v] = existing.length > 0 && rnd() < 0.6 ? existing[Math.floor(rnd() * existing.length)] : [randomUUID(), { acked: 0, names: new Map(), attempted: new Set<number>(), deleted: false }];
          tariffs.set(id, v);
          const version = v.acked + 1;
          const name = `t-${id.slice(0, 8)}-v${version}`;
          v.names.set(version, name);
          v.attempted.add(version);
          const res = await call(s, 'PUT', `/v2/tariffs/${id}`, { key: W, body: tariffBody(id, emp, version, name) });
          if (res.status === 200 || res.status === 201) {
            v.attempted.delete(version);
            v.acked = version;
          } else expect(res.status, res.text).toBe(409);
        } else if (r < 0.9) {
          const marker = `fb-${randomUUID()}`;
          feedbackAttempted.add(marker);
          const res = await call(s, 'POST', '/v1/partner_feedback', {
            key: W,
            body: { data: { type: 'tariff_update', attributes: { content: marker, tariff: '', cpo: '', emp: '', language: 'en' } } },
          });
          expect(res.status, res.text).toBe(204);
          feedback.add(marker);
        } else {
          const candidates = [...companies.entries()].filter(([, v]) => !v.deleted && v.acked > 0 && v.attempted.size === 0);
          if (candidates.length === 0) continue;
          const [id, v] = candidates[Math.floor(rnd() * candidates.length)];
          v.attempted.add(-1);
          const res = await call(s, 'DELETE', `/v1/companies/${id}`, { key: W });
          expect([204, 409]).toContain(res.status);
          if (res.status === 204) v.deleted = true;
          v.attempted.delete(-1);
        }
      } catch (e) {
        // The kill: the request in flight has no answer (its write may or may not have landed).
        if (stop.now || s.proc.exitCode !== null || s.proc.signalCode !== null) return;
        throw e;
      }
    }
  }

  function check(): { companies: number; tariffs: number; feedback: number } {
    const store = SqliteStore.open(dataDir);
    try {
      const crow = store.db.prepare('SELECT version, name FROM companies WHERE id = ?');
      for (const [id, v] of companies) {
        const row = crow.get(id) as { version: number; name: string } | undefined;
        if (v.deleted) {
          expect(row, `company ${id} was deleted`).toBeUndefined();
          continue;
        }
        if (row === undefined) {
          // Never acknowledged (its creation was in flight), or its deletion was.
          expect(v.acked === 0 || v.attempted.has(-1), `acknowledged company ${id} v${v.acked} lost`).toBe(true);
          if (v.attempted.has(-1)) v.deleted = true;
          continue;
        }
        expect(row.version === v.acked || v.attempted.has(row.version), `company ${id}: version ${row.version}, acknowledged ${v.acked}`).toBe(true);
        expect(row.name).toBe(v.names.get(row.version));
        // What landed counts as acknowledged from now on.
        v.acked = row.version;
        v.attempted.clear();
      }
      const trow = store.db.prepare('SELECT version, data FROM tariffs WHERE id = ?');
      for (const [id, v] of tariffs) {
        const row = trow.get(id) as { version: number; data: string } | undefined;
        if (row === undefined) {
          expect(v.acked, `acknowledged tariff ${id} v${v.acked} lost`).toBe(0);
          tariffs.delete(id);
          continue;
        }
        expect(row.version === v.acked || v.attempted.has(row.version), `tariff ${id}: version ${row.version}, acknowledged ${v.acked}`).toBe(true);
        const data = JSON.parse(row.data) as { version: number; name: string };
        expect(data.version).toBe(row.version);
        expect(data.name).toBe(v.names.get(row.version));
        v.acked = row.version;
        v.attempted.clear();
      }
      for (const [id, v] of companies) if (v.acked === 0 && !v.deleted) companies.delete(id);
      const frow = store.db.prepare('SELECT count(*) AS n FROM partner_feedback WHERE content = ?');
      for (const m of feedback) expect((frow.get(m) as { n: number }).n, `feedback ${m}`).toBe(1);
      for (const m of feedbackAttempted) expect((frow.get(m) as { n: number }).n).toBeLessThanOrEqual(1);
      feedbackAttempted.clear();
      return { companies: companies.size, tariffs: tariffs.size, feedback: feedback.size };
    } finally {
      void store.close();
    }
  }

  it(`keeps every acknowledged write over ${CYCLES} kill -9 cycles`, async () => {
    srv = await startTestServer({ dataDir, keys: KEYS, env: { WORKERS: '1' } });
    emp = randomUUID();
    expect((await call(srv, 'PUT', `/v1/companies/${emp}`, { key: W, body: companyBody(emp, 1, 'crash EMP') })).status).toBe(201);
    const figures: string[] = [];
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      if (cycle > 0) srv = await startTestServer({ dataDir, env: { WORKERS: '1' } });
      const s = srv;
      const stop = { now: false };
      const writers = Array.from({ length: 8 }, () => writer(s, stop));
      await new Promise((r) => setTimeout(r, 300 + Math.floor(rnd() * 1200)));
      s.proc.kill('SIGKILL');
      stop.now = true;
      await s.exited;
      await Promise.all(writers);
      const n = check();
      figures.push(`cycle ${cycle + 1}: ${n.companies} companies, ${n.tariffs} tariffs, ${n.feedback} feedback acknowledged so far, all present`);
      // The restarted service serves what the store holds.
      srv = await startTestServer({ dataDir, env: { WORKERS: '1' } });
      const some = [...tariffs.keys()].slice(0, 20);
      if (some.length > 0) {
        const r = await call(srv, 'GET', `/v2/tariffs?filter[emp.id]=${emp}&filter[id]=${some.join(',')}`, { key: W });
        expect(r.status, r.text).toBe(200);
        const got = new Map((r.json.data as { id: string; attributes: { version: number } }[]).map((t) => [t.id, t.attributes.version]));
        for (const id of some) expect(got.get(id), `tariff ${id} over HTTP`).toBe(tariffs.get(id)!.acked);
      }
      await srv.stop();
    }
    console.log(figures.join('\n'));
  });
});
