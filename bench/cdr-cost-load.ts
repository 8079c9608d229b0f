/**
 * cdr_cost off the main thread (D226): what the costliest accepted cdr_cost bodies do to other
 * routes, and what a refused one costs the main thread.
 *
 * 1. Main-thread time, in this process: per shape of bench/lib/cdr-shapes.ts, reading and
 *    refusing the smallest body its bound refuses (JSON.parse, schema, checks, bound) and, for the
 *    largest accepted, the same checks and the pricing itself; medians of 9.
 * 2. Over HTTP: station search (radius 5 km, page 50, one request at a time, exact percentiles)
 *    alone, then while 4 connections send the largest accepted body of every shape in turn, on a
 *    service pricing them inline (`PRICING_INLINE_MAX_EVALUATIONS=1000000`: every cdr_cost on the
 *    main thread, as before D226) and on one with the defaults (large ones in the pricing
 *    workers). Runs alternate between the two services; medians of `--runs`.
 *
 *   npm run bench:cdr-cost-load [-- --duration 5] [--runs 3] [--check]
 *
 * `--check` runs each part once, briefly, and fails when an answer is not the one expected.
 * Writes bench/out/cdr-cost-load.json.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { prepareCdrCost, cdrCostOf } from '../src/api/cdr-cost/cdr-cost.js';
import { defaultSnapshotPath } from '../src/config.js';
import { largestAccepted, requestBody, SHAPES } from './lib/cdr-shapes.js';
import { BENCH_KEY, load, loadLine, machineLine, median, medianMeasure, request, ROOT, startService, waitIdle, type Measure } from './lib/harness.js';
import { radiusScenario } from './scenarios.js';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    runs: { type: 'string', default: '3' },
    check: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log('npm run bench:cdr-cost-load [-- --duration 5] [--runs 3] [--check]');
  process.exit(0);
}
const CHECK = values.check;
const DURATION = CHECK ? 1 : Number(values.duration);
const RUNS = CHECK ? 1 : Number(values.runs);
const COST_CONNECTIONS = 4;
const f = (x: number, d = 2): string => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');

function timeMs(fn: () => void, times: number): number {
  const ts: number[] = [];
  for (let i = 0; i < times; i++) {
    const t0 = performance.now();
    fn();
    ts.push(performance.now() - t0);
  }
  return median(ts);
}

interface MainThreadRow {
  shape: string;
  accepted: number;
  acceptedKiB: number;
  checkMs: number;
  priceMs: number;
  refused: number;
  refusedKiB: number;
  refuseMs: number;
}

/** Part 1: the main thread's time to refuse, and to check and price, the costliest bodies. */
function mainThread(): { rows: MainThreadRow[]; bodies: string[] } {
  const rows: MainThreadRow[] = [];
  const bodies: string[] = [];
  const times = CHECK ? 1 : 9;
  for (const shape of SHAPES) {
    const n = largestAccepted(shape);
    const ok = JSON.stringify(requestBody(shape.make(n)));
    bodies.push(ok);
    const refusedN = Math.min(shape.max, n + 1);
    const bad = refusedN === n ? null : JSON.stringify(requestBody(shape.make(refusedN)));
    const refuseMs = bad === null ? NaN : timeMs(() => {
      try {
        prepareCdrCost(JSON.parse(bad));
        throw new Error(`${shape.name}: ${refusedN} was accepted`);
      } catch (e) {
        if ((e as { status?: number }).status !== 400) throw e;
      }
    }, times);
    const prepared = prepareCdrCost(JSON.parse(ok));
    const checkMs = timeMs(() => prepareCdrCost(JSON.parse(ok)), times);
    const priceMs = timeMs(() => cdrCostOf(prepared.task), times);
    rows.push({ shape: shape.name, accepted: n, acceptedKiB: ok.length / 1024, checkMs, priceMs, refused: refusedN, refusedKiB: (bad?.length ?? 0) / 1024, refuseMs });
  }
  // The largest body the schema allows of the many-period shape (10,000 periods), refused by its bound.
  const many = SHAPES[1];
  const big = JSON.stringify(requestBody(many.make(many.max)));
  rows.push({ shape: `${many.max} periods of 4 minutes (refused)`, accepted: NaN, acceptedKiB: NaN, checkMs: NaN, priceMs: NaN, refused: many.max, refusedKiB: big.length / 1024, refuseMs: timeMs(() => {
    try {
      prepareCdrCost(JSON.parse(big));
    } catch (e) {
      if ((e as { status?: number }).status !== 400) throw e;
    }
  }, times) });
  return { rows, bodies };
}

/** Sends the bodies in turn on `connections` until `durationS` ends; counts answers by status. */
async function costLoad(port: number, bodies: string[], durationS: number): Promise<{ ok: number; refused: number; other: number; p50: number }> {
  let next = 0;
  const c = { ok: 0, refused: 0, other: 0 };
  const instance = autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: COST_CONNECTIONS,
    duration: durationS,
    timeout: 10,
    headers: { 'Api-Key': BENCH_KEY, 'Content-Type': 'application/json' },
    requests: [{ method: 'POST', path: '/v1/ocpi/cdr_cost', setupRequest: (req: Record<string, unknown>) => ({ ...req, body: bodies[next++ % bodies.length] }) }],
  });
  void instance.on('response', (_client: unknown, status: number) => {
    if (status === 200) c.ok++;
    else if (status === 503) c.refused++;
    else c.other++;
  });
  const r = await instance;
  return { ...c, p50: r.latency.p50 };
}

