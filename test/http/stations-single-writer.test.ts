/**
 * The in-memory single-read writer (SingleStationWriter) against the reference serialization
 * (`singleStationDocument` over the snapshot row + JSON.stringify), byte for byte, for every
 * station of the test snapshot (the sample stations plus the fixture stations), every response language, without availability, with no values and
 * with values, and with live and deleted operator companies (D21).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SingleStationWriter, singleStationDocument } from '../../src/api/stations/station-read.js';
import type { CompanyRegistry } from '../../src/domain/companies/registry.js';
import { LANGUAGES } from '../../src/domain/language.js';
import { StationIndex } from '../../src/domain/stations/index.js';
import { FakeCompanies } from '../helpers/fake-companies.js';
import { Snapshot, type StationRow } from '../../src/storage/snapshot.js';
import { fixtureSnapshot } from './stations.fixture.js';


let snap: Snapshot;
let index: StationIndex;
let rows: StationRow[];

beforeAll(() => {
  snap = Snapshot.open(fixtureSnapshot());
  index = new StationIndex(snap.stationColumns());
  rows = [...snap.stations()];
});
afterAll(() => snap.close());

const hasExtras = (s: StationRow): boolean => s.parking_description !== null || s.facility_details.length > 0;

/** Availability variants: option off, no values, values with unknown groups (-1) and zeros. */
function variants(s: StationRow): Array<Int32Array | null | undefined> {
  const n = s.charge_points.length;
  const mixed = new Int32Array(n);
  for (let k = 0; k < n; k++) mixed[k] = k % 3 === 0 ? -1 : k % 3 === 1 ? 0 : k * 7 + 1;
  const all = new Int32Array(n).fill(12);
  return [undefined, null, mixed, all];
}

function compareAll(companies: FakeCompanies): { fast: number; fallback: number } {
  const reg = companies as unknown as CompanyRegistry;
  const writer = new SingleStationWriter(index, reg, 'v-test');
  let fast = 0;
  let fallback = 0;
  for (let i = 0; i < rows.length; i++) {
    const s = snap.station(index.idAt(i))!;
    expect(s.id).toBe(rows[i].id);
    expect(writer.canWrite(i)).toBe(!hasExtras(s));
    if (writer.canWrite(i)) fast++;
    else fallback++;
    // The handler sends stations with extras from the snapshot row; the writer is still checked on
    // them (they carry the fixture's branding and other rare shapes), against the same station
    // without the extras.
    const ref: StationRow = writer.canWrite(i) ? s : { ...s, parking_description: null, facility_details: [] };
    for (const avail of variants(s)) {
      for (const lang of LANGUAGES) {
        const want = JSON.stringify(singleStationDocument(ref, lang, avail, reg, 'v-test'));
        const got = writer.write(i, avail).toString('utf8');
        if (got !== want) expect({ id: s.id, lang, avail, got }).toEqual({ id: s.id, lang, avail, got: want });
      }
    }
  }
  return { fast, fallback };
}

describe('SingleStationWriter', () => {
  it('test snapshot covers the interesting shapes', () => {
    expect(rows.length).toBeGreaterThan(1000);
    // The stations include branding, EVSE ids, facilities, no operator, several charge point groups.
    expect(rows.some((s) => s.branding !== null)).toBe(true);
    expect(rows.some((s) => s.evse_ids.length > 0)).toBe(true);
    expect(rows.some((s) => s.charge_points.some((c) => c.evse_ids.length > 0))).toBe(true);
    expect(rows.some((s) => s.facilities.length > 0)).toBe(true);
    expect(rows.some((s) => s.operator_id === null)).toBe(true);
    expect(rows.some((s) => s.charge_points.length > 1)).toBe(true);
    expect(rows.some((s) => s.evse_operator !== null)).toBe(true);
    // And the fixture stations with parking descriptions / facility details take the snapshot row.
    expect(rows.some((s) => s.parking_description !== null)).toBe(true);
    expect(rows.some((s) => s.facility_details.length > 0)).toBe(true);
  });

  it('matches singleStationDocument + JSON.stringify for every station, language and availability', () => {
    const companies = new FakeCompanies(new Map(snap.operators().map((o) => [o.id, { id: o.id, name: o.name }])));
    const r = compareAll(companies);
    expect(r.fast + r.fallback).toBe(rows.length);
    expect(r.fallback).toBeGreaterThan(0);
    expect(r.fast).toBeGreaterThan(rows.length * 0.9);
  });

  it('matches with deleted operator companies (operator data null, nothing included; D21)', () => {
    const ops = snap.operators();
    const companies = new FakeCompanies(new Map(ops.map((o) => [o.id, { id: o.id, name: o.name }])));
    // Delete every other operator after a first write, so the writer's name cache must follow the generation.
    const writer = new SingleStationWriter(index, companies as unknown as CompanyRegistry, 'v-test');
    for (let i = 0; i < rows.length; i++) if (writer.canWrite(i)) writer.write(i, undefined);
    ops.forEach((o, k) => k % 2 === 0 && companies.delete(o.id));
    expect(rows.some((s) => !hasExtras(s) && s.operator_id !== null && !companies.has(s.operator_id))).toBe(true);
    compareAll(companies);
  });

  it('renames show up after a registry change (no stale company record)', () => {
    const ops = snap.operators();
    const byId = new Map(ops.map((o) => [o.id, { id: o.id, name: o.name }]));
    const companies = new FakeCompanies(byId);
    const reg = companies as unknown as CompanyRegistry;
    const writer = new SingleStationWriter(index, reg, 'v-test');
    const i = rows.findIndex((s) => !hasExtras(s) && s.operator_id !== null);
    const s = rows[i];
    expect(writer.write(i, undefined).toString()).toBe(JSON.stringify(singleStationDocument(s, 'en', undefined, reg, 'v-test')));
    byId.set(s.operator_id!, { id: s.operator_id!, name: 'Renamed "Operator" é' });
    companies.generation++;
    const got = writer.write(i, undefined).toString();
    expect(got).toContain('Renamed \\"Operator\\" é');
    expect(got).toBe(JSON.stringify(singleStationDocument(s, 'en', undefined, reg, 'v-test')));
  });
});
