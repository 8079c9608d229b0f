/**
 * The HTTP benchmark scenarios of the suite (bench/http.ts), on any snapshot:
 *
 * - GET /health;
 * - radius search 5 km and bbox search around Paris centre, page 400 (the stations scenarios),
 *   the radius page also as GeoJSON and CSV (D237, D238);
 * - station read (the busiest operator's largest station);
 * - charge prices at a busy station with ≥ `tariffs` candidates (the default catalog plus seeded
 *   generated tariffs of the station's operator), the same with 5 listed tariffs (include=filter),
 *   and at a typical station (default catalog);
 * - worst-case bulk preview (100 stations × 200 tariffs, all usable everywhere);
 * - tariff details by CPO (50 tariffs);
 * - a tariff PUT (each request writes the next version of one of a pool of tariffs of a bench EMP,
 *   one IMMEDIATE transaction with synchronous=FULL each).
 *
 * The fixture (operator, stations, vehicle) is picked from the snapshot, and the generated tariffs
 * are written through the API from a seeded RNG, so every run measures the same requests.
 * Scenarios the peer implements carry an equality check of the peer's answer.
 */
import { randomUUID } from 'node:crypto';
import { mulberry32 } from '../src/domain/random.js';
import { VehicleRegistry } from '../src/domain/vehicles/vehicle.js';
import { Snapshot } from '../src/storage/snapshot.js';
import { BENCH_KEY, type DynamicRequests, type Scenario, type Target } from './lib/harness.js';

/** Deterministic UUID-shaped id from a counter (version 4 layout). */
const uuidOf = (prefix: number, i: number): string => {
  const h = (prefix * 1_000_003 + i).toString(16).padStart(12, '0').slice(-12);
  return `b0000000-0000-4000-8000-${h}`;
};

const NATIVE_PLUGS = new Set(['ccs', 'type2', 'chademo', 'schuko', 'type1', 'type3', 'tesla_ccs', 'tesla_suc', 'ccs1', 'nacs']);

export interface RequestStation {
  latitude: number;
  longitude: number;
  country: string;
  charge_points: { plug: string; power: number }[];
}

export interface Fixture {
  operator: string;
  busy: RequestStation & { id: string };
  typical: RequestStation & { operator: string };
  /** Candidates for `typical` (stations of other operators); see chooseTypical. */
  typicals: (RequestStation & { operator: string })[];
  bulkStations: string[];
  vehicle: string;
}

/** The busiest operator, its station with the most charge point groups, and 100 of its stations. */
export function pickFixture(snapshotPath: string): Fixture {
  const snap = Snapshot.open(snapshotPath);
  try {
    const c = snap.stationColumns();
    const count = new Map<number, number>();
    for (let i = 0; i < c.n; i++) if (c.operator[i] >= 0) count.set(c.operator[i], (count.get(c.operator[i]) ?? 0) + 1);
    const [op] = [...count.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0];
    const idAt = (i: number): string => c.ids.toString('latin1', i * 36, (i + 1) * 36);
    const mine: number[] = [];
    for (let i = 0; i < c.n; i++) if (c.operator[i] === op) mine.push(i);
    let best = mine[0];
    for (const i of mine) if (c.cpStart[i + 1] - c.cpStart[i] > c.cpStart[best + 1] - c.cpStart[best]) best = i;
    const rec = (i: number) => snap.station(idAt(i))!;
    const cps = (i: number) =>
      rec(i)
        .charge_points.filter((p) => NATIVE_PLUGS.has(p.plug.toLowerCase()))
        .map((p) => ({ plug: p.plug, power: p.power }));
    const b = rec(best);
    const typicals: Fixture['typicals'] = [];
    const seenOps = new Set<number>();
    for (let i = 0; i < c.n && typicals.length < 40; i += 13) {
      if (c.operator[i] >= 0 && c.operator[i] !== op && !seenOps.has(c.operator[i]) && cps(i).length >= 2) {
        seenOps.add(c.operator[i]);
        const t = rec(i);
        typicals.push({ operator: t.operator_id!, latitude: t.latitude, longitude: t.longitude, country: t.country, charge_points: cps(i) });
      }
    }
    const reg = new VehicleRegistry(snap.vehicles(), snap.brands());
    const vehicle = snap
      .vehicles()
      .map((v) => reg.get(v.id)!)
      .find((v) => v.dc_ports.includes('ccs') && v.ac_max_power > 0 && v.dc_max_power !== null)!;
    return {
      operator: c.dict.operators[op],
      busy: { id: b.id, latitude: b.latitude, longitude: b.longitude, country: b.country, charge_points: cps(best) },
      typical: typicals[0] ?? { operator: b.operator_id!, latitude: b.latitude, longitude: b.longitude, country: b.country, charge_points: cps(best) },
      typicals,
      bulkStations: mine.slice(0, 100).map(idAt),
      vehicle: vehicle.id,
    };
  } finally {
    snap.close();
  }
}

