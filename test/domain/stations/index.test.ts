import { around } from 'geokdbush';
import { describe, expect, it } from 'vitest';
import { StationColumnsBuilder, decodeColumns, encodeColumns, fragmentOf } from '../../../src/domain/stations/columns.js';
import { aroundInto, haversineMeters } from '../../../src/domain/stations/geo.js';
import { StationIndex } from '../../../src/domain/stations/index.js';
import type { StationRecord } from '../../../src/domain/stations/model.js';
import { localized, pickLanguage } from '../../../src/domain/language.js';
import { mulberry32 } from '../../../src/domain/random.js';

const hex = (n: number): string => n.toString(16).padStart(12, '0');

function stations(n: number, seed: number): StationRecord[] {
  const r = mulberry32(seed);
  const out: StationRecord[] = [];
  for (let i = 0; i < n; i++) {
    // Every 7th station duplicates the previous position (ties), others spread around Paris.
    const prev = out[out.length - 1];
    const lat = i % 7 === 6 && prev ? prev.latitude : 48.7 + r() * 0.3;
    const lon = i % 7 === 6 && prev ? prev.longitude : 2.2 + r() * 0.3;
    out.push({
      id: `00000000-0000-5000-8000-${hex(i)}`,
      name: `Station ${i} «é»`,
      latitude: lat,
      longitude: lon,
      country: i % 3 === 0 ? 'DE' : 'FR',
      address: `Street ${i}`,
      operator_id: i % 5 === 0 ? null : `10000000-0000-5000-8000-${hex(i % 4)}`,
      evse_operator: i % 2 === 0 ? 'FR*ABC' : null,
      evse_ids: [],
      free_parking: i % 3 === 0 ? null : i % 3 === 1,
      free_charging: null,
      parking_type: i % 4 === 0 ? 'parking_lot' : null,
      facilities: i % 6 === 0 ? ['cafe'] : [],
      charge_points: [
        { plug: 'ccs', energy_type: 'dc', power: 50 + (i % 4) * 50, count: 1 + (i % 3), evse_ids: [] },
        { plug: 'type2', energy_type: 'ac', power: 22, count: 2, evse_ids: [] },
      ],
      source_label: 'test',
      source_id: `t${i}`,
      version: 1,
      created_at: 0,
      updated_at: 0,
      parking_description: null,
      facility_details: [],
      branding: null,
    });
  }
  return out;
}

function indexOf(rows: StationRecord[], bboxScanMinStations = 0): StationIndex {
  const b = new StationColumnsBuilder();
  for (const s of rows) b.add(s);
  const blobs = new Map(encodeColumns(b.finish()));
  const parts = [...blobs].filter(([k]) => k.startsWith('fragments:')).map(([, v]) => v);
  return new StationIndex(decodeColumns((k) => blobs.get(k), parts), { bboxScanMinStations });
}

