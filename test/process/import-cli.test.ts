/**
 * The import CLI (`npm run import`): usage, exit codes, formats combined in one snapshot, the
 * summary it prints. The importers themselves: test/import/import.test.ts.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/server.js';
import { Snapshot } from '../../src/storage/snapshot.js';

const FIX = path.join(ROOT, 'test/fixtures/import');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'import-cli-test-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('import CLI', () => {
  const run = promisify(execFile);
  const CLI = path.join(ROOT, 'dist/src/cli/import.js');
  const cli = async (args: string[]) => {
    try {
      const r = await run(process.execPath, [CLI, ...args], { cwd: ROOT });
      return { code: 0, stdout: r.stdout, stderr: r.stderr };
    } catch (e) {
      const x = e as { code: number; stdout: string; stderr: string };
      return { code: x.code, stdout: x.stdout, stderr: x.stderr };
    }
  };

  it('prints help, refuses usage errors with exit 2 and bad files with exit 1', async () => {
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/usage: import bnetza\|irve\|ocpi/);
    expect((await cli([])).code).toBe(2);
    expect((await cli(['xlsx', 'a.csv', '--out', 'b.db'])).stderr).toMatch(/unknown format "xlsx"/);
    expect((await cli(['irve', path.join(FIX, 'fr/irve-messy.csv')])).code).toBe(2);
    expect((await cli(['irve', '--out', path.join(tmp, 'z.db')])).code).toBe(2);
    expect((await cli(['irve', path.join(FIX, 'nope.csv'), '--out', path.join(tmp, 'z.db')])).code).toBe(2);
    expect((await cli(['irve', path.join(FIX, 'fr/irve-messy.csv'), '--bogus', '--out', path.join(tmp, 'z.db')])).code).toBe(2);
    const bad = await cli(['irve', path.join(FIX, 'fr/irve-no-coordinates.csv'), '--out', path.join(tmp, 'z.db')]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/import failed: .*lacks coordonneesXY/);
  });

  it('combines formats in one snapshot', async () => {
    const out = path.join(tmp, 'mixed.db');
    const r = await cli(['bnetza', path.join(FIX, 'de/bnetza-messy.csv'), 'ocpi', path.join(FIX, 'ocpi/locations-messy.json'), '--out', out, '--json']);
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(summary).toMatchObject({ formats: ['bnetza', 'ocpi'], files: 2, stationsWritten: 4 + 3 });
    // The attribution names the sources actually imported, with their own dates (D131), and the reference data's.
    const snap = Snapshot.open(out);
    const text = snap.meta.attribution;
    snap.close();
    expect(text).toMatch(/^Charging station data: © Bundesnetzagentur, Ladesäulenregister \(as of \d{4}-\d{2}-\d{2}\), licensed under CC BY 4\.0 .*; and OCPI Locations published by [A-Z]{2}\*[A-Z0-9]{3}/);
    expect(text).not.toContain('2019-07-19');
    expect(text).not.toContain('Etalab');
    expect(text).toContain('Vehicle data: open EV data set');
  });

  it('writes the snapshot and a summary', async () => {
    const out = path.join(tmp, 'cli.db');
    const r = await cli(['ocpi', path.join(FIX, 'ocpi/locations-messy.json'), '--out', out, '--json']);
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s).toMatchObject({ formats: ['ocpi'], rowsRead: 11, stationsWritten: 3 });
    expect(fs.existsSync(out)).toBe(true);
    const text = await cli(['ocpi', path.join(FIX, 'ocpi/locations-messy.json'), '--out', out]);
    expect(text.stdout).toMatch(/11 rows read, 3 stations written/);
    expect(text.stdout).toMatch(/rows skipped: bad_coordinates 3, duplicate_id 1/);
  });
});
