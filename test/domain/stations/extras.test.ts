import { describe, expect, it } from 'vitest';
import { StationColumnsBuilder, decodeColumns, encodeColumns } from '../../../src/domain/stations/columns.js';
import type { StationRecord } from '../../../src/domain/stations/model.js';

const station = (n: number, extra: Partial<StationRecord>): StationRecord => ({
  id: `00000000-0000-5000-8000-${n.toString(16).padStart(12, '0')}`,
  name: `S${n}`,
  latitude: 48.8,
  longitude: 2.3,
  country: 'FR',
  address: 'A',
  operator_id: null,
  evse_operator: null,
  evse_ids: [],
  free_parking: null,
  free_charging: null,
  parking_type: null,
  facilities: [],
  charge_points: [{ plug: 'Type2', energy_type: 'ac', power: 22, count: 1, evse_ids: [] }],
  source_label: null,
  source_id: null,
  version: 1,
  created_at: 0,
  updated_at: 0,
  parking_description: null,
  facility_details: [],
  branding: null,
  ...extra,
});

describe('station columns: extras flag (single-read data not held in memory, D30)', () => {
  const rows = [
    station(1, {}),
    station(2, { parking_description: { en: 'Level -1' } }),
    station(3, { facility_details: [{ facility_types: ['cafe'], name: null, longitude: 2.3, latitude: 48.8 }] }),
    station(4, { branding: { map_pin_icon_url: 'https://x/p.png' } }),
  ];
  const build = (): ReturnType<StationColumnsBuilder['finish']> => {
    const b = new StationColumnsBuilder();
    for (const s of rows) b.add(s);
    return b.finish();
  };

  it('marks stations with a parking description or facility details and round-trips through blobs', () => {
    const blobs = new Map(encodeColumns(build()));
    const parts = [...blobs].filter(([k]) => k.startsWith('fragments:')).map(([, v]) => v);
    const c = decodeColumns((k) => blobs.get(k), parts);
    expect([...c.extras!]).toEqual([0, 1, 1, 0]);
  });

  it('is absent when decoding blobs written without it (older snapshots)', () => {
    const blobs = new Map(encodeColumns(build()));
    blobs.delete('extras');
    const parts = [...blobs].filter(([k]) => k.startsWith('fragments:')).map(([, v]) => v);
    expect(decodeColumns((k) => blobs.get(k), parts).extras).toBeUndefined();
  });
});