describe('station index (domain)', () => {
  const rows = stations(3000, 42);
  const index = indexOf(rows);
  const none = index.compile({});

  it('round-trips columns through blobs; each fragment is the list resource object', () => {
    expect(index.size).toBe(3000);
    const i = index.find(rows[10].id);
    expect(i).toBe(10);
    const c = index.c;
    const frag = JSON.parse(fragmentOf(c, 10).toString('utf8')) as { id: string; attributes: { name: string } };
    expect(frag.id).toBe(rows[10].id);
    expect(frag.attributes.name).toBe('Station 10 «é»');
    expect(index.find(rows[10].id.toUpperCase())).toBe(10);
    expect(index.find('00000000-0000-5000-8000-ffffffffffff')).toBe(-1);
    expect(index.find('short')).toBe(-1);
  });

  it('rejects unsorted ids and non-UUID ids in the builder', () => {
    const b = new StationColumnsBuilder();
    b.add(rows[1]);
    expect(() => b.add(rows[0])).toThrow(/ascending/);
    expect(() => new StationColumnsBuilder().add({ ...rows[0], id: 'X' })).toThrow(/UUID/);
  });

  it('radius walk = brute force haversine (ties by id) and agrees with geokdbush on membership', () => {
    const r = mulberry32(7);
    for (let q = 0; q < 40; q++) {
      const lat = 48.7 + r() * 0.3;
      const lon = 2.2 + r() * 0.3;
      const radius = 200 + Math.floor(r() * 8000);
      const expected = rows
        .map((s, i) => ({ i, d: haversineMeters(lat, lon, s.latitude, s.longitude) }))
        .filter((x) => x.d <= radius)
        .sort((a, b) => a.d - b.d || a.i - b.i)
        .map((x) => x.i);
      const out: number[] = [];
      const n = aroundInto(index.kd, lon, lat, radius, Infinity, null, out);
      expect(out.slice(0, n)).toEqual(expected);
      const geo = around(index.kd, lon, lat, Infinity, radius / 1000 + 1e-9).filter(
        (i) => haversineMeters(lat, lon, rows[i].latitude, rows[i].longitude) <= radius,
      );
      expect([...geo].sort((a, b) => a - b)).toEqual([...expected].sort((a, b) => a - b));
      // Limit + predicate: the first k accepted in the same order.
      const odd: number[] = [];
      const k = aroundInto(index.kd, lon, lat, radius, 5, (i) => i % 2 === 1, odd);
      expect(odd.slice(0, k)).toEqual(expected.filter((i) => i % 2 === 1).slice(0, 5));
    }
  });

  it('bbox search = brute force, by index; paging and more_available at the edges', () => {
    const box = { kind: 'bbox' as const, latGte: 48.8, latLte: 48.9, lonGte: 2.3, lonLte: 2.4 };
    const expected = rows.map((s, i) => ({ s, i })).filter(({ s }) => s.latitude >= 48.8 && s.latitude <= 48.9 && s.longitude >= 2.3 && s.longitude <= 2.4).map((x) => x.i);
    const all = index.search(box, none, 0, 1000);
    expect(all.indices).toEqual(expected);
    expect(all.moreAvailable).toBe(false);
    const n = expected.length;
    expect(index.search(box, none, 0, n).moreAvailable).toBe(false);
    expect(index.search(box, none, 0, n - 1).moreAvailable).toBe(true);
    expect(index.search(box, none, n - 3, 10).indices).toEqual(expected.slice(n - 3));
    expect(index.search(box, none, n, 10)).toEqual({ indices: [], moreAvailable: false });
    expect(index.scanBbox(48.8, 48.9, 2.3, 2.4, none, 1000)).toEqual(expected);
    // Dense box, small page (id-order scan) and sparse box (tree range) give the same answers as brute force.
    for (const [a, b, c, d, size] of [
      [48.7, 49.0, 2.2, 2.5, 3],
      [48.7, 49.0, 2.2, 2.5, 50],
      [48.80, 48.81, 2.30, 2.31, 2],
      [rows[2999].latitude, rows[2999].latitude, rows[2999].longitude, rows[2999].longitude, 1],
    ] as const) {
      const treeOnly = indexOf(rows, Infinity);
      const want = rows.map((s, i) => ({ s, i })).filter(({ s }) => s.latitude >= a && s.latitude <= b && s.longitude >= c && s.longitude <= d).map((x) => x.i);
      const got = index.search({ kind: 'bbox', latGte: a, latLte: b, lonGte: c, lonLte: d }, none, 0, size);
      expect(got.indices).toEqual(want.slice(0, size));
      expect(got.moreAvailable).toBe(want.length > size);
      expect(treeOnly.search({ kind: 'bbox', latGte: a, latLte: b, lonGte: c, lonLte: d }, none, 0, size)).toEqual(got);
    }
  });

  it('refinements: same charge point group, operator, country, flags, facilities, parking', () => {
    const check = (input: Parameters<StationIndex['compile']>[0], pred: (s: StationRecord) => boolean): void => {
      const got = index.search({ kind: 'export' }, index.compile(input), 0, 5000).indices;
      expect(got).toEqual(rows.map((s, i) => ({ s, i })).filter(({ s }) => pred(s)).map((x) => x.i));
    };
    check({ plugs: ['ccs'], powerGte: 150 }, (s) => s.charge_points.some((c) => c.plug === 'ccs' && c.power >= 150));
    check({ plugs: ['type2'], powerGte: 50 }, () => false);
    check({ powerLte: 22 }, () => true);
    check({ countries: ['de'] }, (s) => s.country === 'DE');
    check({ operatorIds: ['10000000-0000-5000-8000-000000000001'] }, (s) => s.operator_id === '10000000-0000-5000-8000-000000000001');
    check({ evseOperators: ['fr*abc'] }, (s) => s.evse_operator === 'FR*ABC');
    check({ freeParking: true }, (s) => s.free_parking === true);
    check({ freeParking: false }, (s) => s.free_parking === false);
    check({ facilities: ['cafe', 'hotel'] }, (s) => s.facilities.includes('cafe'));
    check({ parkingTypes: ['parking_lot'] }, (s) => s.parking_type === 'parking_lot');
    const ops = index.c.dict.operators;
    const mask = new Uint8Array(ops.length);
    mask[ops.indexOf('10000000-0000-5000-8000-000000000002')] = 1;
    check({ supportedEmpOperators: mask }, (s) => s.operator_id === '10000000-0000-5000-8000-000000000002');
  });

  it('operator and EVSE operator searches use postings in id order', () => {
    const p = index.search({ kind: 'operator', operatorIds: ['10000000-0000-5000-8000-000000000003', '10000000-0000-5000-8000-000000000001'] }, none, 0, 5000);
    expect(p.indices).toEqual(rows.map((s, i) => ({ s, i })).filter(({ s }) => s.operator_id?.endsWith('1') || s.operator_id?.endsWith('3')).map((x) => x.i));
    const e = index.search({ kind: 'evse_operator', evseOperators: ['FR*abc'] }, none, 0, 5000);
    expect(e.indices).toEqual(rows.map((s, i) => ({ s, i })).filter(({ s }) => s.evse_operator !== null).map((x) => x.i));
    expect(index.search({ kind: 'operator', operatorIds: ['nope'] }, none, 0, 10).indices).toEqual([]);
  });
});

describe('language (D22)', () => {
  it('picks the highest q among supported primary subtags, else en', () => {
    expect(pickLanguage('')).toBe('en');
    expect(pickLanguage('de-AT')).toBe('de');
    expect(pickLanguage('it, nl;q=0.3, DA;q=0.5')).toBe('da');
    expect(pickLanguage('fr;q=0.5, de;q=0.5')).toBe('fr');
    expect(pickLanguage('de;q=0')).toBe('en');
    expect(pickLanguage('*')).toBe('en');
  });
  it('looks up chosen, en, alphabetically first', () => {
    expect(localized({ de: 'x', en: 'y' }, 'de')).toBe('x');
    expect(localized({ fr: 'f', en: 'y' }, 'de')).toBe('y');
    expect(localized({ nl: 'n', da: 'd' }, 'de')).toBe('d');
    expect(localized(null, 'de')).toBe(null);
  });
});
