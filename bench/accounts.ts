/**
 * `npm run bench:accounts`: the account routes (D200–D214) at the default password cost, on the
 * SQLite live store and on PostgreSQL (a throw-away cluster), in alternating rounds:
 *
 * - login (`email_authentication`): scrypt dominates; its floor is the hash alone, measured in this
 *   process in the same run (one hash at a time, and as many at once as the service runs), so the
 *   figure reads as logins per second per core against what the hash allows;
 * - refresh (`refresh_token_authentication`): each request presents a current token from a pool its
 *   answers refill (one transaction: the old token used, the new one stored);
 * - settings GET and PUT (each PUT the next version: one durable transaction), against bare uWS
 *   serving the same bytes (the ceiling of the transport).
 *
 * Latencies (p50/p99) of the refresh are what the grace period of D241 is measured against.
 *
 * Many clients are simulated with `TRUST_PROXY=on` and an `X-Forwarded-For` per request (the
 * guessing limits are per client address, D207).
 *
 *   npm run bench:accounts [-- --duration <s>] [--runs <n>] [--connections <n>]
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { simpleParser } from 'mailparser';
import { BENCH_KEY, ROOT, cpuMsOf, load, loadLine, machineLine, median, startBare, startService, startThrowAwayPostgres, writeJson, writeResultsSection, type DynamicRequests, type Scenario } from './lib/harness.js';

const { values } = parseArgs({ options: { duration: { type: 'string', default: '5' }, runs: { type: 'string', default: '3' }, connections: { type: 'string', default: '10' } } });
const durationS = Number(values.duration);
const runs = Number(values.runs);
const connections = Number(values.connections);
const snapshot = path.join(ROOT, 'snapshots/default.sqlite');
const EMAIL = 'bench@example.org';
const PASSWORD = 'bench passphrase';

let client = 0;
/** Headers of a request from the next simulated client (autocannon's setupRequest replaces the run's headers). */
const fromClient = (): Record<string, string> => ({
  'Api-Key': BENCH_KEY,
  'Content-Type': 'application/json',
  'X-Forwarded-For': `10.${(++client >> 16) & 255}.${(client >> 8) & 255}.${client & 255}`,
});

