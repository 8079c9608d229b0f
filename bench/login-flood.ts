/**
 * `npm run bench:login-flood`: what a flood of wrong logins costs everybody else (D246). Three
 * answers that need libuv's thread pool or the CPU — a page of 400 stations gzipped, /openapi.json
 * as br, a device registration with a bearer token never seen before (its signature checked by
 * WebCrypto) — are timed one at a time, first alone, then while 32 connections send wrong logins
 * (each from a client of its own, for an address of its own: every one is hashed at the default
 * scrypt cost until the hashing queue is full and the rest are answered 503). Per answer: p50 with
 * the flood / p50 alone, for this checkout and, with `--baseline <checkout with dist/>`, another
 * commit's build measured in the same run (rounds alternating).
 *
 *   npm run bench:login-flood [-- --duration 6] [--runs 2] [--baseline <dir>] [--check]
 *
 * `--check` (CI): a short run of this checkout that fails when a flood answered a 500 or a victim
 * answered anything but 200.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { SignJWT } from 'jose';
import { BENCH_KEY, ROOT, loadLine, machineLine, median, startService, writeResultsSection } from './lib/harness.js';

const { values } = parseArgs({ options: { duration: { type: 'string', default: '6' }, runs: { type: 'string', default: '2' }, baseline: { type: 'string' }, check: { type: 'boolean', default: false } } });
const DURATION = values.check ? 2 : Number(values.duration);
const RUNS = values.check ? 1 : Number(values.runs);
const SECRET = 'login-flood-bench-secret-0123456789abcdef';
const snapshot = path.join(ROOT, 'snapshots/default.sqlite');

interface Victim {
  name: string;
  send: (port: number) => Promise<number>;
}

const device = () => JSON.stringify({ data: { id: randomUUID(), type: 'crm_device', attributes: { fcmToken: 'f', country: 'DE', language: 'de', app_version: '1', os_version: '1', user_products: [], disabled_notifications: [] } } });
const freshToken = async (): Promise<string> => {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject(randomUUID()).setIssuedAt(now).setExpirationTime(now + 600).sign(new TextEncoder().encode(SECRET));
};
const status = async (r: Response): Promise<number> => {
  await r.arrayBuffer();
  return r.status;
};

const VICTIMS: Victim[] = [
  { name: 'radius page of 400, gzip', send: (port) => fetch(`http://127.0.0.1:${port}/v1/charging_stations?filter[latitude]=48.8566&filter[longitude]=2.3522&filter[radius]=20000&page[size]=400`, { headers: { 'Api-Key': BENCH_KEY, 'Accept-Encoding': 'gzip' } }).then(status) },
  { name: '/openapi.json, br', send: (port) => fetch(`http://127.0.0.1:${port}/openapi.json`, { headers: { 'Accept-Encoding': 'br' } }).then(status) },
  { name: 'device registration, a bearer token never seen', send: async (port) => fetch(`http://127.0.0.1:${port}/v1/crm/devices`, { method: 'POST', headers: { 'Api-Key': BENCH_KEY, 'Content-Type': 'application/json', Authorization: `Bearer ${await freshToken()}` }, body: device() }).then(status) },
];

/** p50 of one victim sent one at a time for DURATION seconds (ms), and the statuses that were not 200. */
async function time(port: number, v: Victim): Promise<{ p50: number; bad: number }> {
  const ms: number[] = [];
  let bad = 0;
  const end = performance.now() + DURATION * 1000;
  while (performance.now() < end || ms.length < 3) {
    const t = performance.now();
    if ((await v.send(port)) !== 200) bad++;
    ms.push(performance.now() - t);
  }
  return { p50: median(ms), bad };
}

/** Waits until the service computes no more hashes (the queue a flood left behind is done). */
async function drained(port: number): Promise<void> {
  const hashes = async () => Number(/^cps_password_hashes_total (\d+)/m.exec(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text())?.[1] ?? 0);
  let before = await hashes();
  for (let i = 0; i < 120; i++) {
    await new Promise((res) => setTimeout(res, 1500));
    const now = await hashes();
    if (now === before) return;
    before = now;
  }
}

