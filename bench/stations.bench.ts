/**
 * Station search micro-benchmark (tinybench): radius 5 km and bbox around Paris centre, page size
 * 400, on the default snapshot and (when present) the synthetic 1 M snapshot. Each index query runs
 * beside a naive full scan answering the same query in the same run, and the page body built from
 * cached fragments beside JSON.stringify of the same page; the page as GeoJSON (D237) beside its
 * parse-and-map twin and beside the JSON page, and as CSV (D238) beside its twin and the JSON page.
 *
 *   npm run bench:stations [-- --quick | --check] [--snapshot <file>] [--synthetic <file>]
 *
 * --snapshot: instead of snapshots/default.sqlite (the test suite passes its sample snapshot).
 *
 * Prints a table and writes bench/out/stations.json.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Bench } from 'tinybench';
import { CompanyRegistry } from '../src/domain/companies/registry.js';
import { fragmentOf } from '../src/domain/stations/columns.js';
import { StationIndex } from '../src/domain/stations/index.js';
import { haversineMeters } from '../src/domain/stations/geo.js';
import { StationPageWriter } from '../src/api/station-page.js';
import { csvOfFeatures, FeatureWriter, featuresFromPage } from '../src/api/station-features.js';
import { CsvWriter } from '../src/api/stations/station-csv.js';
import { Snapshot } from '../src/storage/snapshot.js';

const ROOT = (() => {
  let d = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(d, 'package.json'))) d = path.dirname(d);
  return d;
})();
/** Where the JSON output goes: bench/out/, or BENCH_OUT_DIR (the test suite's temporary directory). */
const OUT_DIR = process.env.BENCH_OUT_DIR ?? path.join(ROOT, 'bench/out');
/** `--check`: the checks and a token measurement (what the test suite runs). */
const CHECK = process.argv.includes('--check');

const PARIS = { lat: 48.8566, lon: 2.3522 };
const BOX = { latGte: 48.81, latLte: 48.91, lonGte: 2.25, lonLte: 2.42 };
const PAGE = 400;

interface Row {
  snapshot: string;
  stations: number;
  case: string;
  subject: string;
  subjectUs: number;
  baseline: string;
  baselineUs: number;
  speedup: number;
  matches: number;
}

function args(): { quick: boolean; check: boolean; snapshot: string; synthetic: string } {
  const a = process.argv.slice(2);
  let quick = false;
  let check = false;
  let snapshot = path.join(ROOT, 'snapshots/default.sqlite');
  let synthetic = path.join(ROOT, 'snapshots/synthetic-1000000.sqlite');
  for (let i = 0; i < a.length; i++) {
    if (a[i] === '--quick') quick = true;
    else if (a[i] === '--check') quick = check = true;
    else if (a[i] === '--snapshot') snapshot = path.resolve(a[++i]);
    else if (a[i] === '--synthetic') synthetic = path.resolve(a[++i]);
    else throw new Error(`unknown argument ${a[i]}`);
  }
  return { quick, check, snapshot, synthetic };
}

async function median(name: string, fn: () => unknown, quick: boolean): Promise<number> {
  const b = new Bench({ time: CHECK ? 5 : quick ? 200 : 1500, warmup: !CHECK, warmupTime: quick ? 50 : 300, ...(CHECK ? { iterations: 2 } : {}) });
  b.add(name, fn);
  await b.run();
  const t = b.tasks[0].result as unknown as { latency?: { p50?: number; mean?: number } };
  return (t.latency?.p50 ?? t.latency?.mean ?? NaN) * 1000;
}

