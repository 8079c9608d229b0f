/**
 * HTTP benchmark harness: the full service and the bare uWebSockets.js ceiling run as child
 * processes on 127.0.0.1; autocannon drives each scenario against both, alternating runs, and
 * reports medians and ratios measured in the same run.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { createKey } from '../../src/auth/keys.js';
import { hasKeyName } from '../../src/storage/keys.js';
import { GROUPS, type Group } from '../../src/auth/groups.js';
import { openLiveStore } from '../../src/storage/open.js';

export const ROOT = (() => {
  let d = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(d, 'package.json'))) d = path.dirname(d);
  return d;
})();

export interface Scenario {
  name: string;
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  body?: unknown;
  /** Statuses the scenario must answer with (checked once before measuring). */
  expect?: number;
  /** Connections for this scenario (default: the run's `connections`). */
  connections?: number;
  /** Route pattern for the bare app when requests vary their path (e.g. `/v2/tariffs/:id`). */
  barePath?: string;
  /**
   * Requests that vary per request (e.g. a tariff PUT with a new version each time): called once
   * per target, returns autocannon's `setupRequest` / `onResponse` with state private to that target.
   */
  dynamic?: (target: Target) => DynamicRequests;
  /** Extra request headers (e.g. `Accept-Encoding` of the compression scenarios). */
  headers?: Record<string, string>;
  /** Also measured against the peer (when a peer port is given); `equal` checks its answer once. */
  peer?: { equal(full: string, peer: string): string | null };
}

export type Target = 'full' | 'bare' | 'peer';

export interface DynamicRequests {
  setupRequest(req: { method: string; path: string; body?: string; headers?: Record<string, string> }, context: Record<string, unknown>): {
    method: string;
    path: string;
    body?: string;
    /** Headers of this request besides the scenario's (an `If-None-Match` per path). */
    headers?: Record<string, string>;
  };
  onResponse?(status: number, body: string, context: Record<string, unknown>): void;
}

export interface Measure {
  rps: number;
  mean: number;
  p50: number;
  p90: number;
  p97_5: number;
  p99: number;
  errors: number;
  non2xx: number;
  /**
   * One-connection runs: CPU time per request of the load client (this process) and of the
   * target process (all its threads). Requests run one at a time, so all of a request's CPU work
   * falls within its latency: p50 ≥ (client + target) / cores is the floor of that target here.
   */
  cpuPerRequest?: { clientMs: number; targetMs: number };
}

export interface ScenarioResult {
  name: string;
  bytes: number;
  connections: number;
  full: Measure;
  bare: Measure;
  /** full rps / bare rps. */
  ratio: number;
  /** The fastify peer, for the scenarios it implements. */
  peer?: Measure;
  peerBytes?: number;
  /** full rps / peer rps. */
  vsPeer?: number;
  /** Requests per second of every measured run per target (the spread behind the medians). */
  runsRps?: { full: number[]; bare: number[]; peer?: number[] };
  /** Check mode (`runs` 0): the status each target answered, each answer checked, nothing measured. */
  checked?: { full: number; bare: number; peer?: number };
}

export interface BenchOptions {
  durationS: number;
  runs: number;
  connections: number;
  warmupS: number;
  snapshot?: string;
  env?: Record<string, string>;
  /** Wait for each target to be quiet after each load (default true; quick runs skip it). */
  settle?: boolean;
}

/** No measurement (check mode): every field NaN. */
const UNMEASURED: Measure = { rps: NaN, mean: NaN, p50: NaN, p90: NaN, p97_5: NaN, p99: NaN, errors: 0, non2xx: 0 };

export const BENCH_KEY = 'bench-key-all-groups-0001';

interface Child {
  proc: ChildProcess;
  port: number;
  /** What the process wrote on stdout up to its ready line (its start-up log). */
  startLog: string;
  stop(): Promise<void>;
}

/**
 * A child that printed its ready line. A child that ends before `stop` (a crash, a signal) is
 * reported on stderr and fails the run (exit code 1). `stop` resolves at once for a child already
 * gone, whether it exited or was ended by a signal: waiting for an `exit` event that already came
 * left nothing in the event loop, and the bench process ended silently with code 0 after its
 * measuring phase, without its report.
 */
