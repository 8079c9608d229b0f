/**
 * `npm run bench:sqlite-driver`: the SQLite drivers this runtime can use (src/storage/sqlite-driver.ts,
 * D281) side by side in one process, in alternating rounds, on what the service does with SQLite:
 *
 * - snapshot load: open the default snapshot and read its station columns (the start-up load);
 * - station reads: `Snapshot.station(id)` (one row, decoded) and `stationIdByEvse` (index lookup);
 * - station scan: every station row in id order (`Snapshot.stations()`, what an import reads back);
 * - snapshot write: the default snapshot's content written again (`writeSnapshot`, the importer);
 * - live-store writes: one durable transaction each (WAL, synchronous=FULL: fsync-bound) and
 *   live-store reads (one `SELECT` in a read transaction).
 *
 * Figures: medians over the rounds, and each driver's ratio to the first one listed.
 *
 *   npm run bench:sqlite-driver [-- --rounds <n>] [--check]
 *
 * --check: one short round per driver; every driver must read back the same stations.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { availableDrivers, driverVersion, useDriver, type DriverName } from '../src/storage/sqlite-driver.js';
import { Snapshot, writeSnapshot, type SnapshotContent } from '../src/storage/snapshot.js';
import { SqliteStore } from '../src/storage/sqlite-store.js';
import { setSetting, getSetting } from '../src/storage/settings.js';
import { loadLine, median, ROOT } from './lib/harness.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, check: { type: 'boolean', default: false } } });
const check = values.check;
const rounds = check ? 1 : Number(values.rounds);
const snapshotFile = process.env.BENCH_SNAPSHOT ?? path.join(ROOT, 'snapshots/default.sqlite');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cps-sqlite-driver-'));

type Figures = Record<string, number>;

function time(fn: () => void): number {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

async function timeAsync(fn: () => Promise<void>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/** The default snapshot's whole content, read once (the write case writes it again). */
function contentOf(snap: Snapshot): SnapshotContent {
  const m = snap.meta;
  return {
    meta: { builtAt: m.builtAt, ratesDate: m.ratesDate, attribution: m.attribution, statisticsYear: m.statisticsYear, statisticsMonth: m.statisticsMonth },
    operators: snap.operators(),
    stations: [...snap.stations()],
    brands: snap.brands(),
    vehicles: snap.vehicles(),
    rates: snap.rates(),
    countryStatisticsHistory: snap.countryStatisticsHistory(),
  };
}

async function round(driver: DriverName, ids: string[], evses: string[], content: SnapshotContent, n: number): Promise<{ f: Figures; digest: string }> {
  useDriver(driver);
  const f: Figures = {};
  f['snapshot load (ms)'] = time(() => {
    const s = Snapshot.open(snapshotFile);
    s.stationColumns();
    s.close();
  });
  const snap = Snapshot.open(snapshotFile);
  let digest = '';
  f['station read (µs)'] = (time(() => {
    for (const id of ids) digest = snap.station(id)!.name;
  }) * 1000) / ids.length;
  f['EVSE lookup (µs)'] = (time(() => {
    for (const e of evses) if (snap.stationIdByEvse(e) === null) throw new Error(`EVSE ${e} not found`);
  }) * 1000) / Math.max(1, evses.length);
  let count = 0;
  f['station scan (ms)'] = time(() => {
    for (const s of snap.stations()) count += s.charge_points.length;
  });
  snap.close();
  digest += `:${count}`;
  const out = path.join(tmp, `write-${driver.replace(':', '-')}.sqlite`);
  f['snapshot write (ms)'] = time(() => {
    digest += `:${writeSnapshot(out, content)}`;
  });
  fs.rmSync(out, { force: true });
  const dir = fs.mkdtempSync(path.join(tmp, 'live-'));
  const store = SqliteStore.open(dir);
  const writes = check ? 5 : n;
  f['live write (ms)'] = (await timeAsync(async () => {
    for (let i = 0; i < writes; i++) await store.tx((s) => setSetting(s, `bench-${i % 16}`, String(i)));
  })) / writes;
  f['live read (µs)'] = ((await timeAsync(async () => {
    for (let i = 0; i < writes * 20; i++) await store.read((s) => getSetting(s, `bench-${i % 16}`));
  })) * 1000) / (writes * 20);
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
  return { f, digest };
}

async function main(): Promise<void> {
  const drivers = availableDrivers();
  console.log(`Node ${process.versions.node}; drivers: ${drivers.map((d) => `${d} (${driverVersion(d)})`).join(', ')}; ${loadLine()}`);
  useDriver(drivers[0]);
  const snap = Snapshot.open(snapshotFile);
  const content = contentOf(snap);
  const all = [...(content.stations as Iterable<{ id: string; evse_ids: string[] }>)];
  const step = Math.max(1, Math.floor(all.length / 2000));
  const ids = all.filter((_, i) => i % step === 0).map((s) => s.id);
  const evses = all.flatMap((s) => s.evse_ids.slice(0, 1)).slice(0, 2000);
  snap.close();
  const per = new Map<DriverName, Figures[]>(drivers.map((d) => [d, []]));
  const digests = new Map<DriverName, string>();
  for (let r = 0; r < rounds; r++) {
    for (const d of r % 2 === 0 ? drivers : [...drivers].reverse()) {
      const { f, digest } = await round(d, ids, evses, content, 200);
      per.get(d)!.push(f);
      digests.set(d, digest);
    }
  }
  fs.rmSync(tmp, { recursive: true, force: true });
  if (new Set(digests.values()).size > 1) throw new Error(`the drivers read different data: ${[...digests].map(([d, g]) => `${d} ${g}`).join('; ')}`);
  const cases = Object.keys(per.get(drivers[0])![0]);
  const base = drivers[0];
  console.log(`\n| case | ${drivers.join(' | ')} | ${drivers.slice(1).map((d) => `${d} / ${base}`).join(' | ')} |`);
  console.log(`|---|${drivers.map(() => '---:').join('|')}|${drivers.slice(1).map(() => '---:').join('|')}|`);
  const figures: Record<string, Record<string, number>> = {};
  for (const c of cases) {
    const med = drivers.map((d) => median(per.get(d)!.map((f) => f[c])));
    figures[c] = Object.fromEntries(drivers.map((d, i) => [d, med[i]]));
    console.log(`| ${c} | ${med.map((m) => m.toFixed(m < 10 ? 2 : 0)).join(' | ')} | ${med.slice(1).map((m) => `${(m / med[0]).toFixed(2)}×`).join(' | ')} |`);
  }
  console.log(`\n${rounds} rounds; ${loadLine()}`);
  if (process.env.BENCH_JSON) fs.writeFileSync(process.env.BENCH_JSON, JSON.stringify({ node: process.versions.node, drivers: drivers.map(driverVersion), figures }, null, 1));
  if (check) console.log(`check passed: ${drivers.join(', ')} read the same stations and wrote the same snapshot version`);
}

await main();
