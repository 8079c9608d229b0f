/**
 * Builds a station snapshot from public station data:
 *
 *   npm run import -- bnetza|irve|ocpi <file>… [bnetza|irve|ocpi <file>…] --out <snapshot> [--json] [--no-progress]
 *
 * Formats: `bnetza` — the Bundesnetzagentur Ladesäulenregister CSV (official file with its
 * preamble, or the 2021/22 layout); `irve` — the French consolidated IRVE CSV (schema 2.x);
 * `ocpi` — OCPI 2.2.1 Locations (a JSON array, saved `GET /locations` pages, or single Locations).
 * A format name applies to the files after it, so one snapshot can combine formats. Vehicles, rates and the default tariff catalog come
 * from snapshots/sources as for `snapshot:build`. Prints a summary (rows read, stations written,
 * rows skipped by reason; `--json` prints it as JSON). Exit code 2 on a usage error, 1 when a file
 * cannot be imported (no snapshot is written then).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import cliProgress from 'cli-progress';
import { fail } from './common.js';
import { ImportError } from '../import/common.js';
import { IMPORT_FORMATS, runImport, type ImportFormat, type ImportSummary } from '../import/run.js';

const USAGE = `usage: import ${IMPORT_FORMATS.join('|')} <file>… [${IMPORT_FORMATS.join('|')} <file>…] --out <snapshot> [--json] [--no-progress]

  bnetza   Bundesnetzagentur Ladesäulenregister CSV (with or without its preamble)
  irve     French consolidated IRVE CSV, schema 2.x
  ocpi     OCPI 2.2.1 Locations: JSON array, saved GET /locations pages, or single Locations
  (a format name applies to the files after it; several formats make one snapshot)

  --out <snapshot>   snapshot file to write (replaced atomically)
  --json             print the summary as JSON
  --no-progress      no progress bar (there is none either when stderr is not a terminal)`;

export function formatSummary(s: ImportSummary): string {
  const lines = [
    `imported ${s.formats.join(' + ')}: ${s.files} file(s), ${s.rowsRead} rows read, ${s.stationsWritten} stations written ` +
      `(${s.operatorsAdded} new operators), data as of ${s.dataDate.slice(0, 10)}`,
    `snapshot ${s.out} (version ${s.snapshotVersion})`,
  ];
  const skipped = Object.entries(s.skipped);
  lines.push(skipped.length === 0 ? 'rows skipped: none' : `rows skipped: ${skipped.map(([k, v]) => `${k} ${v}`).join(', ')}`);
  const dropped = Object.entries(s.evseIdsDropped);
  if (dropped.length > 0) lines.push(`EVSE ids dropped from kept rows: ${dropped.map(([k, v]) => `${k} ${v}`).join(', ')}`);
  const noted = Object.entries(s.noted);
  if (noted.length > 0) lines.push(`stations kept and noted: ${noted.map(([k, v]) => `${k} ${v}`).join(', ')}`);
  for (const [k, ex] of Object.entries(s.examples)) for (const e of ex) lines.push(`  ${k}: ${e}`);
  return lines.join('\n');
}

async function main(argv: string[]): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        out: { type: 'string' },
        json: { type: 'boolean', default: false },
        'no-progress': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (e) {
    fail(`${(e as Error).message}\n${USAGE}`);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(USAGE + '\n');
    return;
  }
  const [format, ...rest] = positionals;
  if (format === undefined || !(IMPORT_FORMATS as readonly string[]).includes(format)) {
    fail(`${format === undefined ? 'missing format' : `unknown format ${JSON.stringify(format)}`}\n${USAGE}`);
  }
  const inputs: Array<{ format: ImportFormat; file: string }> = [];
  let current = format as ImportFormat;
  for (const p of rest) {
    if ((IMPORT_FORMATS as readonly string[]).includes(p)) current = p as ImportFormat;
    else inputs.push({ format: current, file: p });
  }
  const files = inputs.map((i) => i.file);
  if (files.length === 0) fail(`no input files\n${USAGE}`);
  if (values.out === undefined || values.out.length === 0) fail(`--out <snapshot> is required\n${USAGE}`);
  for (const f of files) if (!fs.existsSync(f) || !fs.statSync(f).isFile()) fail(`${f}: no such file`);
  if (files.some((f) => path.resolve(f) === path.resolve(values.out!))) fail('--out must not be one of the input files');

  const tty = !values['no-progress'] && process.stderr.isTTY === true;
  let bar: cliProgress.SingleBar | null = null;
  try {
    const summary = await runImport({
      inputs,
      out: values.out,
      progress: tty,
      onFile: (file, size) => {
        if (!tty) return undefined;
        bar?.stop();
        bar = new cliProgress.SingleBar(
          { format: `${path.basename(file)} {bar} {percentage}% {value}/{total} bytes`, stream: process.stderr },
          cliProgress.Presets.shades_classic,
        );
        bar.start(size, 0);
        const b = bar;
        return (n) => b.update(Math.min(n, size));
      },
    });
    (bar as cliProgress.SingleBar | null)?.stop();
    process.stdout.write((values.json ? JSON.stringify(summary, null, 2) : formatSummary(summary)) + '\n');
  } catch (e) {
    (bar as cliProgress.SingleBar | null)?.stop();
    if (e instanceof ImportError) {
      process.stderr.write(`import failed: ${e.message}\n`);
      process.exit(1);
    }
    throw e;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).catch((e: unknown) => {
    process.stderr.write(`import failed: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  });
}