export function spawnAndWait(args: string[], env: Record<string, string>, ready: (line: string) => number | null): Promise<Child> {
  const proc = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  let stopping = false;
  let found = false;
  proc.once('exit', (code, signal) => {
    if (stopping || !found) return;
    console.error(`${path.basename(args.find((a) => a.endsWith('.js')) ?? args[0])} (pid ${proc.pid}) ended during the run: ${signal !== null ? `signal ${signal}` : `exit code ${code}`}`);
    process.exitCode = 1;
  });
  return new Promise((resolve, reject) => {
    let buf = '';
    proc.stdout!.on('data', (d: Buffer) => {
      if (found) return;
      buf += d.toString();
      for (const line of buf.split('\n')) {
        const p = ready(line);
        if (p !== null) {
          found = true;
          proc.stdout!.resume();
          resolve({
            proc,
            port: p,
            startLog: buf,
            stop: () =>
              new Promise((done) => {
                stopping = true;
                if (proc.exitCode !== null || proc.signalCode !== null) return done();
                proc.once('exit', () => done());
                proc.kill('SIGTERM');
              }),
          });
          return;
        }
      }
    });
    proc.once('exit', (code) => {
      if (!found) reject(new Error(`${args.join(' ')} exited with ${code}`));
    });
  });
}

