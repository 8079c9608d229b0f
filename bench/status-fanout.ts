/**
 * EVSE statuses across two replicas on one PostgreSQL live store (D216): the time from sending a
 * status to replica A until replica B's station answer shows it (fan-out; p50/p99), with no other
 * traffic and while a feed sends --rate statuses/s to A in bulks of 500; and what sharing costs a
 * feed: A's answer time for those bulks against one SQLite process holding statuses in memory
 * only (D136), fed the same way in the same run.
 *
 *   npm run bench:status-fanout [-- --samples 200] [--rate 5000] [--duration 5] [--check]
 *
 * Station data: bench/lib/evse-locations.ts (2,000 locations × 4 EVSEs). Probes use locations
 * 0–999 (a fresh one each, so the answer changes from unknown to 1 available), the feed 1000–1999.
 * --check: 20 probes and a 1-s feed; exit 1 when a probe is not seen within 2 s or a request fails.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { mulberry32 } from '../src/domain/random.js';
import { Snapshot } from '../src/storage/snapshot.js';
import { EVSES, evseSnapshot } from './lib/evse-locations.js';
import { BENCH_KEY, loadLine, machineLine, median, startService, startThrowAwayPostgres } from './lib/harness.js';

const { values } = parseArgs({
  options: {
    samples: { type: 'string', default: '200' },
    rate: { type: 'string', default: '5000' },
    duration: { type: 'string', default: '5' },
    check: { type: 'boolean', default: false },
  },
});
const CHECK = values.check;
const SAMPLES = CHECK ? 20 : Math.min(500, Number(values.samples));
const RATE = Number(values.rate);
const DURATION = CHECK ? 1 : Number(values.duration);
const HEADERS = { 'Api-Key': BENCH_KEY, 'Content-Type': 'application/json' };

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

/** Station id of each probe location (the station holding `FR*BNC*E<i>X0`). */
function stationsOf(snapshot: string): Map<number, string> {
  const s = Snapshot.open(snapshot);
  const out = new Map<number, string>();
  for (const r of s.stationEvseGroups()) {
    const m = /^FR\*BNC\*E(\d+)X0$/.exec(r.groups.flat().find((id) => id.endsWith('X0')) ?? '');
    if (m !== null) out.set(Number(m[1]), r.id);
  }
  s.close();
  return out;
}

/** Sends location i's first EVSE AVAILABLE to `writer`, then reads `reader` until it shows; ms from sending. */
async function probe(writer: number, reader: number, i: number, station: string): Promise<{ seenMs: number; answerMs: number }> {
  const t0 = performance.now();
  const r = await fetch(`http://127.0.0.1:${writer}/ocpi/2.2.1/locations/FR/BNC/LOC${i}/FR*BNC*E${i}X0`, { method: 'PATCH', headers: HEADERS, body: '{"status":"AVAILABLE"}' });
  if (r.status !== 200) throw new Error(`PATCH answered ${r.status}: ${await r.text()}`);
  const answerMs = performance.now() - t0;
  for (;;) {
    const g = await fetch(`http://127.0.0.1:${reader}/v1/charging_stations/${station}?availability=true`, { headers: HEADERS });
    const doc = (await g.json()) as { data: { attributes: { charge_points: Array<{ available_count: number | null }> } } };
    if (doc.data.attributes.charge_points.some((c) => c.available_count === 1)) return { seenMs: performance.now() - t0, answerMs };
    if (performance.now() - t0 > 2000) return { seenMs: Infinity, answerMs };
  }
}

/** The feed: bulks of 500 random statuses of locations 1000–1999 at rate/500 requests/s. */
function feed(port: number): ReturnType<typeof autocannon> {
  const rnd = mulberry32(11);
  const statuses = ['AVAILABLE', 'CHARGING', 'OUTOFORDER'];
  const bodies = Array.from({ length: 20 }, () =>
    JSON.stringify({
      data: {
        type: 'evse_statuses',
        attributes: { statuses: Array.from({ length: 500 }, () => ({ evse_id: `FR*BNC*E${1000 + Math.floor(rnd() * 1000)}X${Math.floor(rnd() * EVSES)}`, status: statuses[Math.floor(rnd() * 3)] })) },
      },
    }),
  );
  let b = 0;
  return autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: 2,
    duration: DURATION,
    overallRate: RATE / 500,
    requests: [{ method: 'POST', path: '/v1/availability', headers: HEADERS, setupRequest: (req: Record<string, unknown>) => ({ ...req, body: bodies[b++ % bodies.length] }) }],
  });
}

