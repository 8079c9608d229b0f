/**
 * HTTP benchmark harness: the full service and the bare uWebSockets.js ceiling run as child
 * processes on 127.0.0.1; autocannon drives each scenario against both, alternating runs, and
 * reports medians and ratios measured in the same run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { createKey } from '../../src/auth/keys.js';
import { GROUPS } from '../../src/auth/groups.js';
import { LiveStore } from '../../src/storage/live.js';

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
}

export interface Measure {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

export interface ScenarioResult {
  name: string;
  bytes: number;
  full: Measure;
  bare: Measure;
  /** full rps / bare rps. */
  ratio: number;
}

export interface BenchOptions {
  durationS: number;
  runs: number;
  connections: number;
  warmupS: number;
  snapshot?: string;
  env?: Record<string, string>;
}

export const BENCH_KEY = 'bench-key-all-groups-0001';

interface Child {
  proc: ChildProcess;
  port: number;
  stop(): Promise<void>;
}

function spawnAndWait(args: string[], env: Record<string, string>, ready: (line: string) => number | null): Promise<Child> {
  const proc = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let buf = '';
    let found = false;
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
            stop: () =>
              new Promise((done) => {
                if (proc.exitCode !== null) return done();
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
export async function startService(opts: Pick<BenchOptions, 'snapshot' | 'env'>): Promise<Child & { dataDir: string; startMs: number }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cps-bench-'));
  const store = LiveStore.open(dataDir);
  createKey(store, { name: 'bench', key: BENCH_KEY, groups: [...GROUPS] });
  store.close();
  const t0 = performance.now();
  const child = await spawnAndWait(
    [path.join(ROOT, 'dist/src/main.js')],
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

async function startBare(responses: { method: string; path: string; status: number; body: string }[]): Promise<Child> {
  const file = path.join(os.tmpdir(), `cps-bare-${process.pid}.json`);
  fs.writeFileSync(file, JSON.stringify(responses));
  return spawnAndWait([path.join(ROOT, 'dist/src/http/bare-app.js'), file], {}, (line) => {
    const m = /^listening (\d+)/.exec(line);
    return m ? Number(m[1]) : null;
  });
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

async function load(port: number, sc: Scenario, durationS: number, connections: number): Promise<Measure> {
  const r = await autocannon({
    url: `http://127.0.0.1:${port}${sc.path}`,
    method: sc.method,
    connections,
    duration: durationS,
    headers: { 'Api-Key': BENCH_KEY, 'Content-Type': 'application/json' },
    body: sc.body === undefined ? undefined : JSON.stringify(sc.body),
  });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors, non2xx: r.non2xx };
}

/**
 * Runs every scenario against the full service (already started) and a bare app serving the same
 * bytes; runs alternate full/bare `runs` times after a warm-up; medians per target.
 */
export async function runScenarios(port: number, scenarios: readonly Scenario[], o: BenchOptions): Promise<ScenarioResult[]> {
  const captured: { method: string; path: string; status: number; body: string }[] = [];
  for (const sc of scenarios) {
    const r = await fetch(`http://127.0.0.1:${port}${sc.path}`, {
      method: sc.method,
      headers: { 'Api-Key': BENCH_KEY, 'Content-Type': 'application/json' },
      body: sc.body === undefined ? undefined : JSON.stringify(sc.body),
    });
    const body = await r.text();
    if (r.status !== (sc.expect ?? 200)) throw new Error(`${sc.name}: expected ${sc.expect ?? 200}, got ${r.status}: ${body.slice(0, 300)}`);
    captured.push({ method: sc.method, path: sc.path.split('?')[0], status: r.status, body });
  }
  const bare = await startBare(captured);
  const out: ScenarioResult[] = [];
  try {
    for (let i = 0; i < scenarios.length; i++) {
      const sc = scenarios[i];
      await load(port, sc, o.warmupS, o.connections);
      await load(bare.port, sc, o.warmupS, o.connections);
      const full: Measure[] = [];
      const b: Measure[] = [];
      for (let k = 0; k < o.runs; k++) {
        full.push(await load(port, sc, o.durationS, o.connections));
        b.push(await load(bare.port, sc, o.durationS, o.connections));
      }
      const med = (ms: Measure[]): Measure => ({
        rps: median(ms.map((m) => m.rps)),
        p50: median(ms.map((m) => m.p50)),
        p99: median(ms.map((m) => m.p99)),
        errors: ms.reduce((s, m) => s + m.errors, 0),
        non2xx: ms.reduce((s, m) => s + m.non2xx, 0),
      });
      const f = med(full);
      const bb = med(b);
      out.push({ name: sc.name, bytes: Buffer.byteLength(captured[i].body), full: f, bare: bb, ratio: f.rps / bb.rps });
    }
  } finally {
    await bare.stop();
  }
  return out;
}

export function formatTable(rows: readonly ScenarioResult[]): string {
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

export function writeJson(name: string, data: unknown): void {
  const dir = path.join(ROOT, 'bench/out');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, `${name}.json`), JSON.stringify(data, null, 2));
}
