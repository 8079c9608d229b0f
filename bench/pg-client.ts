/**
 * `npm run bench:pg-client`: the two PostgreSQL clients of npm (`pg` and `postgres`) on the live
 * store's own statement shapes, against a throw-away cluster (deploy/postgres.sh), alternating
 * rounds in one run. The live store uses the faster one (D150).
 *
 * - point read: one primary-key SELECT per round trip, 1 and 32 in flight (pool of 8);
 * - generation check: the read-your-writes fence's query (two one-row tables);
 * - write: the shape of a tariff PUT (BEGIN + lock, head read, upsert, generation bump, log, COMMIT),
 *   8 in flight, durable commits.
 *
 *   DATABASE_URL=postgres://… npm run bench:pg-client   (else it starts its own cluster)
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import postgres from 'postgres';

const ROUNDS = Number(process.env.ROUNDS ?? 3);
const READS = Number(process.env.READS ?? 20_000);
const WRITES = Number(process.env.WRITES ?? 1_000);
const root = path.resolve(import.meta.dirname, '..', '..');

let url = process.env.DATABASE_URL;
let tmp: string | null = null;
if (url === undefined) {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-client-'));
  const out = execFileSync('bash', [path.join(root, 'deploy/postgres.sh'), 'start', path.join(tmp, 'pg')], { encoding: 'utf8' });
  url = /DATABASE_URL=(\S+)/.exec(out)![1];
}

const SETUP = `
DROP TABLE IF EXISTS bench_rows, bench_gen, bench_log;
CREATE TABLE bench_rows (id TEXT PRIMARY KEY, version BIGINT NOT NULL, data TEXT NOT NULL);
CREATE TABLE bench_gen (one INTEGER PRIMARY KEY, value BIGINT NOT NULL);
CREATE TABLE bench_log (generation BIGINT PRIMARY KEY, id TEXT NOT NULL, at BIGINT NOT NULL);
INSERT INTO bench_gen VALUES (1, 0);
INSERT INTO bench_rows SELECT 't' || g, 1, repeat('x', 2000) FROM generate_series(1, 1000) g;`;

const GET = 'SELECT id, version, data FROM bench_rows WHERE id = $1';
const FENCE = 'SELECT (SELECT value FROM bench_gen WHERE one = 1) AS catalog, (SELECT value FROM bench_gen WHERE one = 1) AS keys';
const UPSERT =
  'INSERT INTO bench_rows(id, version, data) VALUES ($1, $2, $3) ON CONFLICT(id) DO UPDATE SET version = excluded.version, data = excluded.data';
const BUMP = 'UPDATE bench_gen SET value = value + 1 WHERE one = 1 RETURNING value';
const LOG = 'INSERT INTO bench_log(generation, id, at) VALUES ($1, $2, $3)';

interface Client {
  name: string;
  get(id: string): Promise<unknown>;
  fence(): Promise<unknown>;
  write(id: string): Promise<void>;
  end(): Promise<void>;
}

function pgClient(): Client {
  pg.types.setTypeParser(20, (v) => Number(v));
  const pool = new pg.Pool({ connectionString: url, max: 8 });
  return {
    name: 'pg',
    get: async (id) => (await pool.query({ name: 'get', text: GET, values: [id] })).rows[0],
    fence: async () => (await pool.query({ name: 'fence', text: FENCE })).rows[0],
    write: async (id) => {
      const c = await pool.connect();
      try {
        await c.query('BEGIN; SELECT pg_advisory_xact_lock(1)');
        const h = (await c.query({ name: "get", text: GET, values: [id] })).rows[0] as { version: number };
        await c.query({ name: 'upsert', text: UPSERT, values: [id, h.version + 1, 'y'.repeat(2000)] });
        const g = (await c.query({ name: 'bump', text: BUMP })).rows[0] as unknown as { value: number };
        await c.query({ name: 'log', text: LOG, values: [g.value, id, Date.now()] });
        await c.query('COMMIT');
      } catch (e) {
        await c.query('ROLLBACK');
        throw e;
      } finally {
        c.release();
      }
    },
    end: () => pool.end(),
  };
}

function postgresClient(): Client {
  const num = { to: 20, from: [20], serialize: (x: number) => String(x), parse: (x: string) => Number(x) };
  const sqlN = postgres(url!, { max: 8, types: { num }, onnotice: () => {} });
  
  return {
    name: 'postgres',
    get: async (id) => (await sqlN.unsafe(GET, [id], { prepare: true }))[0],
    fence: async () => (await sqlN.unsafe(FENCE, [], { prepare: true }))[0],
    write: async (id) => {
      await sqlN.begin(async (t) => {
        await t.unsafe('SELECT pg_advisory_xact_lock(1)');
        const h = (await t.unsafe(GET, [id], { prepare: true }))[0] as unknown as { version: number };
        await t.unsafe(UPSERT, [id, h.version + 1, 'y'.repeat(2000)], { prepare: true });
        const g = (await t.unsafe(BUMP, [], { prepare: true }))[0] as unknown as { value: number };
        await t.unsafe(LOG, [g.value, id, Date.now()], { prepare: true });
      });
    },
    end: () => sqlN.end(),
  };
}

async function run(n: number, inFlight: number, op: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < n) await op(next++);
    }),
  );
  return n / ((performance.now() - t0) / 1000);
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(SETUP);
  await admin.end();
  const results = new Map<string, Map<string, number[]>>();
  const scenarios: Array<[string, (c: Client) => Promise<number>]> = [
    ['point read, 1 in flight (ops/s)', (c) => run(READS / 4, 1, (i) => c.get(`t${(i % 1000) + 1}`))],
    ['point read, 32 in flight (ops/s)', (c) => run(READS, 32, (i) => c.get(`t${(i % 1000) + 1}`))],
    ['generation check, 32 in flight (ops/s)', (c) => run(READS, 32, () => c.fence())],
    ['write transaction, 8 in flight (tx/s)', (c) => run(WRITES, 8, (i) => c.write(`t${(i % 1000) + 1}`))],
  ];
  for (let r = 0; r < ROUNDS; r++) {
    for (const make of r % 2 === 0 ? [pgClient, postgresClient] : [postgresClient, pgClient]) {
      const c = make();
      await c.get('t1');
      for (const [name, fn] of scenarios) {
        const byClient = results.get(name) ?? new Map<string, number[]>();
        results.set(name, byClient);
        const l = byClient.get(c.name) ?? [];
        byClient.set(c.name, l);
        l.push(await fn(c));
      }
      await c.end();
    }
  }
  console.log(`\n${ROUNDS} alternating rounds, medians\n`);
  console.log('| scenario | pg | postgres | postgres / pg |');
  console.log('| --- | ---: | ---: | ---: |');
  for (const [name, m] of results) {
    const a = median(m.get('pg')!);
    const b = median(m.get('postgres')!);
    console.log(`| ${name} | ${Math.round(a)} | ${Math.round(b)} | ${(b / a).toFixed(2)}× |`);
  }
}

try {
  await main();
} finally {
  if (tmp !== null) {
    execFileSync('bash', [path.join(root, 'deploy/postgres.sh'), 'stop', path.join(tmp, 'pg')]);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