/** Wrong logins on 32 connections, each from another client for another address, until `stop`. */
function flood(port: number): { stop: () => Promise<{ served: number; refused: number; failed: number }> } {
  let n = 0;
  const counts = { served: 0, refused: 0, failed: 0 };
  const instance = autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: 32,
    duration: 3600,
    requests: [{
      method: 'POST',
      path: '/v1/authenticate',
      setupRequest: (req: Record<string, unknown>) => {
        n++;
        const headers = { 'Api-Key': BENCH_KEY, 'Content-Type': 'application/json', 'X-Forwarded-For': `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}` };
        return { ...req, headers, body: JSON.stringify({ data: { type: 'email_authentication', attributes: { email: `flood-${n}@example.org`, password: 'not the password' } } }) };
      },
    }],
  });
  void instance.on('response', (_c, code) => {
    if (code === 401) counts.served++;
    else if (code === 503 || code === 429) counts.refused++;
    else counts.failed++;
  });
  // autocannon's instance stops on `stop()` and then emits `done` (its types name neither).
  const ctl = instance as unknown as { stop(): void; on(e: 'done', f: () => void): void };
  return {
    stop: () =>
      new Promise((r) => {
        ctl.on('done', () => r(counts));
        ctl.stop();
      }),
  };
}

const roots: [string, string][] = [['this checkout', ROOT], ...(values.baseline !== undefined ? [['baseline', path.resolve(values.baseline)] as [string, string]] : [])];
// `on`: loopback here (D245), any peer for builds before it; the flood comes from loopback either way.
const env = { JWT_SECRET: SECRET, TRUST_PROXY: 'on' };
const services = await Promise.all(roots.map(([, root]) => startService({ snapshot, env, root })));
const rows = new Map<string, { alone: number[]; flooded: number[] }>();
let failures = 0;
try {
  for (let r = 0; r < RUNS; r++) {
    for (const k of r % 2 === 0 ? roots.keys() : [...roots.keys()].reverse()) {
      const port = services[k].port;
      for (const v of VICTIMS) {
        const key = `${roots[k][0]}\t${v.name}`;
        const row = rows.get(key) ?? { alone: [], flooded: [] };
        const alone = await time(port, v);
        const f = flood(port);
        await new Promise((res) => setTimeout(res, 1000)); // the hashing queue fills
        const flooded = await time(port, v);
        const c = await f.stop();
        row.alone.push(alone.p50);
        row.flooded.push(flooded.p50);
        rows.set(key, row);
        failures += alone.bad + flooded.bad + c.failed;
        console.error(`  ${roots[k][0]} · ${v.name}: alone ${alone.p50.toFixed(1)} ms, flooded ${flooded.p50.toFixed(1)} ms; flood ${c.served} hashed, ${c.refused} refused, ${c.failed} other`);
        await drained(port);
      }
    }
  }
} finally {
  for (const s of services) await s.stop();
}
const lines = [`${machineLine()}; ${loadLine()}; ${RUNS} × ${DURATION} s per answer, alone then under 32 connections of wrong logins; medians of p50.`, '', '| build | answer | p50 alone ms | p50 flooded ms | flooded / alone |', '| --- | --- | ---: | ---: | ---: |'];
for (const [key, row] of rows) {
  const [build, name] = key.split('\t');
  lines.push(`| ${build} | ${name} | ${median(row.alone).toFixed(1)} | ${median(row.flooded).toFixed(1)} | ${(median(row.flooded) / median(row.alone)).toFixed(2)}× |`);
}
console.log(lines.join('\n'));
if (!values.check) writeResultsSection('login-flood', `## A login flood beside other answers (npm run bench:login-flood)\n\n${lines.join('\n')}`);
if (failures > 0) {
  console.error(`${failures} answers were neither the expected status nor a refusal`);
  process.exit(1);
}
