/**
 * HTTP scenarios through the full stack beside a bare uWebSockets.js app answering the same bytes.
 *
 *   npm run bench:http [-- --quick] [--duration <s>] [--runs <n>] [--connections <n>] [--snapshot <file>]
 */
import { formatTable, machineLine, runScenarios, startService, writeJson, writeResultsSection, type BenchOptions, type Scenario } from './lib/harness.js';

function parse(argv: string[]): BenchOptions & { quick: boolean } {
  const o = { durationS: 5, runs: 3, connections: 50, warmupS: 2, quick: false } as BenchOptions & { quick: boolean };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quick') Object.assign(o, { quick: true, durationS: 1, runs: 1, warmupS: 0.5 });
    else if (a === '--duration') o.durationS = Number(argv[++i]);
    else if (a === '--runs') o.runs = Number(argv[++i]);
    else if (a === '--connections') o.connections = Number(argv[++i]);
    else if (a === '--snapshot') o.snapshot = argv[++i];
    else throw new Error(`unknown argument ${a}`);
  }
  return o;
}

const SCENARIOS: Scenario[] = [{ name: 'GET /health', method: 'GET', path: '/health' }];

async function main(): Promise<void> {
  const o = parse(process.argv.slice(2));
  const svc = await startService(o);
  try {
    const rows = await runScenarios(svc.port, SCENARIOS, o);
    const table = formatTable(rows);
    console.log(table);
    writeJson('http', { machine: machineLine(), options: o, rows });
    if (!o.quick) {
      writeResultsSection(
        'http',
        `## HTTP: full stack vs bare uWebSockets.js\n\n${machineLine()}\n\n` +
          `autocannon, ${o.connections} connections, ${o.runs} × ${o.durationS} s per target after ${o.warmupS} s warm-up, alternating; medians. ` +
          `Full stack = the service with request logging at info level (one pino line per request).\n\n${table}\n`,
      );
    }
  } finally {
    await svc.stop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