/** Starts the compiled service on an ephemeral port with a fresh data dir and one all-groups key. */
export async function startService(opts: Pick<BenchOptions, 'snapshot' | 'env'> & { nodeArgs?: string[]; keys?: Record<string, Group[]>; root?: string }): Promise<Child & { dataDir: string; startMs: number }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cps-bench-'));
  const store = await openLiveStore({ dataDir, databaseUrl: opts.env?.DATABASE_URL ?? null });
  // A second replica of a shared PostgreSQL store finds the bench key there.
  if (!(await store.read((s) => hasKeyName(s, 'bench')))) await createKey(store, { name: 'bench', key: BENCH_KEY, groups: [...GROUPS] });
  // Keys with fewer groups, where the groups change the answer (a station reader sees no live counts).
  for (const [key, groups] of Object.entries(opts.keys ?? {})) await createKey(store, { name: key, key, groups });
  await store.close();
  const t0 = performance.now();
  const child = await spawnAndWait(
    // `root`: another checkout's build (a baseline measured in the same run).
    [...(opts.nodeArgs ?? []), path.join(opts.root ?? ROOT, 'dist/src/main.js')],
    {
      HOST: '127.0.0.1',
      PORT: '0',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      ...(opts.snapshot ? { SNAPSHOT: opts.snapshot } : {}),
      ...opts.env,
    },
    (line) => {
      if (!line.startsWith('{')) return null;
      try {
        const j = JSON.parse(line) as { msg?: string; port?: number };
        return j.msg === 'listening' && j.port ? j.port : null;
      } catch {
        return null;
      }
    },
  );
  const startMs = performance.now() - t0;
  return {
    ...child,
    dataDir,
    startMs,
    stop: async () => {
      await child.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

let bareFiles = 0;

export async function startBare(responses: { method: string; path: string; status: number; body: string; base64?: boolean; contentType?: string }[]): Promise<Child> {
  const file = path.join(os.tmpdir(), `cps-bare-${process.pid}-${bareFiles++}.json`);
  fs.writeFileSync(file, JSON.stringify(responses));
  try {
    return await spawnAndWait([path.join(ROOT, 'dist/src/http/bare-app.js'), file], {}, (line) => {
      const m = /^listening (\d+)/.exec(line);
      return m ? Number(m[1]) : null;
    });
  } finally {
    fs.rmSync(file, { force: true });
  }
}

/**
 * One connection, one request at a time for `durationS`, every latency kept exactly (hrtime):
 * autocannon's histogram has 1 ms resolution, too coarse for sub-millisecond percentiles.
 */
async function sequentialLoad(port: number, sc: Scenario, durationS: number, dyn?: DynamicRequests): Promise<Measure> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const fixedBody = sc.body === undefined ? undefined : Buffer.from(JSON.stringify(sc.body));
  const lat: number[] = [];
  let errors = 0;
  let non2xx = 0;
  const one = (method: string, p: string, body: Buffer | undefined, extra?: Record<string, string>): Promise<{ status: number; text: string }> =>
    new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          method,
          path: p,
          agent,
          headers: { 'Api-Key': BENCH_KEY, 'Content-Type': 'application/json', ...sc.headers, ...extra, ...(body ? { 'Content-Length': body.length } : {}) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: dyn?.onResponse ? Buffer.concat(chunks).toString() : '' }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const t0 = performance.now();
  const until = t0 + durationS * 1000;
  let now = t0;
  while (now < until) {
    let method: string = sc.method;
    let p = sc.path;
    let body = fixedBody;
    const context: Record<string, unknown> = {};
    let extra: Record<string, string> | undefined;
    if (dyn) {
      const r = dyn.setupRequest({ method, path: p }, context);
      method = r.method;
      p = r.path;
      body = r.body === undefined ? undefined : Buffer.from(r.body);
      extra = r.headers;
    }
    const a = performance.now();
    try {
      const r = await one(method, p, body, extra);
      now = performance.now();
      // A revalidation scenario (`expect: 304`) succeeds with 304 Not Modified.
      if ((r.status < 200 || r.status >= 300) && !(sc.expect === 304 && r.status === 304)) non2xx++;
      else lat.push(now - a);
      dyn?.onResponse?.(r.status, r.text, context);
    } catch {
      errors++;
      now = performance.now();
    }
  }
  agent.destroy();
  lat.sort((x, y) => x - y);
  const q = (f: number): number => (lat.length === 0 ? NaN : lat[Math.min(lat.length - 1, Math.ceil(f * lat.length) - 1)]);
  const mean = lat.reduce((s, x) => s + x, 0) / Math.max(1, lat.length);
  return { rps: (lat.length * 1000) / (now - t0), mean, p50: q(0.5), p90: q(0.9), p97_5: q(0.975), p99: q(0.99), errors, non2xx };
}

/** Latency of one scenario on one connection: warm-up, then one measured run (exact percentiles). */
export async function runLatency(port: number, sc: Scenario, warmupS: number, durationS: number): Promise<Measure> {
  if (warmupS > 0) await sequentialLoad(port, sc, warmupS);
  return sequentialLoad(port, sc, durationS);
}

/** One load of `durationS` on `connections` (1: one request at a time, exact latencies). */
export async function load(port: number, sc: Scenario, durationS: number, connections: number, dyn?: DynamicRequests): Promise<Measure> {
  if (connections === 1) return sequentialLoad(port, sc, durationS, dyn);
  const headers = { 'Api-Key': BENCH_KEY, 'Content-Type': 'application/json', ...sc.headers };
  const r = await autocannon(
    dyn
      ? {
          url: `http://127.0.0.1:${port}`,
          connections,
          duration: durationS,
          headers,
          requests: [{ method: sc.method, setupRequest: dyn.setupRequest, onResponse: dyn.onResponse }],
        }
      : {
          url: `http://127.0.0.1:${port}${sc.path}`,
          method: sc.method,
          connections,
          duration: durationS,
          headers,
          body: sc.body === undefined ? undefined : JSON.stringify(sc.body),
        },
  );
  const l = r.latency;
  return { rps: r.requests.average, mean: l.mean, p50: l.p50, p90: l.p90, p97_5: l.p97_5, p99: l.p99, errors: r.errors, non2xx: r.non2xx };
}

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

export const medianMeasure = (ms: Measure[]): Measure => ({
  rps: median(ms.map((m) => m.rps)),
  mean: median(ms.map((m) => m.mean)),
  p50: median(ms.map((m) => m.p50)),
  p90: median(ms.map((m) => m.p90)),
  p97_5: median(ms.map((m) => m.p97_5)),
  p99: median(ms.map((m) => m.p99)),
  errors: ms.reduce((s, m) => s + m.errors, 0),
  non2xx: ms.reduce((s, m) => s + m.non2xx, 0),
  ...(ms.every((m) => m.cpuPerRequest)
    ? { cpuPerRequest: { clientMs: median(ms.map((m) => m.cpuPerRequest!.clientMs)), targetMs: median(ms.map((m) => m.cpuPerRequest!.targetMs)) } }
    : {}),
});

/** One request; the answer's status and body (in the representation the scenario's `Accept` asks for, D236–D238). */
export async function request(port: number, sc: Pick<Scenario, 'method' | 'path' | 'body' | 'headers'>): Promise<{ status: number; body: string }> {
  const accept = sc.headers?.Accept;
  const r = await fetch(`http://127.0.0.1:${port}${sc.path}`, {
    method: sc.method,
    headers: { 'Api-Key': BENCH_KEY, 'Content-Type': 'application/json', ...(accept === undefined ? {} : { Accept: accept }) },
    body: sc.body === undefined ? undefined : JSON.stringify(sc.body),
  });
  return { status: r.status, body: await r.text() };
}

/**
 * Runs every scenario against the full service (already started), a bare app serving the same
 * bytes and, when `peerPort` is given, the peer for the scenarios that have `peer`. The peer's
 * answer is checked against the full stack's once before measuring. Per scenario: a warm-up of
 * each target, then `runs` rounds alternating full / bare / peer; medians per target.
 */
export async function runScenarios(
  port: number,
  scenarios: readonly Scenario[],
  o: BenchOptions,
  peerPort?: number,
  pids: { full?: number; peer?: number } = {},
): Promise<ScenarioResult[]> {
  const captured: { method: string; path: string; status: number; body: string }[] = [];
  const peerBytes: (number | undefined)[] = [];
  const peerStatus: (number | undefined)[] = [];
  for (const sc of scenarios) {
    const r = await request(port, sc);
    if (r.status !== (sc.expect ?? 200)) throw new Error(`${sc.name}: expected ${sc.expect ?? 200}, got ${r.status}: ${r.body.slice(0, 300)}`);
    captured.push({ method: sc.method, path: sc.barePath ?? sc.path.split('?')[0], status: r.status, body: r.body });
    if (peerPort !== undefined && sc.peer) {
      const p = await request(peerPort, sc);
      if (p.status !== r.status) throw new Error(`${sc.name}: peer answered ${p.status}, full stack ${r.status}: ${p.body.slice(0, 300)}`);
      const diff = sc.peer.equal(r.body, p.body);
      if (diff !== null) throw new Error(`${sc.name}: peer answer differs from the full stack: ${diff}`);
      peerBytes.push(Buffer.byteLength(p.body));
      peerStatus.push(p.status);
    } else {
      peerBytes.push(undefined);
      peerStatus.push(undefined);
    }
  }
  // The bare app answers by method and path (no query): scenarios sharing a path get separate apps.
  const layerOf: number[] = [];
  const layers: (typeof captured)[] = [];
  for (const c of captured) {
    let k = layers.findIndex((l) => !l.some((x) => x.method === c.method && x.path === c.path));
    if (k === -1) k = layers.push([]) - 1;
    layers[k].push(c);
    layerOf.push(k);
  }
  const bares: Child[] = [];
  const out: ScenarioResult[] = [];
  try {
    for (const l of layers) bares.push(await startBare(l));
    if (o.runs === 0) {
      // Check mode: the full stack and the peer were checked above; the ceiling must answer the
      // same status and bytes.
      for (let i = 0; i < scenarios.length; i++) {
        const sc = scenarios[i];
        const b = await request(bares[layerOf[i]].port, sc);
        if (b.status !== captured[i].status || b.body !== captured[i].body) throw new Error(`${sc.name}: the ceiling does not answer the captured bytes`);
        out.push({
          name: sc.name,
          bytes: Buffer.byteLength(captured[i].body),
          connections: sc.connections ?? o.connections,
          full: UNMEASURED,
          bare: UNMEASURED,
          ratio: NaN,
          ...(peerStatus[i] !== undefined ? { peer: UNMEASURED, peerBytes: peerBytes[i] } : {}),
          checked: { full: captured[i].status, bare: b.status, ...(peerStatus[i] !== undefined ? { peer: peerStatus[i] } : {}) },
        });
      }
      return out;
    }
    for (let i = 0; i < scenarios.length; i++) {
      const sc = scenarios[i];
      const conns = sc.connections ?? o.connections;
      const targets: { t: Target; port: number; pid?: number; dyn?: DynamicRequests; ms: Measure[] }[] = [
        { t: 'full', port, pid: pids.full, dyn: sc.dynamic?.('full'), ms: [] },
        { t: 'bare', port: bares[layerOf[i]].port, pid: bares[layerOf[i]].proc.pid, dyn: sc.dynamic?.('bare'), ms: [] },
      ];
      if (peerPort !== undefined && sc.peer) targets.push({ t: 'peer', port: peerPort, pid: pids.peer, dyn: sc.dynamic?.('peer'), ms: [] });
      // After each load the target works off what its clients gave up on before the next starts.
      const run = async (x: (typeof targets)[number], d: number): Promise<Measure> => {
        const c0 = process.cpuUsage();
        const t0 = x.pid === undefined ? NaN : cpuMsOf(x.pid);
        const m = await load(x.port, sc, d, conns, x.dyn);
        if (conns === 1 && x.pid !== undefined) {
          const c = process.cpuUsage(c0);
          const n = m.rps * d;
          m.cpuPerRequest = { clientMs: (c.user + c.system) / 1000 / n, targetMs: (cpuMsOf(x.pid) - t0) / n };
        }
        if (x.pid !== undefined && o.settle !== false) await waitIdle(x.pid, 0.1, 60_000);
        return m;
      };
      if (o.warmupS > 0) for (const x of targets) await run(x, o.warmupS);
      for (let k = 0; k < o.runs; k++) for (const x of targets) x.ms.push(await run(x, o.durationS));
      const f = medianMeasure(targets[0].ms);
      const b = medianMeasure(targets[1].ms);
      const rpsOf = (ms: Measure[]): number[] => ms.map((m) => Math.round(m.rps * 10) / 10);
      const row: ScenarioResult = {
        name: sc.name,
        bytes: Buffer.byteLength(captured[i].body),
        connections: conns,
        full: f,
        bare: b,
        ratio: f.rps / b.rps,
        runsRps: { full: rpsOf(targets[0].ms), bare: rpsOf(targets[1].ms), ...(targets[2] ? { peer: rpsOf(targets[2].ms) } : {}) },
      };
      if (targets[2]) {
        row.peer = medianMeasure(targets[2].ms);
        row.peerBytes = peerBytes[i];
        row.vsPeer = f.rps / row.peer.rps;
      }
      out.push(row);
    }
  } finally {
    for (const b of bares) await b.stop();
  }
  return out;
}

export function formatTable(rows: readonly ScenarioResult[]): string {
  if (rows.some((r) => r.peer)) return formatPeerTable(rows);
  const lines = [
    '| scenario | bytes | full req/s | full p50 ms | full p99 ms | bare uWS req/s | bare p50 ms | full / bare |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.name} | ${r.bytes} | ${Math.round(r.full.rps)} | ${r.full.p50} | ${r.full.p99} | ${Math.round(r.bare.rps)} | ${r.bare.p50} | ${(r.ratio * 100).toFixed(1)} % |`,
    );
  }
  return lines.join('\n');
}

