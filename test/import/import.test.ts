import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/server.js';
import { runImport, type ImportFormat } from '../../src/import/run.js';
import { Snapshot } from '../../src/storage/snapshot.js';
import { buildSnapshot, sharedPointStations, writeServiceSnapshot, type SourceStation } from '../../src/import/default-snapshot.js';
import { StationIndex } from '../../src/domain/stations/index.js';
import { metresBetween, stationIdOf } from '../../src/domain/stations/normalize.js';
import type { StationRecord } from '../../src/domain/stations/model.js';

const FIX = path.join(ROOT, 'test/fixtures/import');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'import-test-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
let n = 0;

async function imp(format: ImportFormat, files: string[]) {
  const out = path.join(tmp, `s${n++}.db`);
  const summary = await runImport({ inputs: files.map((f) => ({ format, file: path.join(FIX, f) })), out });
  const snap = Snapshot.open(out);
  const stations = [...snap.stations()];
  const bySource = new Map<string, StationRecord>(stations.map((s) => [s.source_id!, s]));
  // The service can index what the importer wrote.
  const index = new StationIndex(snap.stationColumns());
  expect(index.size).toBe(stations.length);
  const operators = snap.operators();
  snap.close();
  return { out, summary, stations, bySource, operators };
}

describe('German register import', () => {
  it('skips every malformed row with its reason and keeps the good ones', async () => {
    const r = await imp('bnetza', ['de/bnetza-messy.csv']);
    expect(r.summary.rowsRead).toBe(14);
    expect(r.summary.skipped).toEqual({
      bad_coordinates: 3,
      bad_encoding: 1,
      duplicate_id: 1,
      missing_columns: 1,
      missing_id: 1,
      no_connectors: 1,
      not_in_operation: 1,
    });
    expect(r.summary.evseIdsDropped).toEqual({ evse_id_invalid: 2 });
    expect(r.summary.stationsWritten).toBe(4);
    const albwerk = r.bySource.get('bnetza:device:1010338')!;
    expect(albwerk.id).toBe(stationIdOf('bnetza:device:1010338'));
    expect(albwerk).toMatchObject({
      country: 'DE',
      latitude: 48.442398,
      longitude: 9.659075,
      address: 'Am Berg 1, 72535 Heroldstatt',
      evse_operator: 'DE*AEW',
      evse_ids: ['DE*AEW*E002501', 'DE*AEW*E002502'],
      charge_points: [{ plug: 'type2', energy_type: 'ac', power: 22, count: 2, evse_ids: ['DE*AEW*E002501', 'DE*AEW*E002502'] }],
    });
    // Two devices at the same address form one station.
    expect(r.bySource.get('bnetza:device:1063962')!.charge_points).toEqual([
      { plug: 'type2', energy_type: 'ac', power: 22, count: 8, evse_ids: [] },
    ]);
    // A line break before an EVSE id is dropped; dashes as separators become `*`.
    expect(r.bySource.get('bnetza:device:1010329')!.evse_ids).toEqual(['DE*COC*E159*01']);
    expect(r.bySource.get('bnetza:device:1025458')!.evse_ids).toEqual(['DE*ACO*E10202*U2*01*1']);
  });

  it('reads the official files in UTF-8 with BOM and in ISO-8859-1, and operators by name', async () => {
    const r = await imp('bnetza', ['de/bnetza-2026-02-27-head.csv', 'de/bnetza-2026-03-25-head.csv']);
    expect(r.summary.rowsRead).toBe(19 + 9);
    // The March release repeats devices of the February one: the first file wins.
    expect(r.summary.skipped).toEqual({ duplicate_id: 9 });
    expect(r.summary.dataDate).toBe('2026-03-25T00:00:00.000Z');
    const names = r.stations.map((s) => s.address).join('|');
    expect(names).toContain('Bräunisheimer Str.');
    expect(names).not.toMatch(/Ã|\ufffd/);
    // EnBW is a known operator of the committed data (matched by normalized name).
    const enbw = r.stations.find((s) => s.name.startsWith('EnBW'))!;
    const op = r.operators.find((o) => o.id === enbw.operator_id)!;
    expect(op.name).toMatch(/EnBW/);
  });

  it('leaves out devices whose exact point other devices on another street share (a placeholder position, D230)', async () => {
    const r = await imp('bnetza', ['de/bnetza-berlin-shared-points.csv']);
    expect(r.summary.rowsRead).toBe(13);
    // Three TotalEnergies devices on three streets at one point: none is kept. Reuchlinstraße
    // (3 devices) and Saalmannstraße (2) at one point: the majority street keeps it.
    expect(r.summary.skipped).toEqual({ coordinates_shared: 5 });
    const addresses = r.stations.map((s) => s.address).join('|');
    expect(addresses).toContain('Reuchlinstraße 10-11, 10553');
    expect(addresses).not.toMatch(/Saalmannstraße|Erich-Weinert|Breitkopfstr|Cornelius-Fredericks/);
    // One street with three postcodes at one point: a typo in the postcode, the point is kept.
    expect(r.stations.filter((s) => s.address.startsWith('Plauener Str.')).length).toBeGreaterThan(0);
  });

  it('leaves out a device far from the other devices of its postcode zone (D231)', async () => {
    const r = await imp('bnetza', ['de/bnetza-berlin-off-zone.csv']);
    expect(r.summary.rowsRead).toBe(21);
    expect(r.summary.skipped).toEqual({ coordinates_off_zone: 1 });
    expect(r.bySource.has('bnetza:device:1121300')).toBe(false);
    expect(r.stations.every((s) => s.latitude > 52)).toBe(true);
  });

  it('refuses a file whose header lacks the coordinates', async () => {
    await expect(runImport({ inputs: [{ format: 'bnetza', file: path.join(FIX, 'de/bnetza-no-coordinates.csv') }], out: path.join(tmp, 'x.db') })).rejects.toThrow(
      /lacks the column\(s\) Breitengrad, Längengrad/,
    );
    expect(fs.existsSync(path.join(tmp, 'x.db'))).toBe(false);
  });
});