interface HttpRow {
  arm: string;
  search: Measure;
  cost: { okPerS: number; refused: number; other: number; p50: number } | null;
}

async function httpPart(bodies: string[]): Promise<HttpRow[]> {
  const snapshot = defaultSnapshotPath();
  const services = {
    inline: await startService({ snapshot, env: { PRICING_INLINE_MAX_EVALUATIONS: '1000000' } }),
    pooled: await startService({ snapshot }),
  };
  const search = radiusScenario(5000, 50);
  try {
    for (const [arm, svc] of Object.entries(services)) {
      for (const b of bodies) {
        const r = await request(svc.port, { method: 'POST', path: '/v1/ocpi/cdr_cost', body: JSON.parse(b) });
        if (r.status !== 200) throw new Error(`${arm}: cdr_cost answered ${r.status}: ${r.body.slice(0, 200)}`);
      }
      if ((await request(svc.port, search)).status !== 200) throw new Error(`${arm}: station search failed`);
    }
    const runs: Record<string, { search: Measure[]; cost: { ok: number; refused: number; other: number; p50: number }[] }> = {
      alone: { search: [], cost: [] },
      inline: { search: [], cost: [] },
      pooled: { search: [], cost: [] },
    };
    for (let r = 0; r < RUNS; r++) {
      await waitIdle(services.pooled.proc.pid!, 0.1, 30_000);
      runs.alone.search.push(await load(services.pooled.port, search, DURATION, 1));
      for (const arm of ['inline', 'pooled'] as const) {
        const svc = services[arm];
        await waitIdle(svc.proc.pid!, 0.1, 30_000);
        const cost = costLoad(svc.port, bodies, DURATION + 1);
        await new Promise((res) => setTimeout(res, 500));
        runs[arm].search.push(await load(svc.port, search, DURATION, 1));
        runs[arm].cost.push(await cost);
      }
      console.error(`run ${r + 1}/${RUNS}: ${loadLine()}`);
    }
    return Object.entries(runs).map(([arm, x]) => ({
      arm,
      search: medianMeasure(x.search),
      cost:
        x.cost.length === 0
          ? null
          : { okPerS: median(x.cost.map((c) => c.ok / (DURATION + 1))), refused: x.cost.reduce((s, c) => s + c.refused, 0), other: x.cost.reduce((s, c) => s + c.other, 0), p50: median(x.cost.map((c) => c.p50)) },
    }));
  } finally {
    await Promise.all(Object.values(services).map((s) => s.stop()));
  }
}

const main = mainThread();
console.log(machineLine());
console.log('\nMain-thread time (ms, medians) of the costliest cdr_cost bodies per shape:');
console.log('| shape | largest accepted | KiB | check (parse, schema, checks, bound) | pricing | smallest refused | KiB | refusal |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const r of main.rows) {
  console.log(`| ${r.shape} | ${Number.isFinite(r.accepted) ? r.accepted : '—'} | ${f(r.acceptedKiB, 0)} | ${f(r.checkMs)} | ${f(r.priceMs)} | ${r.refused} | ${f(r.refusedKiB, 0)} | ${f(r.refuseMs)} |`);
}
const rows = await httpPart(main.bodies);
const alone = rows.find((r) => r.arm === 'alone')!.search;
console.log(`\nStation search (radius 5 km, page 50, one at a time) while ${COST_CONNECTIONS} connections send the largest accepted bodies (medians of ${RUNS} × ${DURATION} s):`);
console.log('| arm | search p50 ms | search p99 ms | p99 / alone | cdr_cost ok/s | cdr_cost p50 ms | 503 | other |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const r of rows) {
  console.log(`| ${r.arm} | ${f(r.search.p50)} | ${f(r.search.p99)} | ${f(r.search.p99 / alone.p99)} | ${r.cost ? f(r.cost.okPerS, 1) : '—'} | ${r.cost ? f(r.cost.p50, 1) : '—'} | ${r.cost?.refused ?? '—'} | ${r.cost?.other ?? '—'} |`);
}
const failed = rows.some((r) => (r.cost?.other ?? 0) > 0 || r.search.errors > 0 || r.search.non2xx > 0);
const out = process.env.BENCH_OUT_DIR ?? path.join(ROOT, 'bench/out');
fs.mkdirSync(out, { recursive: true });
fs.writeFileSync(path.join(out, 'cdr-cost-load.json'), JSON.stringify({ machine: machineLine(), mainThread: main.rows, http: rows }, null, 2));
if (failed) {
  console.error('cdr-cost-load: an answer was not 200 (or 503 for cdr_cost)');
  process.exit(1);
}