const ms = (x: number): string => (x < 10 ? x.toFixed(2).replace(/\.?0+$/, '') || '0' : x.toFixed(0));
const pct = (x: number | undefined): string => (x === undefined ? '–' : `${(x * 100).toFixed(1)} %`);
const times = (x: number | undefined): string => (x === undefined ? '–' : `${x.toFixed(1)}×`);

/** The table with the peer columns: full stack / ceiling and full stack / peer per scenario. */
export function formatPeerTable(rows: readonly ScenarioResult[]): string {
  const lines = [
    '| scenario | conns | bytes | full req/s | full p50 ms | full p99 ms | ceiling req/s | full / ceiling | peer req/s | peer p50 ms | peer p99 ms | full / peer |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const r of rows) {
    const p = r.peer;
    lines.push(
      `| ${r.name} | ${r.connections} | ${r.bytes} | ${Math.round(r.full.rps)} | ${ms(r.full.p50)} | ${ms(r.full.p99)} | ${Math.round(r.bare.rps)} | ${pct(r.ratio)} | ` +
        `${p ? Math.round(p.rps) : '–'} | ${p ? ms(p.p50) : '–'} | ${p ? ms(p.p99) : '–'} | ${times(r.vsPeer)} |`,
    );
  }
  return lines.join('\n');
}