describe('IRVE import', () => {
  it('leaves out a station far from the other stations of its department (D231)', async () => {
    const r = await imp('irve', ['fr/irve-off-zone.csv']);
    expect(r.summary.rowsRead).toBe(53);
    // Counted per row: the moved station has two charge points.
    expect(r.summary.skipped).toEqual({ coordinates_off_zone: 2 });
    expect(r.stations.length).toBe(20);
    expect(r.bySource.has('irve:FREBNPBBAKL')).toBe(false);
  });

  it('skips malformed rows with reasons, maps plugs, powers, overseas departments', async () => {
    const r = await imp('irve', ['fr/irve-messy.csv', 'fr/irve-doublons-extract.csv']);
    expect(r.summary.rowsRead).toBe(13 + 12);
    expect(r.summary.skipped).toEqual({
      bad_coordinates: 3,
      // The consolidation's own flag (consolidated_is_lon_lat_correct = False): the rows at latitude 3.84 and those of FR0NXPOOLHFX48 (D132).
      coordinates_flagged: 5,
      bad_encoding: 1,
      duplicate_id: 3,
      missing_columns: 1,
      missing_id: 1,
      no_connectors: 2,
    });
    expect(r.summary.evseIdsDropped).toEqual({ evse_id_invalid: 3 });
    // Inside France, but flagged by the consolidation: not imported at its raw position.
    expect(r.bySource.get('irve:FR0NXPOOLHFX48')).toBeUndefined();
    // Station FREBNPBAABR: two of its charge points are in the sample, 22 kW Type 2 each.
    const easy = r.bySource.get('irve:FREBNPBAABR')!;
    expect(easy).toMatchObject({ country: 'FR', latitude: 45.925034, longitude: 6.872792, evse_operator: 'FR*EBN', parking_type: 'on_street' });
    expect(easy.charge_points).toEqual([{ plug: 'type2', energy_type: 'ac', power: 22, count: 2, evse_ids: ['FR*EBN*EBAABR1', 'FR*EBN*EBAABR2'] }]);
    // Watts read as kW, Schuko capped at 3.7 kW, double-encoded UTF-8 repaired, `TRUE` is true.
    const w = r.bySource.get('irve:FRTSTP0000004')!;
    expect(w.name).toBe('Marché couvert');
    expect(w.free_charging).toBe(true);
    expect(w.parking_type).toBe('parking_lot');
    expect(w.charge_points.map((c) => [c.plug, c.power])).toEqual([['type2', 22], ['schuko', 3.7]]);
    // Réunion by its INSEE code; zero power gives the per-plug estimate.
    const re = r.bySource.get('irve:FRTSTP0000005')!;
    expect(re.country).toBe('RE');
    expect(re.charge_points.map((c) => [c.plug, c.energy_type, c.power])).toEqual([['ccs', 'dc', 50], ['schuko', 'ac', 3.7]]);
  });

  it('refuses a file that is not IRVE 2.x', async () => {
    await expect(runImport({ inputs: [{ format: 'irve', file: path.join(FIX, 'fr/irve-no-coordinates.csv') }], out: path.join(tmp, 'y.db') })).rejects.toThrow(
      /lacks coordonneesXY/,
    );
  });
});

