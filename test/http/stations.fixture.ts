/**
 * Shared setup of the station and statistics tests: a snapshot of the 1,927 sample stations plus the
 * fixture stations of test/fixtures/stations-extra.jsonl (facilities, EVSE ids, parking descriptions,
 * branding, dangling operator, ties) and a country statistics history, built through the real
 * builder; companies (EMPs and supported EMPs) written into the live store before the server starts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { inject } from 'vitest';
import { buildSnapshot } from '../../src/import/default-snapshot.js';
import { openLiveStore } from '../../src/storage/open.js';
import { Snapshot, type StationRow } from '../../src/storage/snapshot.js';
import { ROOT, databaseUrlOf, freshDataDir } from '../helpers/server.js';

export const IZIVIA = '5a6059db-d927-5a9c-a9ca-02e565c0526d';
export const BOUYGUES = '21fb555b-22c5-55c1-8401-1c8fa09c9bb0';
export const EMP_A = 'e0000000-0000-5000-8000-00000000000a';
export const EMP_B = 'e0000000-0000-5000-8000-00000000000b';
export const EMP_C = 'e0000000-0000-5000-8000-00000000000c';
export const FIX = (n: number): string => `f0000000-0000-5000-8000-00000000000${n}`;
export const DANGLING = 'dead0000-0000-5000-8000-000000000000';

let built: string | null = null;

export function fixtureSnapshot(): string {
  if (built !== null) return built;
  const out = path.join(inject('testTmpRoot'), `stations-fixture-${process.pid}.sqlite`);
  buildSnapshot({
    out,
    sample: true,
    progress: false,
    extra: path.join(ROOT, 'test/fixtures/stations-extra.jsonl'),
    history: path.join(ROOT, 'test/fixtures/country-statistics-history.jsonl'),
  });
  built = out;
  return out;
}

/** All stations of the fixture snapshot, decoded (the oracle of the tests). */
export function allStations(): StationRow[] {
  const s = Snapshot.open(fixtureSnapshot());
  try {
    return [...s.stations()];
  } finally {
    s.close();
  }
}

/**
 * A data dir whose live store already holds: EMP_A (supported by Izivia), EMP_B (supported by
 * Bouygues), EMP_C (emp_group = EMP_A), and Izivia / Bouygues as CPOs with those supported EMPs.
 */
export async function seededDataDir(): Promise<string> {
  const dir = freshDataDir();
  const live = await openLiveStore({ dataDir: dir, databaseUrl: await databaseUrlOf(dir) });
  try {
    const now = 1_700_000_000_000;
    const mapping = (evse: string[]): string =>
      JSON.stringify({ ext_a_ids: null, ext_b_names: null, ext_b_charge_card_ids: null, sheet_names: null, ext_c_operator_ids: null, evse_operator_ids: evse });
    const INS = `INSERT INTO companies(id, name, url, is_cpo, is_emp, version, created_at, updated_at, external_source_mapping, cpo_group, emp_group)
       VALUES (?, ?, NULL, ?, ?, 1, ?, ?, ?, NULL, ?)`;
    const SUP = 'INSERT INTO company_supported_emps(company_id, emp_id) VALUES (?, ?)';
    await live.tx(async (s) => {
      await s.run(INS, [EMP_A, 'Emp A', 0, 1, now, now, mapping([]), null]);
      await s.run(INS, [EMP_B, 'Emp B', 0, 1, now, now, mapping([]), null]);
      await s.run(INS, [EMP_C, 'Emp C', 0, 1, now, now, mapping([]), EMP_A]);
      await s.run(INS, [IZIVIA, 'Izivia', 1, 0, now, now, mapping(['FR*A05', 'ZZ*ONE']), null]);
      await s.run(INS, [BOUYGUES, 'Bouygues E&S', 1, 0, now, now, mapping(['FR*A15']), null]);
      await s.run(SUP, [IZIVIA, EMP_A]);
      await s.run(SUP, [BOUYGUES, EMP_B]);
    });
  } finally {
    await live.close();
  }
  return dir;
}

/** Independent haversine (D25) for the oracle. */
export function haversine(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const r = Math.PI / 180;
  const a = Math.sin(((lat2 - lat1) * r) / 2) ** 2 + Math.cos(lat1 * r) * Math.cos(lat2 * r) * Math.sin(((lon2 - lon1) * r) / 2) ** 2;
  return 2 * 6_371_000 * Math.asin(Math.sqrt(a));
}

export function exists(p: string): boolean {
  return fs.existsSync(p);
}
