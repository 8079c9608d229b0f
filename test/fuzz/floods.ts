/**
 * The fuzzer's floods: while the mutated requests go on, one class of valid but costly requests
 * arrives from many connections at once for a few seconds, and `/health` is probed every 100 ms
 * beside it. Each flood is one of:
 *
 * - `login`: wrong passwords for ever new addresses (each reaches the password hash, D246–D247);
 * - `profiles`: ever new price profiles (D196, D261) and price tiles of them at zooms 4–12 around
 *   the busy station, so that many profiles need price tables at once (D198);
 * - `csv`: CSV station pages of ever other centres and sizes (D262–D263), most of them misses.
 *
 * A flood fails the run on any 5xx other than 503, an answer slower than the hang limit, a reset,
 * or a `/health` probe that gets no 200 within it.
 */
import http from 'node:http';
import { BENCH_KEY } from '../../bench/lib/harness.js';

export type FloodKind = 'login' | 'profiles' | 'csv';

export interface FloodSetup {
  port: number;
  /** Where the floods aim: the busy station of the snapshot. */
  latitude: number;
  longitude: number;
  tariff: string;
  rnd: () => number;
  hangMs: number;
}

export interface FloodResult {
  kind: FloodKind;
  sent: number;
  statuses: Map<string, number>;
  probes: number;
  worstProbeMs: number;
  failures: string[];
}

interface Shot {
  method: string;
  path: string;
  body?: string;
  headers?: Record<string, string>;
}

function send(agent: http.Agent, port: number, s: Shot, hangMs: number): Promise<{ status: number | 'hang' | 'reset'; body: string }> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (status: number | 'hang' | 'reset', body = ''): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ status, body });
    };
    const headers: Record<string, string> = { 'Api-Key': BENCH_KEY, ...s.headers };
    if (s.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      headers['Content-Length'] = String(Buffer.byteLength(s.body));
    }
    const req = http.request({ host: '127.0.0.1', port, method: s.method, path: s.path, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.length < 4 && chunks.push(c));
      res.on('end', () => done(res.statusCode ?? 0, Buffer.concat(chunks).toString()));
      res.on('error', () => done('reset'));
    });
    const timer = setTimeout(() => {
      done('hang');
      req.destroy();
    }, hangMs);
    req.on('error', () => done('reset'));
    req.end(s.body);
  });
}

/** The slippy-map tile (x, y) holding a point at zoom z. */
export function tileOf(lat: number, lon: number, z: number): [number, number] {
  const n = 2 ** z;
  const x = Math.floor(((lon + 180) / 360) * n);
  const r = (lat * Math.PI) / 180;
  const y = Math.floor(((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * n);
  return [x, y];
}

/** The next request of a flood: every call a new address, profile or page. */
function shooter(kind: FloodKind, o: FloodSetup, profiles: string[]): () => Shot {
  let n = 0;
  if (kind === 'login') {
    return () => ({
      method: 'POST',
      path: '/v1/authenticate',
      body: JSON.stringify({ data: { type: 'email_authentication', attributes: { email: `flood-${n++}-${Math.floor(o.rnd() * 1e9)}@example.org`, password: 'not the password' } } }),
    });
  }
  if (kind === 'csv') {
    return () => {
      const lat = o.latitude + (o.rnd() - 0.5) * 2;
      const lon = o.longitude + (o.rnd() - 0.5) * 2;
      const q = `filter[latitude]=${lat.toFixed(4)}&filter[longitude]=${lon.toFixed(4)}&filter[radius]=${20_000 + Math.floor(o.rnd() * 30_000)}&page[size]=${100 + Math.floor(o.rnd() * 900)}`;
      return { method: 'GET', path: `/v1/charging_stations?${q}`, headers: { Accept: 'text/csv', 'Accept-Encoding': o.rnd() < 0.5 ? 'gzip' : 'identity' } };
    };
  }
  return () => {
    // Half the requests register a new profile, half fetch a tile of a known one.
    if (profiles.length === 0 || o.rnd() < 0.5) {
      const energy = 5 + Math.floor(o.rnd() * 9000) / 100;
      const body = { data: { type: 'price_profile', attributes: { energy, duration: 30 + (n++ % 90) }, relationships: { tariffs: { data: [{ type: 'tariff', id: o.tariff }] } } } };
      return { method: 'POST', path: '/v1/price_profiles', body: JSON.stringify(body) };
    }
    const z = 4 + Math.floor(o.rnd() * 9);
    const [x, y] = tileOf(o.latitude + (o.rnd() - 0.5), o.longitude + (o.rnd() - 0.5), z);
    return { method: 'GET', path: `/v1/tiles/prices/${profiles[Math.floor(o.rnd() * profiles.length)]}/${z}/${x}/${y}.mvt` };
  };
}

/** `/health` every 100 ms until `until`: the worst latency, and the probes that got no 200 in time. */
async function probe(o: FloodSetup, until: number, r: FloodResult): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  while (Date.now() < until) {
    const t0 = performance.now();
    const a = await send(agent, o.port, { method: 'GET', path: '/health' }, o.hangMs);
    const ms = performance.now() - t0;
    r.probes++;
    r.worstProbeMs = Math.max(r.worstProbeMs, ms);
    if (a.status !== 200) r.failures.push(`/health during the ${r.kind} flood: ${a.status} after ${ms.toFixed(0)} ms`);
    await new Promise((res) => setTimeout(res, Math.max(0, 100 - ms)));
  }
  agent.destroy();
}

/** One flood of `kind` from `connections` connections for `ms`, with `/health` probed beside it. */
export async function flood(kind: FloodKind, o: FloodSetup, connections: number, ms: number): Promise<FloodResult> {
  const r: FloodResult = { kind, sent: 0, statuses: new Map(), probes: 0, worstProbeMs: 0, failures: [] };
  const profiles: string[] = [];
  const next = shooter(kind, o, profiles);
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const until = Date.now() + ms;
  const one = async (): Promise<void> => {
    while (Date.now() < until) {
      const s = next();
      const a = await send(agent, o.port, s, o.hangMs);
      r.sent++;
      r.statuses.set(String(a.status), (r.statuses.get(String(a.status)) ?? 0) + 1);
      if (a.status === 201 || (a.status === 200 && s.method === 'POST' && s.path === '/v1/price_profiles')) {
        const id = /"id":"([^"]+)"/.exec(a.body)?.[1];
        if (id !== undefined) profiles.push(id);
      }
      if (a.status === 'hang' || a.status === 'reset' || (a.status >= 500 && a.status !== 503)) {
        r.failures.push(`${kind} flood: ${a.status} for ${s.method} ${s.path.slice(0, 200)}`);
      }
    }
  };
  await Promise.all([probe(o, until, r), ...Array.from({ length: connections }, one)]);
  agent.destroy();
  return r;
}

export function floodLine(r: FloodResult): string {
  const st = [...r.statuses.entries()].sort().map(([s, n]) => `${s}: ${n}`).join(', ');
  return `| ${r.kind} | ${r.sent} | ${st} | ${r.probes} | ${r.worstProbeMs.toFixed(0)} |`;
}