describe('OCPI Locations import', () => {
  it('reads arrays, saved pages and single Locations; skips the rest with reasons', async () => {
    const files = fs.readdirSync(path.join(FIX, 'ocpi')).filter((f) => f.endsWith('.json')).sort().map((f) => `ocpi/${f}`);
    const r = await imp('ocpi', files);
    expect(r.summary.skipped).toEqual({
      bad_coordinates: 3,
      duplicate_id: 3,
      malformed_json: 1,
      no_connectors: 1,
      not_a_location: 3,
      not_published: 2,
    });
    expect(r.summary.evseIdsDropped).toEqual({ evse_id_duplicate: 1, evse_id_invalid: 1, evse_removed: 1 });
    expect([...r.bySource.keys()].filter((k) => k.startsWith('ocpi:DE*TST:')).sort()).toEqual(
      ['1001', '1002', '1009', '2001', '2002', '2003', '3001'].map((k) => `ocpi:DE*TST:${k}`),
    );
    // The spec's example Location: AC 3-phase 220 V × 16 A = 10.6 kW, EVSE ids kept, BEL → BE.
    const gent = r.bySource.get('ocpi:BE*BEC:LOC1')!;
    expect(gent).toMatchObject({ country: 'BE', parking_type: 'on_street', evse_operator: 'BE*BEC' });
    expect(gent.charge_points[0]).toMatchObject({ plug: 'type2', energy_type: 'ac', power: 10.6 });
    expect(gent.evse_ids).toContain('BE*BEC*E041503001');
    const ac = r.bySource.get('ocpi:DE*TST:1002')!;
    expect(ac.charge_points).toEqual([
      { plug: 'type2', energy_type: 'ac', power: 22.1, count: 2, evse_ids: ['DE*TST*EAC0001*1'] },
      { plug: 'schuko', energy_type: 'ac', power: 3.7, count: 1, evse_ids: ['DE*TST*EAC0001*1'] },
    ]);
    expect(r.bySource.get('ocpi:DE*TST:1001')).toMatchObject({
      facilities: ['cafe', 'supermarket'],
      charge_points: [{ plug: 'ccs', energy_type: 'dc', power: 300, count: 1 }],
    });
  });
});

describe('OCPI Locations without a party (D254)', () => {
  it('takes the party from the EVSE ids: identity, operator of last resort, attribution; a Location without EVSE ids names none', async () => {
    const r = await imp('ocpi', ['ocpi-2.1.1/locations.json']);
    expect(r.summary.skipped).toEqual({});
    expect(r.summary.noted).toEqual({ party_from_evse_ids: 2 });
    expect([...r.bySource.keys()].sort()).toEqual(['ocpi:FR*ABC:LOC-1', 'ocpi:FR*DEF:LOC-1', 'ocpi:LOC-3']);
    expect(r.bySource.get('ocpi:FR*ABC:LOC-1')).toMatchObject({ evse_operator: 'FR*ABC', country: 'FR' });
    // No operator object: the party names the operator.
    const abc = r.bySource.get('ocpi:FR*ABC:LOC-1')!;
    expect(r.operators.find((o) => o.id === abc.operator_id)?.name).toBe('FR*ABC');
    const def = r.bySource.get('ocpi:FR*DEF:LOC-1')!;
    expect(r.operators.find((o) => o.id === def.operator_id)?.name).toBe('Autre Réseau');
    const snap = Snapshot.open(r.out);
    expect(snap.meta.attribution).toContain('OCPI Locations published by FR*ABC, FR*DEF (as of 2026-06-22)');
    snap.close();
  });
});

describe('empty input', () => {
  it('writes no snapshot when no station could be read', async () => {
    const out = path.join(tmp, 'empty.db');
    await expect(runImport({ inputs: [{ format: 'ocpi', file: path.join(FIX, 'ocpi/location_patch_example_status.json') }], out })).rejects.toThrow(
      /no station could be read/,
    );
    expect(fs.existsSync(out)).toBe(false);
  });
});

