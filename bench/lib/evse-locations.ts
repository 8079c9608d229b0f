/**
 * Station data with EVSE ids for the availability benches: a generated OCPI Locations file (2,000
 * Paris locations × 4 EVSEs `FR*BNC*E<i>X<k>`, 2 connectors each, deterministic) imported with
 * the station importer.
 */
import fs from 'node:fs';
import path from 'node:path';
import { runImport } from '../../src/import/run.js';
import { mulberry32 } from '../../src/domain/random.js';

export const LOCATIONS = 2000;
export const EVSES = 4;

export function locations(): unknown[] {
  const rnd = mulberry32(20261124);
  const out: unknown[] = [];
  for (let i = 0; i < LOCATIONS; i++) {
    const evses = Array.from({ length: EVSES }, (_, k) => ({
      uid: `L${i}-${k}`,
      evse_id: `FR*BNC*E${i}X${k}`,
      status: 'AVAILABLE',
      connectors: [
        { id: '1', standard: 'IEC_62196_T2', format: 'SOCKET', power_type: 'AC_3_PHASE', max_voltage: 230, max_amperage: 32, max_electric_power: 22000 },
        { id: '2', standard: 'IEC_62196_T2_COMBO', format: 'CABLE', power_type: 'DC', max_voltage: 800, max_amperage: 200, max_electric_power: 150000 },
      ],
    }));
    out.push({
      country_code: 'FR', party_id: 'BNC', id: `LOC${i}`, publish: true, name: `Bench ${i}`, address: `${i} rue du Banc`,
      city: 'Paris', postal_code: '75001', country: 'FRA',
      coordinates: { latitude: (48.80 + rnd() * 0.12).toFixed(6), longitude: (2.25 + rnd() * 0.2).toFixed(6) },
      evses, last_updated: '2026-11-01T00:00:00Z',
    });
  }
  return out;
}

/** Writes the locations and their snapshot into `dir`; the snapshot's path. */
export async function evseSnapshot(dir: string): Promise<string> {
  const src = path.join(dir, 'locations.json');
  fs.writeFileSync(src, JSON.stringify(locations()));
  const snapshot = path.join(dir, 'snapshot.sqlite');
  await runImport({ inputs: [{ format: 'ocpi', file: src }], out: snapshot });
  return snapshot;
}
