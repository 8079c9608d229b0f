/**
 * What the first `POST /v1/ocpi/cdr_cost` after start costs the event loop (D259): a client
 * sends `GET /health` one at a time, back to back, while a fresh service answers its first
 * cdr_cost request (the complex example of the OCPI text, in Europe/Berlin), then a second one
 * (same zone) and a third in a zone not seen yet (America/New_York). The longest /health answer
 * during each request is about how long the event loop was held. Every run starts a new service;
 * with `--base <dir>` (another checkout, built) runs alternate between it and this checkout.
 * Medians of `--runs`; also the time to start (spawn to `listening`).
 *
 *   npm run bench:cdr-cost-first [-- --runs 5] [--base <dir>]
 *
 * Writes bench/out/cdr-cost-first.json.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { defaultSnapshotPath } from '../src/config.js';
import { BENCH_KEY, loadLine, machineLine, median, ROOT, startService, waitIdle, writeJson } from './lib/harness.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, base: { type: 'string' } } });
const RUNS = Number(values.runs);

const complex = JSON.parse(fs.readFileSync(path.join(ROOT, 'test/fixtures/ocpi/ocpi-spec-2.2.1/tariff_4_complex.json'), 'utf8')) as unknown;
const body = (timezone: string): string =>
  JSON.stringify({
    data: {
      type: 'ocpi_cdr_cost_request',
      attributes: {
        tariff: complex,
        timezone,
        cdr: {
          start_date_time: '2024-06-03T09:30:00Z',
          end_date_time: '2024-06-03T12:57:00Z',
          charging_periods: [
            { start_date_time: '2024-06-03T09:30:00Z', dimensions: [{ type: 'TIME', volume: 2.75 }, { type: 'MAX_CURRENT', volume: 16 }] },
            { start_date_time: '2024-06-03T12:15:00Z', dimensions: [{ type: 'PARKING_TIME', volume: 0.7 }] },
          ],
        },
      },
    },
  });

/** The longest /health answer (ms) while `send` runs, /health sent back to back meanwhile; and the request's own time. */
async function heldWhile(port: number, send: () => Promise<Response>): Promise<{ healthMaxMs: number; requestMs: number }> {
  let done = false;
  let healthMaxMs = 0;
  const probe = (async () => {
    while (!done) {
      const t0 = performance.now();
      await (await fetch(`http://127.0.0.1:${port}/health`)).arrayBuffer();
      healthMaxMs = Math.max(healthMaxMs, performance.now() - t0);
    }
  })();
  // Let the probe settle into its rhythm first.
  await new Promise((r) => setTimeout(r, 100));
  healthMaxMs = 0;
  const t0 = performance.now();
  const r = await send();
  const text = await r.text();
  const requestMs = performance.now() - t0;
  if (r.status !== 200) throw new Error(`cdr_cost answered ${r.status}: ${text.slice(0, 300)}`);
  await new Promise((res) => setTimeout(res, 20));
  done = true;
  await probe;
  return { healthMaxMs, requestMs };
}

interface Run {
  startMs: number;
  first: number;
  second: number;
  newZone: number;
  firstRequestMs: number;
  idleHealthMaxMs: number;
}

async function once(root: string): Promise<Run> {
  const svc = await startService({ snapshot: defaultSnapshotPath(), root });
  try {
    await waitIdle(svc.proc.pid!, 0.1, 30_000);
    const post = (tz: string) => () => fetch(`http://127.0.0.1:${svc.port}/v1/ocpi/cdr_cost`, { method: 'POST', headers: { 'Api-Key': BENCH_KEY, 'Content-Type': 'application/json' }, body: body(tz) });
    const idle = await heldWhile(svc.port, () => new Promise((r) => setTimeout(() => r(fetch(`http://127.0.0.1:${svc.port}/health`)), 200)));
    const first = await heldWhile(svc.port, post('Europe/Berlin'));
    const second = await heldWhile(svc.port, post('Europe/Berlin'));
    const newZone = await heldWhile(svc.port, post('America/New_York'));
    return { startMs: svc.startMs, first: first.healthMaxMs, second: second.healthMaxMs, newZone: newZone.healthMaxMs, firstRequestMs: first.requestMs, idleHealthMaxMs: idle.healthMaxMs };
  } finally {
    await svc.stop();
  }
}

const targets: [string, string][] = [['this checkout', ROOT], ...(values.base ? [['base', path.resolve(values.base)] as [string, string]] : [])];
const runs = new Map<string, Run[]>(targets.map(([name]) => [name, []]));
for (let i = 0; i < RUNS; i++) for (const [name, root] of i % 2 === 0 ? targets : [...targets].reverse()) runs.get(name)!.push(await once(root));

const f = (x: number): string => x.toFixed(1);
console.log(`${machineLine()}; ${loadLine()}; medians of ${RUNS} fresh services`);
console.log('| service | start (ms) | /health max, idle | first cdr_cost | second | new zone | first request (ms) |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
const out: Record<string, Record<string, number>> = {};
for (const [name] of targets) {
  const rs = runs.get(name)!;
  const m = (k: keyof Run): number => median(rs.map((r) => r[k]));
  out[name] = { startMs: m('startMs'), idleHealthMaxMs: m('idleHealthMaxMs'), firstHealthMaxMs: m('first'), secondHealthMaxMs: m('second'), newZoneHealthMaxMs: m('newZone'), firstRequestMs: m('firstRequestMs') };
  console.log(`| ${name} | ${f(m('startMs'))} | ${f(m('idleHealthMaxMs'))} | ${f(m('first'))} | ${f(m('second'))} | ${f(m('newZone'))} | ${f(m('firstRequestMs'))} |`);
}
writeJson('cdr-cost-first', { runs: RUNS, results: out, raw: Object.fromEntries(runs) });