describe('determinism', () => {
  it('gives the same snapshot bytes for the same files', async () => {
    const a = await imp('irve', ['fr/irve-messy.csv']);
    const b = await imp('irve', ['fr/irve-messy.csv']);
    expect(fs.readFileSync(a.out).equals(fs.readFileSync(b.out))).toBe(true);
    expect(a.summary.snapshotVersion).toBe(b.summary.snapshotVersion);
  });
});

describe('snapshot version (D253)', () => {
  it('names what was written: other rows from the same inputs, another version; the same rows by another route, the same one', async () => {
    const base = await imp('irve', ['fr/irve-messy.csv']);
    expect(Snapshot.open(base.out).meta.snapshotVersion).toBe(base.summary.snapshotVersion);
    // What a changed importer would write from the same file: one station's name differs.
    const [first, ...rest] = base.stations;
    const write = (stations: StationRecord[], out: string): string =>
      writeServiceSnapshot({ out: path.join(tmp, out), stations, operators: base.operators.map((o) => ({ ...o, station_count: 1 })), builtAt: base.summary.dataDate });
    const same = write(base.stations, 'v-same.db');
    const renamed = write([{ ...first, name: `${first.name} (2)` }, ...rest], 'v-renamed.db');
    const fewer = write(rest, 'v-fewer.db');
    expect(new Set([same, renamed, fewer]).size).toBe(3);
    // An empty extra file adds no row: the same snapshot, the same version.
    const empty = path.join(tmp, 'empty.jsonl');
    fs.writeFileSync(empty, '');
    const a = buildSnapshot({ out: path.join(tmp, 'sample-a.db'), sample: true, progress: false });
    const b = buildSnapshot({ out: path.join(tmp, 'sample-b.db'), sample: true, progress: false, extra: empty });
    const va = Snapshot.open(a.file).meta.snapshotVersion;
    expect(Snapshot.open(b.file).meta.snapshotVersion).toBe(va);
    expect(va).toMatch(/^[0-9a-f]{16}$/);
  }, 60_000);
});

describe('default snapshot: register stations on shared placeholder points (D255)', () => {
  it('leaves out the stations of other addresses on one point, so a search at Berlin\'s centre does not lead with them', () => {
    const out = path.join(tmp, 'sample-shared.db');
    const r = buildSnapshot({ out, sample: true, progress: false });
    expect(r.leftOut).toContain('52.520007, 13.404954: Borgmannstr. 12, 12555 Berlin-Köpenick');
    expect(r.leftOut).toContain('52.520007, 13.404954: Am Sieltief 1, 26919 Brake');
    expect(r.leftOut).toHaveLength(8);
    const snap = Snapshot.open(out);
    const names = [...snap.stations()].filter((s) => metresBetween(52.52, 13.405, s.latitude, s.longitude) <= 1000).map((s) => s.address);
    snap.close();
    expect(names.length).toBeGreaterThan(0);
    expect(names.some((a) => a.includes('Borgmannstr.') || a.includes('Am Sieltief'))).toBe(false);
    expect(r.stations).toBe(1927);
  }, 60_000);

  it('keeps a point whose stations share a street or a postcode, and the majority address of a shared point', () => {
    const at = (address: string, lat = 50, lon = 8, source_label = 'bnetza') => ({ latitude: lat, longitude: lon, address, source_label }) as SourceStation;
    const typo = [at('Bahnhofstr. 5, 88239 Wangen'), at('Bahnhofstraße 5, 88239 Wangen im Allgäu')];
    expect(sharedPointStations(typo).size).toBe(0);
    const majority = [at('Hauptstr. 1, 10115 Berlin'), at('Hauptstraße 1, 10115 Berlin'), at('Am Sieltief 1, 26919 Brake')];
    expect([...sharedPointStations(majority)]).toEqual([majority[2]]);
    const irve = [at('CENTRE COMMERCIAL', 48, 2, 'irve'), at('AUTRE CENTRE', 48, 2, 'irve')];
    expect(sharedPointStations(irve).size).toBe(0);
  });
});

describe('attribution', () => {
  it('attributes an IRVE import to Etalab with the data date of its files', async () => {
    const r = await imp('irve', ['fr/irve-messy.csv']);
    const snap = Snapshot.open(r.out);
    const text = snap.meta.attribution;
    snap.close();
    expect(text).toContain(`Etalab, Fichier consolidé des Bornes de Recharge pour Véhicules Électriques (IRVE, as of ${r.summary.dataDate.slice(0, 10)})`);
    expect(text).not.toContain('Bundesnetzagentur');
    expect(text).not.toContain('2022-12-05');
  });
});