/** CPU time (user + system, ms) of a process and all its threads (Linux /proc), NaN elsewhere. */
export function cpuMsOf(pid: number): number {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
    return ((Number(rest[11]) + Number(rest[12])) * 1000) / 100;
  } catch {
    return NaN;
  }
}

/**
 * Waits until a process is quiet (below `maxShare` of one core over 250 ms windows), at most
 * `timeoutMs`: after setup (pricing workers catching up with written tariffs) and between loads
 * (a peer still working off requests its clients have given up on).
 */
export async function waitIdle(pid: number, maxShare = 0.1, timeoutMs = 30_000): Promise<number> {
  const t0 = performance.now();
  let last = cpuMsOf(pid);
  if (!Number.isFinite(last)) return 0;
  while (performance.now() - t0 < timeoutMs) {
    await new Promise((r) => setTimeout(r, 250));
    const now = cpuMsOf(pid);
    if (now - last <= 250 * maxShare) break;
    last = now;
  }
  return performance.now() - t0;
}

/** Start-up to "listening" and resident memory of a child process (Linux /proc). */
export function rssOf(pid: number): { rssMb: number; hwmMb: number } {
  try {
    const s = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k: string): number => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? NaN);
    return { rssMb: kb('VmRSS') / 1024, hwmMb: kb('VmHWM') / 1024 };
  } catch {
    return { rssMb: NaN, hwmMb: NaN };
  }
}