async function call(port: number, method: string, p: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: any }> {
  const r = await fetch(`http://127.0.0.1:${port}${p}`, { method, headers: { 'Api-Key': BENCH_KEY, 'Content-Type': 'application/json', ...fromClient(), ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  return { status: r.status, json: text.length > 0 ? JSON.parse(text) : undefined };
}

const loginBody = { data: { type: 'email_authentication', attributes: { email: EMAIL, password: PASSWORD } } };

/** A confirmed user on the service: signup, the confirmation link from its outbox, a login. */
async function account(port: number, dataDir: string): Promise<{ sub: string; access: string }> {
  const s = await call(port, 'POST', '/v1/users', { data: { type: 'user', attributes: { email: EMAIL, password: PASSWORD, username: 'bench' } } });
  if (s.status !== 204) throw new Error(`signup answered ${s.status}`);
  const dir = path.join(dataDir, 'outbox');
  for (let i = 0; i < 500 && !(fs.existsSync(dir) && fs.readdirSync(dir).some((f) => f.endsWith('.eml'))); i++) await new Promise((r) => setTimeout(r, 10));
  const file = fs.readdirSync(dir).find((f) => f.endsWith('.eml'))!;
  const link = new URL(/(https?:\/\/\S+)/.exec((await simpleParser(fs.readFileSync(path.join(dir, file)))).text ?? '')![1]);
  const c = await fetch(`http://127.0.0.1:${port}${link.pathname}${link.search}`);
  if (c.status !== 200) throw new Error(`confirmation answered ${c.status}`);
  const l = await call(port, 'POST', '/v1/authenticate', loginBody);
  const access = l.json.data.attributes.access_token as string;
  return { sub: JSON.parse(Buffer.from(access.split('.')[1], 'base64url').toString()).sub as string, access };
}

/**
 * The scenarios of one service, and `refill`: tops the refresh-token pool up by logins before a
 * refresh round (a round ends with tokens in requests built but never answered).
 */
async function scenarios(port: number, sub: string, access: string): Promise<{ list: Scenario[]; refill: () => Promise<void> }> {
  const tokens: string[] = [];
  const refill = async (): Promise<void> => {
    while (tokens.length < connections * 3) {
      const batch = await Promise.all(Array.from({ length: 4 }, () => call(port, 'POST', '/v1/authenticate', loginBody)));
      for (const b of batch) tokens.push(b.json.data.attributes.refresh_token as string);
    }
  };
  const settingsPath = `/v1/users/${sub}/settings`;
  const settings = (version: number) => ({ data: { type: 'user_settings', id: sub, attributes: { version }, relationships: { vehicle: { data: { id: 'car-1', type: 'car' } }, tariffs: { data: [{ id: 'tariff-1', type: 'tariff' }, { id: 'tariff-2', type: 'tariff' }] } } } });
  await call(port, 'PUT', settingsPath, settings(1), { Authorization: `Bearer ${access}` });
  let version = 1;
  // A shared pool of current refresh tokens: each request takes one, its answer gives the next one
  // back (autocannon resets a connection's context with every request sequence).
  const refresh: DynamicRequests = {
    setupRequest: (req) => {
      const token = tokens.shift();
      if (token === undefined) throw new Error('no refresh token left in the pool');
      return { ...req, path: '/v1/authenticate', body: JSON.stringify({ data: { type: 'refresh_token_authentication', attributes: { refresh_token: token } } }), headers: fromClient() };
    },
    onResponse: (status, body) => {
      if (status !== 200) throw new Error(`refresh answered ${status}: ${body.slice(0, 200)}`);
      tokens.push((JSON.parse(body) as { data: { attributes: { refresh_token: string } } }).data.attributes.refresh_token);
    },
  };
  const bearer = { Authorization: `Bearer ${access}` };
  const put: DynamicRequests = { setupRequest: (req) => ({ ...req, path: settingsPath, body: JSON.stringify(settings(++version)), headers: { ...fromClient(), ...bearer } }) };
  return { refill, list: [
    { name: 'login (email and password)', method: 'POST', path: '/v1/authenticate', dynamic: () => ({ setupRequest: (req) => ({ ...req, path: '/v1/authenticate', body: JSON.stringify(loginBody), headers: fromClient() }) }), connections: 4 },
    { name: 'refresh (rotation)', method: 'POST', path: '/v1/authenticate', dynamic: () => refresh },
    { name: 'settings GET', method: 'GET', path: settingsPath, headers: bearer },
    { name: 'settings PUT (next version)', method: 'PUT', path: settingsPath, headers: bearer, dynamic: () => put },
  ] };
}

/** The hash alone: one at a time, and `parallel` at once (the service runs up to 8 on the libuv pool). */
async function hashFloor(parallel: number): Promise<{ oneMs: number; perSecond: number }> {
  const salt = crypto.randomBytes(16);
  const one = () => new Promise<void>((r, j) => crypto.scrypt(PASSWORD, salt, 32, { N: 32768, r: 8, p: 3, maxmem: 64 * 1024 * 1024 }, (e) => (e ? j(e) : r())));
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    await one();
    times.push(performance.now() - t);
  }
  const t0 = performance.now();
  let n = 0;
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (performance.now() - t0 < durationS * 1000) {
      await one();
      n++;
    }
  }));
  return { oneMs: median(times), perSecond: (n * 1000) / (performance.now() - t0) };
}

