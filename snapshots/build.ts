/**
 * `npm run snapshot:build`: the default snapshot from snapshots/sources (the builder is
 * src/import/default-snapshot.ts).
 *
 *   npm run snapshot:build [-- --out <file>] [--sample] [--extra <jsonl>] [--history <jsonl>]
 *        [--record-history] [--no-progress]
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs as utilParseArgs } from 'node:util';
import { buildSnapshot, type BuildOptions } from '../src/import/default-snapshot.js';

const BUILD_USAGE = 'usage: snapshot:build [--out <file>] [--sample] [--extra <jsonl>] [--history <jsonl>] [--record-history] [--no-progress]';

/** The command line of `npm run snapshot:build` (node:util parseArgs; --help prints the usage). */
function buildArgs(argv: string[]): BuildOptions {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(BUILD_USAGE);
    process.exit(0);
  }
  let values;
  try {
    ({ values } = utilParseArgs({
      args: argv,
      strict: true,
      options: {
        out: { type: 'string' },
        sample: { type: 'boolean' },
        'no-progress': { type: 'boolean' },
        extra: { type: 'string' },
        history: { type: 'string' },
        'record-history': { type: 'boolean' },
      },
    }));
  } catch (e) {
    console.error(`${(e as Error).message}\n${BUILD_USAGE}`);
    process.exit(2);
  }
  return {
    progress: values['no-progress'] !== true,
    ...(values.out !== undefined ? { out: values.out } : {}),
    ...(values.sample ? { sample: true } : {}),
    ...(values.extra !== undefined ? { extra: values.extra } : {}),
    ...(values.history !== undefined ? { history: values.history } : {}),
    ...(values['record-history'] ? { recordHistory: true } : {}),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const r = buildSnapshot(buildArgs(process.argv.slice(2)));
  console.log(`snapshot ${r.file}: ${r.stations} stations in ${Math.round(r.ms)} ms`);
  if (r.leftOut.length > 0) console.log(`left out ${r.leftOut.length} register stations on points that stations of other addresses share (D255):\n  ${r.leftOut.join('\n  ')}`);
}