async function probes(a: number, b: number, stations: Map<number, string>, from: number, n: number, spacingMs: number): Promise<{ seen: number[]; answers: number[] }> {
  const seen: number[] = [];
  const answers: number[] = [];
  for (let i = from; i < from + n; i++) {
    const p = await probe(a, b, i, stations.get(i)!);
    seen.push(p.seenMs);
    answers.push(p.answerMs);
    await new Promise((r) => setTimeout(r, spacingMs));
  }
  return { seen, answers };
}

async function main(): Promise<void> {
  const pg = startThrowAwayPostgres('cps-status-fanout-');
  const snapshot = await evseSnapshot(fs.mkdtempSync(path.join(os.tmpdir(), 'cps-status-fanout-data-')));
  const stations = stationsOf(snapshot);
  const env = { WORKERS: '0', DATABASE_URL: pg.url };
  const a = await startService({ snapshot, env });
  const b = await startService({ snapshot, env });
  const single = await startService({ snapshot, env: { WORKERS: '0' } });
  let failed = 0;
  try {
    await probes(a.port, b.port, stations, 0, 10, 5); // warm-up
    const quiet = await probes(a.port, b.port, stations, 10, SAMPLES, 5);
    // Baseline: the same probes on one SQLite process, written and read there (memory only).
    const own = await probes(single.port, single.port, stations, 10, SAMPLES, 5);
    const perProbeMs = (DURATION * 1000) / SAMPLES;
    // The feed alone into A and into the single process, then again into A with probes beside it.
    const fed = await feed(a.port);
    const alone = await feed(single.port);
    const [fedProbed, busy] = await Promise.all([feed(a.port), probes(a.port, b.port, stations, 10 + SAMPLES, Math.min(SAMPLES, 980 - SAMPLES), Math.max(0, perProbeMs - 3))]);
    failed = [...quiet.seen, ...busy.seen, ...own.seen].filter((x) => !Number.isFinite(x)).length + [fed, alone, fedProbed].reduce((n, r) => n + r.non2xx + r.errors, 0);
    console.log(machineLine());
    console.log(loadLine());
    console.log(`fan-out A → B, quiet (${quiet.seen.length} probes): p50 ${pct(quiet.seen, 50).toFixed(1)} ms, p99 ${pct(quiet.seen, 99).toFixed(1)} ms; A's PATCH answer p50 ${median(quiet.answers).toFixed(2)} ms`);
    console.log(`baseline, one SQLite process writing and reading itself: seen p50 ${pct(own.seen, 50).toFixed(1)} ms, p99 ${pct(own.seen, 99).toFixed(1)} ms; PATCH answer p50 ${median(own.answers).toFixed(2)} ms (A/baseline ${(median(quiet.answers) / median(own.answers)).toFixed(2)})`);
    console.log(`fan-out A → B under a feed of ${RATE}/s (${busy.seen.length} probes): p50 ${pct(busy.seen, 50).toFixed(1)} ms, p99 ${pct(busy.seen, 99).toFixed(1)} ms; the feed meanwhile ${(fedProbed.requests.total * 500 / DURATION).toFixed(0)} statuses/s, bulk answer p50 ${fedProbed.latency.p50} ms`);
    const rateOf = (r: Awaited<ReturnType<typeof feed>>): number => (r.requests.total * 500) / DURATION;
    console.log(`feed into A (PostgreSQL, shared): ${rateOf(fed).toFixed(0)} statuses/s, bulk answer p50 ${fed.latency.p50} ms, p99 ${fed.latency.p99} ms`);
    console.log(`feed into one SQLite process (memory only): ${rateOf(alone).toFixed(0)} statuses/s, bulk answer p50 ${alone.latency.p50} ms, p99 ${alone.latency.p99} ms; shared/memory p50 ratio ${(fed.latency.p50 / Math.max(alone.latency.p50, 0.001)).toFixed(2)}`);
    console.log(`failed: ${failed} (feeds: ${[fed, alone, fedProbed].map((r) => `${r.non2xx} non-2xx, ${r.errors} errors`).join('; ')})`);
  } finally {
    await Promise.all([a.stop(), b.stop(), single.stop()]);
    pg.stop();
  }
  if (failed > 0) process.exit(1);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