export function machineLine(): string {
  let commit = 'unknown';
  try {
    commit = fs.readFileSync(path.join(ROOT, '.git/HEAD'), 'utf8').trim();
    if (commit.startsWith('ref: ')) commit = fs.readFileSync(path.join(ROOT, '.git', commit.slice(5)), 'utf8').trim();
  } catch {
    /* not a checkout */
  }
  const cpu = os.cpus()[0]?.model ?? 'cpu';
  return `${new Date().toISOString().slice(0, 10)} · ${os.availableParallelism()} × ${cpu} · ${Math.round(os.totalmem() / 2 ** 30)} GiB · Node ${process.version} · commit ${commit.slice(0, 10)}`;
}

/** Machine, Node, commit, date and load average as data (for the JSON outputs). */
export function machineInfo(): Record<string, unknown> {
  let commit = 'unknown';
  try {
    commit = fs.readFileSync(path.join(ROOT, '.git/HEAD'), 'utf8').trim();
    if (commit.startsWith('ref: ')) commit = fs.readFileSync(path.join(ROOT, '.git', commit.slice(5)), 'utf8').trim();
  } catch {
    /* not a checkout */
  }
  return {
    date: new Date().toISOString(),
    cpus: os.availableParallelism(),
    cpu: os.cpus()[0]?.model ?? 'cpu',
    memGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    commit,
    loadavg: os.loadavg().map((x) => Math.round(x * 100) / 100),
  };
}

export const loadLine = (): string => `load average ${os.loadavg().map((x) => x.toFixed(2)).join(', ')}`;

/** Replaces (or appends) the section between `<!-- name:start -->` and `<!-- name:end -->` in bench/RESULTS.md. */
export function writeResultsSection(name: string, markdown: string): void {
  const file = path.join(ROOT, 'bench/RESULTS.md');
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  let text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '# Benchmark results\n\nWritten by the bench scripts; every figure is a median of repeated runs, with its baseline from the same run.\n';
  const block = `${start}\n${markdown.trim()}\n${end}`;
  const i = text.indexOf(start);
  const j = text.indexOf(end);
  text = i !== -1 && j !== -1 ? text.slice(0, i) + block + text.slice(j + end.length) : text.trimEnd() + '\n\n' + block + '\n';
  fs.writeFileSync(file, text);
}

let outDir = process.env.BENCH_OUT_DIR ?? path.join(ROOT, 'bench/out');

/** Where writeJson writes (default bench/out/; tests point it at a temporary directory). */
export function setOutDir(dir: string): void {
  outDir = path.resolve(dir);
}

export function getOutDir(): string {
  return outDir;
}

export function writeJson(name: string, data: unknown): void {
  const dir = outDir;
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, `${name}.json`), JSON.stringify(data, null, 2));
}

/**
 * A throw-away PostgreSQL cluster (deploy/postgres.sh) in a new temporary directory: its URL, the
 * directory (for the bench's own files) and `stop()`, which stops it and removes the directory.
 */
export function startThrowAwayPostgres(prefix: string): { url: string; dir: string; stop(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const script = path.join(ROOT, 'deploy/postgres.sh');
  const url = execFileSync(script, ['start', path.join(dir, 'pg')], { encoding: 'utf8' }).trim().replace(/^DATABASE_URL=/, '');
  return {
    url,
    dir,
    stop: () => {
      execFileSync(script, ['stop', path.join(dir, 'pg')]);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