async function benchSnapshot(file: string, label: string, quick: boolean): Promise<Row[]> {
  const snap = Snapshot.open(file);
  const t0 = performance.now();
  const index = new StationIndex(snap.stationColumns());
  const loadMs = performance.now() - t0;
  const companies = new CompanyRegistry(
    snap.operators().map((o) => ({
      id: o.id, name: o.name, url: null, is_cpo: true, is_emp: false, version: 1, created_at: 0, updated_at: 0,
      external_source_mapping: { ext_a_ids: null, ext_b_names: null, ext_b_charge_card_ids: null, sheet_names: null, ext_c_operator_ids: null, evse_operator_ids: o.evse_operator_ids },
      supported_emps: [], cpo_group: null, emp_group: null,
    })),
  );
  snap.close();
  console.log(`${label}: ${index.size} stations, index loaded in ${loadMs.toFixed(0)} ms`);
  const none = index.compile({});
  const c = index.c;
  // Naive baselines: scan every station with exact checks, then sort and cut the page.
  const kd = index.kd;
  const lonOf = new Float64Array(index.size);
  const latOf = new Float64Array(index.size);
  for (let j = 0; j < kd.ids.length; j++) {
    lonOf[kd.ids[j]] = kd.coords[2 * j];
    latOf[kd.ids[j]] = kd.coords[2 * j + 1];
  }
  const naiveRadius = (): number[] => {
    const hits: Array<[number, number]> = [];
    for (let i = 0; i < index.size; i++) {
      const d = haversineMeters(PARIS.lat, PARIS.lon, latOf[i], lonOf[i]);
      if (d <= 5000) hits.push([d, i]);
    }
    hits.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    return hits.slice(0, PAGE).map((h) => h[1]);
  };
  const radius = () => index.search({ kind: 'radius', latitude: PARIS.lat, longitude: PARIS.lon, radius: 5000 }, none, 0, PAGE);
  const bbox = () => index.search({ kind: 'bbox', ...BOX }, none, 0, PAGE);
  const naiveBbox = () => index.scanBbox(BOX.latGte, BOX.latLte, BOX.lonGte, BOX.lonLte, none, PAGE);

  // Same answers, or the comparison is meaningless.
  const r1 = radius().indices;
  const r2 = naiveRadius();
  if (JSON.stringify(r1) !== JSON.stringify(r2)) throw new Error(`${label}: radius index and scan disagree`);
  const b1 = bbox().indices;
  const b2 = naiveBbox();
  if (JSON.stringify(b1) !== JSON.stringify(b2)) throw new Error(`${label}: bbox index and scan disagree`);

  const writer = new StationPageWriter(index, companies, [], 'bench');
  const pageInput = { indices: r1, moreAvailable: true, availability: null, companyFields: undefined, supportedEmpsFilter: undefined };
  // Baseline page: the same documents as objects, serialized per request.
  const objects = r1.map((i) => JSON.parse(fragmentOf(c, i).toString('utf8')) as unknown);
  const stringifyPage = () =>
    JSON.stringify({
      data: objects,
      included: [...new Set(r1.map((i) => index.operatorOf(i)))].filter((x) => x !== null).map((id) => ({ id, type: 'company', attributes: { name: companies.get(id!)!.name } })),
      meta: { more_available: true, disabled_ext_b_countries: [] },
    });
  const bytes = writer.page(pageInput).length;

  const rows: Row[] = [];
  const add = async (cse: string, subject: string, s: () => unknown, baseline: string, b: () => unknown, matches: number): Promise<void> => {
    const su = await median(subject, s, quick);
    const bu = await median(baseline, b, quick);
    rows.push({ snapshot: label, stations: index.size, case: cse, subject, subjectUs: su, baseline, baselineUs: bu, speedup: bu / su, matches });
  };
  await add('radius 5 km, page 400', 'index (best-first kdbush walk)', radius, 'naive scan + sort', naiveRadius, r1.length);
  await add('bbox Paris, page 400', 'index (kdbush range, or id-order scan when dense)', bbox, 'naive scan + sort', naiveBbox, b1.length);
  await add(`page body (${bytes} B)`, 'joined fragments', () => writer.page(pageInput), 'JSON.stringify', stringifyPage, r1.length);
  // D237, D238: the same page as GeoJSON and CSV, beside the twin (parse the JSON page, map) and the JSON page itself.
  const features = new FeatureWriter(index, companies);
  const featureInput = { indices: r1, availability: null, members: ',"meta":{"more_available":true}' };
  const twin = () => JSON.stringify(featuresFromPage(JSON.parse(writer.page(pageInput).toString('utf8')), { meta: { more_available: true } }));
  if (features.collection(featureInput).toString('utf8') !== twin()) throw new Error(`${label}: GeoJSON writer and its twin disagree`);
  const geoBytes = features.collection(featureInput).length;
  await add(`GeoJSON body (${geoBytes} B)`, 'features from fragments', () => features.collection(featureInput), 'parse JSON page + map + stringify', twin, r1.length);
  await add(`GeoJSON body (${geoBytes} B)`, 'features from fragments', () => features.collection(featureInput), 'the JSON page (joined fragments)', () => writer.page(pageInput), r1.length);
  const csv = new CsvWriter();
  const csvTwin = () => csvOfFeatures(features.collection(featureInput));
  if (csv.write(features.collection(featureInput)).toString('utf8') !== csvTwin()) throw new Error(`${label}: CSV writer and its twin disagree`);
  const csvBytes = csv.write(features.collection(featureInput)).length;
  await add(`CSV body (${csvBytes} B)`, 'features → CSV bytes', () => csv.write(features.collection(featureInput)), 'features parsed → csvRow', csvTwin, r1.length);
  await add(`CSV body (${csvBytes} B)`, 'features → CSV bytes', () => csv.write(features.collection(featureInput)), 'the JSON page (joined fragments)', () => writer.page(pageInput), r1.length);
  return rows;
}

async function main(): Promise<void> {
  const o = args();
  const rows: Row[] = [];
  rows.push(...(await benchSnapshot(o.snapshot, 'default', o.quick)));
  if (fs.existsSync(o.synthetic)) rows.push(...(await benchSnapshot(o.synthetic, 'synthetic', o.quick)));
  else console.log(`(no ${o.synthetic}; run \`npm run snapshot:synthetic -- --stations 1000000\` for the 1 M rows)`);
  const lines = [
    '| snapshot | stations | case | subject | median µs | baseline | median µs | baseline / subject |',
    '| --- | ---: | --- | --- | ---: | --- | ---: | ---: |',
    ...rows.map(
      (r) =>
        `| ${r.snapshot} | ${r.stations} | ${r.case} | ${r.subject} | ${r.subjectUs.toFixed(1)} | ${r.baseline} | ${r.baselineUs.toFixed(1)} | ${r.speedup.toFixed(1)}× |`,
    ),
  ];
  console.log(lines.join('\n'));
  fs.mkdirSync(OUT_DIR, { recursive: true });
  fs.writeFileSync(path.join(OUT_DIR, 'stations.json'), JSON.stringify({ date: new Date().toISOString(), node: process.version, rows }, null, 2));
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
