/**
 * Station search over HTTP: now part of the HTTP suite (bench/http.ts, scenarios in
 * bench/scenarios.ts): health, radius 5 km page 400 and page 50, bbox and station read against
 * the bare uWebSockets.js ceiling and the fastify peer, on the default and the synthetic 1 M
 * snapshots. Start-up time and RSS per station count are in bench/scale.ts. This wrapper runs
 * the suite restricted to those scenarios (no report section; output bench/out/http-stations.json).
 *
 *   npm run bench:http:stations [-- <bench:http options, e.g. --quick, --duration 5, --no-synthetic>]
 */
import { main } from './http.js';

main(['--only', '^(GET /health|radius|bbox|station read)', '--no-report', '--json-name', 'http-stations', ...process.argv.slice(2)]).catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
