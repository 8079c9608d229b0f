/**
 * Live availability under load: radius searches (ReadStationsWithAvailability, so every answer
 * carries the live counts) alone, and while EVSE status updates arrive at a fixed rate, in
 * alternating rounds of the same run (median req/s of each; ratio = with / without).
 *
 *   npm run bench:availability [-- --rate 5000 --duration 5 --rounds 3 --feed bulk|patch]
 *
 * Station data: a generated OCPI Locations file (2,000 Paris locations × 4 EVSEs, 2 connectors
 * each, deterministic) imported with the station importer. `--feed bulk` sends 500 statuses per
 * `POST /v1/availability` (rate/500 requests/s); `--feed patch` sends one OCPI PATCH per status.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { mulberry32 } from '../src/domain/random.js';
import { EVSES, LOCATIONS, evseSnapshot } from './lib/evse-locations.js';
import { BENCH_KEY, loadLine, machineLine, median, startService } from './lib/harness.js';

const { values } = parseArgs({
  options: {
    rate: { type: 'string', default: '5000' },
    duration: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    feed: { type: 'string', default: 'bulk' },
    connections: { type: 'string', default: '8' },
  },
});
const RATE = Number(values.rate);
const DURATION = Number(values.duration);
const ROUNDS = Number(values.rounds);
const FEED = values.feed === 'patch' ? 'patch' : 'bulk';

async function main(): Promise<void> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-availability-'));
  const snapshot = await evseSnapshot(tmp);
  const svc = await startService({ snapshot, env: { WORKERS: '1' } });
  const url = `http://127.0.0.1:${svc.port}`;
  const search = {
    url,
    connections: Number(values.connections),
    duration: DURATION,
    headers: { 'Api-Key': BENCH_KEY },
    requests: [{ method: 'GET' as const, path: '/v1/charging_stations?filter%5Blatitude%5D=48.86&filter%5Blongitude%5D=2.35&filter%5Bradius%5D=3000&page%5Bsize%5D=50' }],
  };
  const rnd = mulberry32(7);
  const statuses = ['AVAILABLE', 'CHARGING', 'AVAILABLE', 'OUTOFORDER'];
  const bulkBody = (): string =>
    JSON.stringify({
      data: {
        type: 'evse_statuses',
        attributes: {
          statuses: Array.from({ length: 500 }, () => ({
            evse_id: `FR*BNC*E${Math.floor(rnd() * LOCATIONS)}X${Math.floor(rnd() * EVSES)}`,
            status: statuses[Math.floor(rnd() * statuses.length)],
          })),
        },
      },
    });
  const bodies = Array.from({ length: 20 }, bulkBody);
  let b = 0;
  const feed = (): ReturnType<typeof autocannon> =>
    FEED === 'bulk'
      ? autocannon({
          url,
          connections: 2,
          duration: DURATION,
          overallRate: RATE / 500,
          requests: [
            {
              method: 'POST',
              path: '/v1/availability',
              headers: { 'Api-Key': BENCH_KEY, 'Content-Type': 'application/json' },
              setupRequest: (req: Record<string, unknown>) => ({ ...req, body: bodies[b++ % bodies.length] }),
            },
          ],
        })
      : autocannon({
          url,
          connections: 8,
          duration: DURATION,
          overallRate: RATE,
          requests: [
            {
              method: 'PATCH',
              headers: { 'Api-Key': BENCH_KEY, 'Content-Type': 'application/json' },
              setupRequest: (req: Record<string, unknown>) => {
                const i = Math.floor(rnd() * LOCATIONS);
                const k = Math.floor(rnd() * EVSES);
                return { ...req, path: `/ocpi/2.2.1/locations/FR/BNC/LOC${i}/FR*BNC*E${i}X${k}`, body: `{"status":"${statuses[(i + k) % 4]}"}` };
              },
            },
          ],
        });
  // Warm-up with both.
  await Promise.all([autocannon({ ...search, duration: 2 }), feed()]);
  const without: number[] = [];
  const withFeed: number[] = [];
  const fed: number[] = [];
  const failures: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const a = await autocannon(search);
    without.push(a.requests.average);
    failures.push(a.non2xx + a.errors);
    const [s, f] = await Promise.all([autocannon(search), feed()]);
    withFeed.push(s.requests.average);
    fed.push((f.requests.average * (FEED === 'bulk' ? 500 : 1)));
    failures.push(s.non2xx + s.errors + f.non2xx + f.errors);
  }
  await svc.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
  const mw = median(without);
  const mf = median(withFeed);
  console.log(machineLine());
  console.log(loadLine());
  console.log(`feed ${FEED}, target ${RATE} status updates/s, ${ROUNDS} rounds of ${DURATION} s, ${search.connections} search connections`);
  console.log(`radius search req/s without updates: median ${mw.toFixed(0)} (${without.map((x) => x.toFixed(0)).join(', ')})`);
  console.log(`radius search req/s with updates:    median ${mf.toFixed(0)} (${withFeed.map((x) => x.toFixed(0)).join(', ')})`);
  console.log(`status updates applied/s (median): ${median(fed).toFixed(0)}; ratio with/without: ${(mf / mw).toFixed(3)}; failed requests: ${failures.reduce((x, y) => x + y, 0)}`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
