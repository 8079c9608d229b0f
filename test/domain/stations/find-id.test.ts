import { describe, expect, it } from 'vitest';
import { StationColumnsBuilder, decodeColumns, encodeColumns } from '../../../src/domain/stations/columns.js';
import { StationIndex } from '../../../src/domain/stations/index.js';
import type { StationRecord } from '../../../src/domain/stations/model.js';
import { mulberry32 } from '../../../src/domain/random.js';
import { StationView, shareStationColumns } from '../../../src/pool/stations.js';

const r = mulberry32(7);
const hexId = (): string => {
  const h = (n: number): string => Array.from({ length: n }, () => Math.floor(r() * 16).toString(16)).join('');
  return `${h(8)}-${h(4)}-${h(4)}-${h(4)}-${h(12)}`;
};

function index(n: number): { index: StationIndex; ids: string[] } {
  const ids = [...new Set(Array.from({ length: n }, hexId))].sort();
  const b = new StationColumnsBuilder();
  for (const id of ids) {
    const s: StationRecord = {
      id, name: 'S', latitude: 48.8, longitude: 2.3, country: 'FR', address: 'A', operator_id: null, evse_operator: null,
      evse_ids: [], free_parking: null, free_charging: null, parking_type: null, facilities: [], charge_points: [],
      source_label: null, source_id: null, version: 1, created_at: 0, updated_at: 0, parking_description: null,
      facility_details: [], branding: null,
    };
    b.add(s);
  }
  const blobs = new Map(encodeColumns(b.finish()));
  const parts = [...blobs].filter(([k]) => k.startsWith('fragments:')).map(([, v]) => v);
  return { index: new StationIndex(decodeColumns((k) => blobs.get(k), parts)), ids };
}

describe('StationIndex.find (findStationId: the allocation-free id lookup)', () => {
  const { index: ix, ids } = index(3000);
  // The pricing workers' view of the same columns uses the same lookup.
  const view = new StationView(shareStationColumns(ix.c));

  it('finds every id, in any letter case', () => {
    ids.forEach((id, i) => {
      expect(ix.find(id)).toBe(i);
      expect(ix.find(id.toUpperCase())).toBe(i);
      expect(ix.find(id.toUpperCase())).toBe(i);
      expect(view.find(id.toUpperCase())).toBe(i);
    });
  });

  it('misses like find(): unknown ids between, before and after the stored ones, wrong lengths', () => {
    const misses = [
      '00000000-0000-0000-0000-000000000000',
      'ffffffff-ffff-ffff-ffff-ffffffffffff',
      ...ids.slice(0, 200).map((id) => id.slice(0, 35) + (id[35] === '0' ? '1' : '0')).filter((m) => !ids.includes(m)),
      ids[5].slice(0, 35),
      ids[5] + 'a',
      '',
      ids[5].slice(0, 35) + 'g',
    ];
    for (const m of misses) {
      expect(ix.find(m)).toBe(-1);
      expect(view.find(m)).toBe(-1);
    }
  });

  it('does not fold non-ASCII characters onto ASCII id bytes', () => {
    // U+0161 would truncate to 0x61 ('a') in a latin1 key buffer.
    const withA = ids.find((id) => id.includes('a'))!;
    expect(ix.find(withA.replace('a', 'š'))).toBe(-1);
    expect(ix.find(withA.replace('a', 'A'))).toBe(ids.indexOf(withA));
  });
});