const pg = startThrowAwayPostgres('cps-bench-accounts-');
const env = { TRUST_PROXY: 'on' };
const targets = [
  { name: 'SQLite', svc: await startService({ snapshot, env }) },
  { name: 'PostgreSQL', svc: await startService({ snapshot, env: { ...env, DATABASE_URL: pg.url } }) },
];
const bare: Awaited<ReturnType<typeof startBare>>[] = [];
let exitCode = 0;
try {
  const setups = [];
  for (const t of targets) {
    const a = await account(t.svc.port, t.svc.dataDir);
    setups.push(await scenarios(t.svc.port, a.sub, a.access));
  }
  const names = setups[0].list.map((s) => s.name);
  // The ceiling: bare uWS answering the settings document the service answered.
  const get = setups[0].list[2];
  const doc = await call(targets[0].svc.port, 'GET', get.path, undefined, get.headers);
  const pair = await call(targets[0].svc.port, 'POST', '/v1/authenticate', loginBody);
  bare.push(
    await startBare([
      { method: 'POST', path: '/v1/authenticate', status: 200, body: JSON.stringify(pair.json) },
      { method: 'GET', path: get.path, status: 200, body: JSON.stringify(doc.json) },
      { method: 'PUT', path: get.path, status: 200, body: JSON.stringify(doc.json) },
    ]),
  );
  const results: Record<string, Record<string, { rps: number[]; cpu: number[]; non2xx: number[]; p50: number[]; p99: number[] }>> = {};
  const floors: { oneMs: number; perSecond: number }[] = [];
  for (let r = 0; r < runs; r++) {
    floors.push(await hashFloor(os.availableParallelism()));
    for (let i = 0; i < names.length; i++) {
      const order = r % 2 === 0 ? [0, 1] : [1, 0];
      for (const k of order) {
        const t = targets[k];
        const sc = setups[k].list[i];
        if (sc.name.startsWith('refresh')) await setups[k].refill();
        const cpu0 = cpuMsOf(t.svc.proc.pid!);
        const m = await load(t.svc.port, sc, durationS, sc.connections ?? connections, sc.dynamic?.('full'));
        const row = ((results[names[i]] ??= {})[t.name] ??= { rps: [], cpu: [], non2xx: [], p50: [], p99: [] });
        row.rps.push(m.rps);
        row.p50.push(m.p50);
        row.p99.push(m.p99);
        row.cpu.push((cpuMsOf(t.svc.proc.pid!) - cpu0) / Math.max(1, m.rps * durationS));
        row.non2xx.push(m.non2xx + m.errors);
        console.error(`  round ${r + 1} ${t.name} ${names[i]}: ${Math.round(m.rps)} req/s${m.non2xx + m.errors > 0 ? `, ${m.non2xx + m.errors} not 2xx` : ''}`);
      }
      if (i >= 1) {
        const sc = setups[0].list[i];
        const m = await load(bare[0].port, { ...sc, dynamic: undefined, body: sc.method === 'GET' ? undefined : JSON.parse(setupsBody(sc)) }, durationS, connections);
        ((results[names[i]] ??= {}).bare ??= { rps: [], cpu: [], non2xx: [], p50: [], p99: [] }).rps.push(m.rps);
      }
    }
  }
  const floor1 = median(floors.map((f) => f.oneMs));
  const floorRate = median(floors.map((f) => f.perSecond));
  const lines = [
    `${machineLine()}; ${loadLine()}; ${connections} connections (login 4), ${runs} × ${durationS} s alternating; medians. Password hashing: scrypt N=2^15, r=8, p=3; one hash alone ${floor1.toFixed(0)} ms here (${(1000 / floor1).toFixed(1)} per second per core), ${floorRate.toFixed(1)} hashes/s on all ${os.availableParallelism()} cores.`,
    '',
    '| scenario | SQLite req/s | PostgreSQL req/s | PG / SQLite | baseline | SQLite / baseline | CPU ms/req SQLite | CPU ms/req PG | p50 / p99 ms SQLite | p50 / p99 ms PG |',
    '| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const n of names) {
    const s = results[n].SQLite;
    const p = results[n].PostgreSQL;
    const base = n.startsWith('login') ? { name: 'scrypt alone, all cores', rps: floorRate } : results[n].bare ? { name: 'bare uWS, same bytes', rps: median(results[n].bare.rps) } : null;
    lines.push(
      `| ${n} | ${rate(median(s.rps))} | ${rate(median(p.rps))} | ${(median(p.rps) / median(s.rps)).toFixed(2)}× | ${base?.name ?? '—'}${base ? ` ${rate(base.rps)}/s` : ''} | ${base ? `${(median(s.rps) / base.rps).toFixed(2)}×` : '—'} | ${median(s.cpu).toFixed(2)} | ${median(p.cpu).toFixed(2)} | ${median(s.p50)} / ${median(s.p99)} | ${median(p.p50)} / ${median(p.p99)} |`,
    );
  }
  console.log(lines.join('\n'));
  writeResultsSection('accounts', `## Accounts (npm run bench:accounts)\n\n${lines.join('\n')}`);
  writeJson('accounts', { results, floors });
} catch (e) {
  console.error(e);
  exitCode = 1;
} finally {
  for (const t of targets) await t.svc.stop();
  for (const b of bare) await b.stop();
  pg.stop();
}
process.exit(exitCode);

/** A body of the size a POST or PUT scenario sends (the bare app answers any body). */
function setupsBody(sc: Scenario): string {
  if (sc.path === '/v1/authenticate') return JSON.stringify({ data: { type: 'refresh_token_authentication', attributes: { refresh_token: 'x'.repeat(43) } } });
  return sc.dynamic!('bare').setupRequest({ method: sc.method, path: sc.path }, {}).body ?? '{}';
}

/** Requests per second: one decimal below 100. */
function rate(x: number): string {
  return x < 100 ? x.toFixed(1) : String(Math.round(x));
}