/**
 * The typical station: the first candidate (an operator other than the busy one) where the
 * default catalog prices at least one tariff, so the peer comparison compares prices. False when
 * there is none (a snapshot without the default catalog, e.g. the synthetic ones).
 */
export async function chooseTypical(port: number, f: Fixture): Promise<boolean> {
  for (const t of f.typicals) {
    const r = await fetch(`http://127.0.0.1:${port}/v1/charge_prices`, {
      method: 'POST',
      headers: { 'Api-Key': BENCH_KEY, 'Content-Type': 'application/json' },
      body: JSON.stringify(chargeBody(f, t, t.operator)),
    });
    if (r.status !== 200) continue;
    const doc = (await r.json()) as PriceDoc;
    if (doc.data.some((d) => d.attributes.charge_point_prices.some((p) => p.price !== null))) {
      f.typical = t;
      return true;
    }
  }
  return false;
}

async function put(port: number, path: string, body: unknown): Promise<number> {
  const r = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: 'PUT',
    headers: { 'Api-Key': BENCH_KEY, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await r.text();
  if (r.status !== 201 && r.status !== 200) throw new Error(`PUT ${path}: ${r.status} ${text}`);
  return r.status;
}

/** What the generator makes for one tariff: its id and the attributes of its PUT body (no version). */
export interface GeneratedTariff {
  id: string;
  attributes: {
    name: string;
    currency: string;
    monthly_fee: number;
    is_direct_payment: boolean;
    prices: { restrictions: Record<string, unknown>[]; decomposition: Record<string, unknown>[] }[];
    tags: { kind: string; localized_text: Record<string, string> }[];
  };
}

/**
 * Seeded generator: `n` tariffs with mixed dimensions, windows, ranges and restrictions. The HTTP
 * suite writes them through the API for one operator; the charge price micro-benchmark compiles
 * the same tariffs directly.
 */
export function generatedTariffs(n: number): GeneratedTariff[] {
  const rnd = mulberry32(20260101);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const out: GeneratedTariff[] = [];
  for (let i = 0; i < n; i++) {
    const id = uuidOf(7, i);
    const comps = [];
    for (let k = 0; k < 1 + Math.floor(rnd() * 3); k++) {
      const segs = [];
      for (let j = 0; j < 1 + Math.floor(rnd() * 3); j++) {
        const dimension = pick(['kwh', 'kwh', 'minute', 'session'] as const);
        const s: Record<string, unknown> = { dimension, price: Math.round(rnd() * 80) / 100 };
        if (rnd() < 0.25) Object.assign(s, { time_of_day_start: pick([0, 360, 1320]), time_of_day_end: pick([360, 1320, 1440]) });
        if (dimension === 'minute' && rnd() < 0.5) s.range_gte = pick([30, 60, 120, 240]);
        if (dimension === 'minute' && rnd() < 0.3) s.billing_increment = pick([1, 5, 15]);
        segs.push(s);
      }
      const restrictions =
        rnd() < 0.6
          ? [{ allowance: 'allow', charge_point_energy_type: pick(['ac', 'dc']), ...(rnd() < 0.4 ? { charge_point_powers: [11, 150], charge_point_power_is_range: true } : {}) }]
          : [];
      comps.push({ restrictions, decomposition: segs });
    }
    out.push({
      id,
      attributes: {
        name: `Generated ${i}`,
        currency: pick(['EUR', 'EUR', 'EUR', 'CHF']),
        monthly_fee: pick([0, 0, 4.99, 9.99]),
        is_direct_payment: rnd() < 0.2,
        prices: comps,
        tags: rnd() < 0.2 ? [{ kind: 'info', localized_text: { en: 'Info', de: 'Hinweis' } }] : [],
      },
    });
  }
  return out;
}

/** Writes `n` generated tariffs (`generatedTariffs`) of the operator (direct, D66) through the API. */
/** `operator`: the EMP of every tariff, or of the i-th one. */
export async function generateTariffs(port: number, operator: string | ((i: number) => string), n: number): Promise<string[]> {
  const empOf = typeof operator === 'string' ? () => operator : operator;
  const bodies: [string, unknown][] = generatedTariffs(n).map((t, i) => [
    t.id,
    {
      data: {
        id: t.id,
        type: 'tariff',
        attributes: { ...t.attributes, version: 1 },
        relationships: { emp: { data: { type: 'company', id: empOf(i) } } },
      },
    },
  ]);
  for (let i = 0; i < bodies.length; i += 16) {
    await Promise.all(bodies.slice(i, i + 16).map(([id, b]) => put(port, `/v2/tariffs/${id}`, b)));
  }
  return bodies.map(([id]) => id);
}

/** A bench EMP (a company of its own, so its tariffs are candidates nowhere). */
export async function createBenchEmp(port: number): Promise<string> {
  const emp = randomUUID();
  await put(port, `/v1/companies/${emp}`, {
    data: {
      id: emp,
      type: 'company',
      attributes: { name: 'Bench EMP', version: 1, is_cpo: false, is_emp: true, external_source_mapping: {} },
      relationships: { supported_emps: { data: [] } },
    },
  });
  return emp;
}

export function tariffBody(id: string, emp: string, version: number): unknown {
  return {
    data: {
      id,
      type: 'tariff',
      attributes: {
        name: `Bench ${id.slice(0, 8)}`,
        version,
        currency: 'EUR',
        monthly_fee: 4.99,
        tags: [{ kind: 'info', localized_text: { en: 'Bench', de: 'Bench' } }],
        prices: [
          { restrictions: [{ allowance: 'allow', charge_point_energy_type: 'ac' }], decomposition: [{ dimension: 'kwh', price: 0.39 }, { dimension: 'minute', price: 0.1, range_gte: 240, billing_increment: 1 }] },
          { restrictions: [{ allowance: 'allow', charge_point_energy_type: 'dc' }], decomposition: [{ dimension: 'kwh', price: 0.59 }, { dimension: 'session', price: 0.5 }] },
          { restrictions: [], decomposition: [{ dimension: 'kwh', price: 0.29, time_of_day_start: 1320, time_of_day_end: 360 }] },
        ],
      },
      relationships: { emp: { data: { type: 'company', id: emp } } },
    },
  };
}

/** Tariff PUTs as updates: each request takes an idle tariff of the target's own pool and sends its next version. */
function tariffUpdates(emp: string): (target: Target) => DynamicRequests {
  return () => {
    const idle: { id: string; version: number }[] = [];
    return {
      setupRequest: (req, context) => {
        const t = idle.pop() ?? { id: randomUUID(), version: 0 };
        t.version += 1;
        context.tariff = t;
        return { ...req, method: 'PUT', path: `/v2/tariffs/${t.id}`, body: JSON.stringify(tariffBody(t.id, emp, t.version)) };
      },
      onResponse: (status, _body, context) => {
        const t = context.tariff as { id: string; version: number } | undefined;
        if (t === undefined) return;
        if (status !== 200 && status !== 201) t.version -= 1;
        idle.push(t);
        context.tariff = undefined;
      },
    };
  };
}

// ---- equality of the peer's answers -------------------------------------------------------------

const idsOf = (body: string): string[] => (JSON.parse(body) as { data: { id: string }[] }).data.map((d) => d.id);

export const sameIdsInOrder = {
  equal(full: string, peer: string): string | null {
    const a = idsOf(full);
    const b = idsOf(peer);
    if (a.length === 0) return 'the full stack answered no stations';
    if (a.length !== b.length) return `${a.length} stations vs ${b.length}`;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return `station ${i}: ${a[i]} vs ${b[i]}`;
    return null;
  },
};

export const sameStation = {
  equal(full: string, peer: string): string | null {
    const a = JSON.parse(full).data;
    const b = JSON.parse(peer).data;
    if (a.id !== b.id) return `id ${a.id} vs ${b.id}`;
    for (const k of ['name', 'latitude', 'longitude', 'country', 'address']) if (a.attributes[k] !== b.attributes[k]) return `${k}: ${a.attributes[k]} vs ${b.attributes[k]}`;
    return null;
  },
};

const status200 = { equal: (): string | null => null };

const close = (a: number, b: number): boolean => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

type PriceDoc = { data: { relationships: { tariff: { data: { id: string } } }; attributes: { charge_point_prices: { plug: string; power: number; price: number | null }[] } }[] };

/** Same priced tariffs, and every price of the full answer equal to the peer's (relative 1e-9). */
export const samePrices = {
  equal(full: string, peer: string): string | null {
    const priced = (doc: PriceDoc): Map<string, Map<string, number | null>> => {
      const m = new Map<string, Map<string, number | null>>();
      for (const d of doc.data) {
        const cps = new Map<string, number | null>();
        for (const p of d.attributes.charge_point_prices) cps.set(`${p.plug}/${p.power}`, p.price);
        if ([...cps.values()].some((p) => p !== null)) m.set(d.relationships.tariff.data.id, cps);
      }
      return m;
    };
    const a = priced(JSON.parse(full) as PriceDoc);
    const b = priced(JSON.parse(peer) as PriceDoc);
    if (a.size === 0) return 'the full stack priced no tariff';
    for (const id of a.keys()) if (!b.has(id)) return `tariff ${id} priced by the full stack only`;
    for (const id of b.keys()) if (!a.has(id)) return `tariff ${id} priced by the peer only`;
    let n = 0;
    for (const [id, cps] of a) {
      const other = b.get(id)!;
      for (const [cp, price] of cps) {
        const q = other.get(cp);
        if (q === undefined) return `tariff ${id} charge point ${cp} missing in the peer's answer`;
        if ((price === null) !== (q === null) || (price !== null && !close(price, q!))) return `tariff ${id} at ${cp}: ${price} vs ${q}`;
        n++;
      }
    }
    return n > 0 ? null : 'no price compared';
  },
};

// ---- the scenarios ------------------------------------------------------------------------------

export const PARIS = { latitude: 48.8566, longitude: 2.3522 };

export function radiusScenario(radiusM = 5000, size = 400): Scenario {
  return {
    name: `radius ${radiusM / 1000} km ${radiusM > 100_000 ? '(nearest stations) ' : ''}Paris centre, page ${size}`,
    method: 'GET',
    path: `/v1/charging_stations?filter[latitude]=${PARIS.latitude}&filter[longitude]=${PARIS.longitude}&filter[radius]=${radiusM}&page[size]=${size}`,
    peer: sameIdsInOrder,
  };
}

export function stationScenarios(): Scenario[] {
  return [
    { name: 'GET /health', method: 'GET', path: '/health', peer: status200 },
    radiusScenario(),
    radiusScenario(5000, 50),
    // D237, D238: the same page as GeoJSON and as CSV (against bare uWS serving those bytes).
    { ...radiusScenario(), name: 'radius 5 km Paris centre, page 400, as GeoJSON', headers: { Accept: 'application/geo+json' }, peer: undefined },
    { ...radiusScenario(), name: 'radius 5 km Paris centre, page 400, as CSV', headers: { Accept: 'text/csv' }, peer: undefined },
    {
      name: 'bbox Paris, page 400',
      method: 'GET',
      path: '/v1/charging_stations?filter[latitude.gte]=48.81&filter[latitude.lte]=48.91&filter[longitude.gte]=2.25&filter[longitude.lte]=2.42&page[size]=400',
      peer: sameIdsInOrder,
    },
  ];
}

export function chargeBody(f: Fixture, s: RequestStation, network: string): unknown {
  return {
    data: {
      type: 'charge_price_request',
      attributes: {
        data_adapter: 'native',
        station: { longitude: s.longitude, latitude: s.latitude, country: s.country, network, charge_points: s.charge_points },
        options: { battery_range: [20, 80] },
      },
      relationships: { vehicle: { data: { type: 'car', id: f.vehicle } } },
    },
  };
}

export function bulkBody(f: Fixture, stations: readonly string[], tariffs: readonly string[]): unknown {
  return {
    data: {
      type: 'bulk_price_preview_request',
      attributes: { battery_range: [10, 80], include_direct_payment: true },
      relationships: {
        charging_stations: { data: stations.map((id) => ({ type: 'charging_station', id })) },
        tariffs: { data: tariffs.map((id) => ({ type: 'tariff', id })) },
        vehicle: { data: { type: 'car', id: f.vehicle } },
      },
    },
  };
}

/** Scenarios of the price endpoints and the station read; `n` = generated tariffs (≥ 250). */
export function priceScenarios(f: Fixture, tariffs: readonly string[], n: number, latencyConnections: number): Scenario[] {
  return [
    { name: 'station read', method: 'GET', path: `/v1/charging_stations/${f.busy.id}`, peer: sameStation },
    {
      name: `charge prices, busy station (${f.busy.charge_points.length} charge points, ≥ ${n} candidates)`,
      method: 'POST',
      path: '/v1/charge_prices',
      body: chargeBody(f, f.busy, f.operator),
      connections: latencyConnections,
      peer: samePrices,
    },
    {
      name: `charge prices, busy station, 5 listed tariffs (include=filter) among ≥ ${n} candidates`,
      method: 'POST',
      path: '/v1/charge_prices',
      body: (() => {
        const b = chargeBody(f, f.busy, f.operator) as { data: { relationships: Record<string, unknown> } };
        const at = n >= 505 ? 500 : 10;
        b.data.relationships.tariffs = { data: tariffs.slice(at, at + 5).map((id) => ({ type: 'tariff', id })), meta: { include: 'filter' } };
        return b;
      })(),
      connections: latencyConnections,
      peer: samePrices,
    },
    {
      name: 'charge prices, typical station (default catalog)',
      method: 'POST',
      path: '/v1/charge_prices',
      body: chargeBody(f, f.typical, f.typical.operator),
      connections: latencyConnections,
      peer: samePrices,
    },
    {
      name: `bulk worst case (${f.bulkStations.length} stations × 200 tariffs)`,
      method: 'POST',
      path: '/v1/charge_prices/bulk?page[prices.size]=100',
      body: bulkBody(f, f.bulkStations, tariffs.slice(0, 200)),
      connections: latencyConnections,
    },
    {
      name: 'tariff details by CPO (50 tariffs)',
      method: 'POST',
      path: '/v1/tariff_details',
      body: {
        data: {
          attributes: { station: { country: f.busy.country, operator: { id: f.operator, type: 'company' } } },
          relationships: { tariffs: { data: tariffs.slice(200, 250).map((id) => ({ type: 'tariff', id })) } },
        },
      },
      connections: latencyConnections,
    },
  ];
}

/** The tariff PUT scenario (last: it writes). */
export function putScenario(emp: string, connections: number): Scenario {
  const id = randomUUID();
  return {
    name: 'tariff PUT (next version, one transaction, fsync)',
    method: 'PUT',
    path: `/v2/tariffs/${id}`,
    body: tariffBody(id, emp, 1),
    expect: 201,
    barePath: '/v2/tariffs/:id',
    connections,
    dynamic: tariffUpdates(emp),
  };
}
