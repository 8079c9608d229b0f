/**
 * What the Prometheus metrics cost (src/metrics.ts): station read and radius page 50 against the
 * service with METRICS=on and METRICS=off (both running, same snapshot), 50 connections, rounds
 * alternating on / off; median req/s of each and the ratio.
 *
 *   npm run bench:metrics [-- --duration 5] [--runs 5]
 */
import { parseArgs } from 'node:util';
import { defaultSnapshotPath } from '../src/config.js';
import { loadLine, load, machineLine, median, startService, waitIdle, type Scenario } from './lib/harness.js';
import { pickFixture, stationScenarios } from './scenarios.js';

const { values } = parseArgs({ options: { duration: { type: 'string', default: '5' }, runs: { type: 'string', default: '5' }, connections: { type: 'string', default: '50' } } });
const DURATION = Number(values.duration);
const RUNS = Number(values.runs);
const CONNS = Number(values.connections);

async function main(): Promise<void> {
  console.log(machineLine());
  console.log(loadLine());
  const snapshot = defaultSnapshotPath();
  const on = await startService({ snapshot, env: { METRICS: 'on' } });
  const off = await startService({ snapshot, env: { METRICS: 'off' } });
  try {
    const f = pickFixture(snapshot);
    const scenarios: Scenario[] = [{ name: 'station read', method: 'GET', path: `/v1/charging_stations/${f.busy.id}` }, stationScenarios().find((s) => s.name.endsWith('page 50'))!];
    console.log('| scenario | metrics on req/s | metrics off req/s | on / off | runs on | runs off |');
    console.log('| --- | ---: | ---: | ---: | --- | --- |');
    for (const sc of scenarios) {
      const r: Record<'on' | 'off', number[]> = { on: [], off: [] };
      await load(on.port, sc, 1, CONNS);
      await load(off.port, sc, 1, CONNS);
      for (let k = 0; k < RUNS; k++) {
        for (const [name, svc] of k % 2 === 0 ? ([['on', on], ['off', off]] as const) : ([['off', off], ['on', on]] as const)) {
          await waitIdle(svc.proc.pid!, 0.1, 30_000);
          r[name].push((await load(svc.port, sc, DURATION, CONNS)).rps);
        }
      }
      const a = median(r.on);
      const b = median(r.off);
      console.log(`| ${sc.name} | ${Math.round(a)} | ${Math.round(b)} | ${(a / b).toFixed(3)} | ${r.on.map(Math.round).join(', ')} | ${r.off.map(Math.round).join(', ')} |`);
    }
  } finally {
    await on.stop();
    await off.stop();
  }
  console.log(loadLine());
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
