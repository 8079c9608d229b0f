/**
 * Stages the compact OCPI tariff sources of the default catalog from the shared data folder
 * (`data/tariffs/ocpi-fr`, see its README) into snapshots/sources/tariffs/ocpi-fr/. Run once by a
 * maintainer when the data changes; the snapshot build reads only the staged files.
 *
 *   npx tsx snapshots/tariffs-stage.ts <path to data/tariffs/ocpi-fr>
 *
 * Staged: the OCPI objects (unchanged) of the CPOs that match operators of our station data, the
 * station ↔ tariff links reduced to what the catalog uses, the choice of each operator's CPO-level
 * ad-hoc tariff (cpo-tariffs.json), and the MIT license of the source repository.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import zlib from 'node:zlib';

interface Link {
  id: string;
  operator: string;
  tariffs: Array<{ file: string; country_code: string; party_id: string; id: string; linked_charge_points: number }>;
}

interface IndexFile {
  file: string;
  operators: Array<{ operator_id: string; name: string; fr_station_count: number; evidence: Array<{ method: string; evse_operator_id?: string }> }>;
}

/** Which OCPI party prices which operator (from the index's id evidence, or the only party of a file). */
const PARTY_HINT: Record<string, Record<string, string>> = {
  'easycharge.json': {
    '5a6059db-d927-5a9c-a9ca-02e565c0526d': '', // Izivia: priced by its own izivia.json instead
    'dbd8e91e-1e3f-5691-8327-bc82b3f999c0': 'EBN',
    'e4cb4b05-8039-56b8-a561-e99ba60afe0a': 'ECH',
    '046f8a7e-d272-51d6-a4b2-4f22d14f2fb3': 'ECH',
  },
  'citeos.json': { '21fb555b-22c5-55c1-8401-1c8fa09c9bb0': 'S84' },
  'izivia.json': { '5a6059db-d927-5a9c-a9ca-02e565c0526d': 'E04' },
};

function main(src: string): void {
  const out = path.resolve('snapshots/sources/tariffs/ocpi-fr');
  fs.mkdirSync(out, { recursive: true });
  const index = JSON.parse(fs.readFileSync(path.join(src, 'index.json'), 'utf8')) as { files: IndexFile[] };
  const links = fs
    .readFileSync(path.join(src, 'station-tariffs.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as Link);
  const files: Record<string, unknown[]> = {};
  const choices: Array<Record<string, unknown>> = [];
  for (const f of index.files) {
    if (f.operators.length === 0) continue;
    const objects = JSON.parse(fs.readFileSync(path.join(src, f.file), 'utf8')) as Array<{ id: string; party_id?: string }>;
    files[f.file] = objects;
    for (const op of f.operators) {
      const hint = PARTY_HINT[f.file]?.[op.operator_id];
      if (hint === '') continue;
      // Most linked tariff among the operator's stations, else the first of its party, else the first.
      const counts = new Map<string, number>();
      for (const l of links) {
        if (l.operator !== op.operator_id) continue;
        for (const t of l.tariffs) if (t.file === f.file) counts.set(`${t.party_id}|${t.id}`, (counts.get(`${t.party_id}|${t.id}`) ?? 0) + t.linked_charge_points);
      }
      let chosen: { party: string | null; id: string; reason: string };
      if (counts.size > 0) {
        const [k, n] = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
        const [party, id] = k.split('|');
        chosen = { party, id, reason: `most linked tariff at the operator's stations (${n} charge points)` };
      } else {
        const o = objects.find((x) => hint === undefined || x.party_id === hint) ?? objects[0];
        chosen = { party: o.party_id ?? null, id: o.id, reason: hint ? `first tariff of party ${hint}` : 'first tariff of the file' };
      }
      choices.push({ operator_id: op.operator_id, operator_name: op.name, fr_station_count: op.fr_station_count, file: f.file, party_id: chosen.party, tariff_id: chosen.id, reason: chosen.reason });
    }
  }
  const used = new Set(Object.keys(files));
  const compactLinks = links
    .map((l) => ({
      id: l.id,
      operator: l.operator,
      tariffs: l.tariffs.filter((t) => used.has(t.file)).map((t) => ({ file: t.file, party_id: t.party_id, id: t.id, linked_charge_points: t.linked_charge_points })),
    }))
    .filter((l) => l.tariffs.length > 0)
    .sort((a, b) => (a.id < b.id ? -1 : 1));
  fs.writeFileSync(path.join(out, 'tariffs.json.gz'), zlib.gzipSync(JSON.stringify(files), { level: 9 }));
  fs.writeFileSync(path.join(out, 'station-tariffs.jsonl.gz'), zlib.gzipSync(compactLinks.map((l) => JSON.stringify(l)).join('\n') + '\n', { level: 9 }));
  fs.writeFileSync(path.join(out, 'cpo-tariffs.json'), JSON.stringify(choices, null, 1) + '\n');
  fs.copyFileSync(path.join(src, 'LICENSE'), path.join(out, 'LICENSE'));
  console.log(`staged ${Object.keys(files).length} files, ${compactLinks.length} station links, ${choices.length} operator tariffs`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main(process.argv[2] ?? '../shared/data/tariffs/ocpi-fr');
}
