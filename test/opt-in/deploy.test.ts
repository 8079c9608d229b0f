/**
 * `npm run test:deploy`: the systemd unit as an operator installs it (D123), checked with Debian's
 * systemd-analyze (`apt-get install systemd`; .ci/run installs it): it verifies, rates at most 2.0
 * on `systemd-analyze security --offline=true`, runs under a dynamic user with its state in the
 * state directory, is started only once ready (ExecStartPost: wait-ready), and retries every exit
 * a restart can fix (only 2 and 3 are final). Then the signals an operator starts from (D120): the
 * Prometheus alert rules pass `promtool check rules` and their unit tests (`promtool test rules`,
 * Debian's prometheus package), the service's own metrics pass `promtool check metrics`, and every
 * metric the alerts and the Grafana dashboard (deploy/grafana/) use is one the service exposes.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { startTestApp, call } from '../helpers/server.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const UNIT = path.join(ROOT, 'deploy/charging-price-service.service');

/** The unit's settings: name → values in order. */
function settings(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of fs.readFileSync(UNIT, 'utf8').split('\n')) {
    const m = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (m) out.set(m[1], [...(out.get(m[1]) ?? []), m[2]]);
  }
  return out;
}

describe('the systemd unit (D123)', () => {
  it('verifies and rates at most 2.0 on systemd-analyze security', async () => {
    await run('systemd-analyze', ['verify', UNIT]);
    const { stdout } = await run('systemd-analyze', ['security', '--offline=true', '--no-pager', UNIT]);
    const m = /Overall exposure level for [^:]+: ([\d.]+)/.exec(stdout);
    expect(m, stdout).not.toBeNull();
    expect(Number(m![1])).toBeLessThanOrEqual(2.0);
  });

  it('runs as a dynamic user, keeps its state in the state directory, and is started once ready', () => {
    const s = settings();
    expect(s.get('DynamicUser')).toEqual(['yes']);
    expect(s.get('User')).toBeUndefined();
    expect(s.get('StateDirectory')).toEqual(['charging-price-service']);
    expect(s.get('Environment')).toContain('DATA_DIR=/var/lib/charging-price-service');
    // Behind nginx on this host: only nginx's address names the client (D245).
    expect(s.get('Environment')).toContain('TRUST_PROXY=127.0.0.1');
    expect(s.get('ProtectSystem')).toEqual(['strict']);
    // V8 writes machine code at run time.
    expect(s.get('MemoryDenyWriteExecute')).toBeUndefined();
    const post = s.get('ExecStartPost')![0];
    expect(post).toMatch(/dist\/src\/cli\/wait-ready\.js/);
    expect(fs.existsSync(path.join(ROOT, 'dist/src/cli/wait-ready.js'))).toBe(true);
    expect(fs.existsSync(path.join(ROOT, s.get('ExecStart')![0].split(' ')[1]))).toBe(true);
    // Only configuration (2) and snapshot format (3) errors are final; 1 (a taken port, a database down at start) is retried.
    expect(s.get('RestartPreventExitStatus')).toEqual(['2 3']);
    expect(s.get('Restart')).toEqual(['on-failure']);
  });
});

describe('the reference proxy (D248)', () => {
  it('closes idle upstream connections before the service does (its idle close: 10 s, measured from 8 s)', () => {
    const conf = fs.readFileSync(path.join(ROOT, 'deploy/nginx.conf'), 'utf8');
    const upstream = /upstream charging_price_service \{([^}]*)\}/.exec(conf)![1];
    const m = /^\s*keepalive_timeout (\d+)s;/m.exec(upstream);
    expect(m, 'keepalive_timeout in the upstream block').not.toBeNull();
    expect(Number(m![1])).toBeLessThan(8);
  });
});

const ALERTS = path.join(ROOT, 'deploy/prometheus/alerts.yml');
const DASHBOARD = path.join(ROOT, 'deploy/grafana/charging-price-service.json');

/** Metric names in PromQL text: the service's (`cps_…`) and the process metrics the dashboard reads. */
function metricNames(promql: string): string[] {
  return [...promql.matchAll(/\b((?:cps|process|nodejs)_[a-z0-9_]+)\b/g)].map((m) => m[1]);
}

describe('alerts and dashboard (D120)', () => {
  it('the alert rules pass promtool check rules and their unit tests', async () => {
    await run('promtool', ['check', 'rules', ALERTS]);
    const { stdout } = await run('promtool', ['test', 'rules', path.join(ROOT, 'deploy/prometheus/alerts.test.yml')]);
    expect(stdout).toContain('SUCCESS');
  });

  it('every metric of the alerts and the dashboard is exposed by the service, and its own metrics pass promtool check metrics', async () => {
    const app = await startTestApp();
    try {
      await call(app, 'GET', '/health'); // request series appear with the first answered request
      const text = (await call(app, 'GET', '/metrics')).text;
      const exposed = new Set([...text.matchAll(/^([a-z_][a-z0-9_]*)(?:\{| )/gm)].map((m) => m[1]));
      const dashboard = JSON.parse(fs.readFileSync(DASHBOARD, 'utf8')) as { panels: { targets: { expr: string }[] }[]; templating: { list: { query?: string }[] } };
      const exprs = [...dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr)), ...dashboard.templating.list.map((v) => v.query ?? '')];
      const used = new Set([...metricNames(fs.readFileSync(ALERTS, 'utf8')), ...exprs.flatMap(metricNames)]);
      expect(used.size).toBeGreaterThan(15);
      // Exposed on a PostgreSQL live store only (test/http/metrics.test.ts checks them under npm run test:pg),
      // once a feed applied a status (test/http/availability.test.ts), and with SNAPSHOT_MAX_AGE_DAYS (test/http/metrics.test.ts).
      const conditional = new Set(['cps_db_pool_connections', 'cps_db_pool_waiting', 'cps_availability_last_update_age_seconds', 'cps_snapshot_data_max_age_seconds']);
      expect([...used].filter((n) => !exposed.has(n) && !conditional.has(n))).toEqual([]);
      const check = await new Promise<{ code: number | null; out: string }>((resolve) => {
        const p = execFile('promtool', ['check', 'metrics'], (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }));
        // The service's own metrics (prom-client's default nodejs_active_handles_total is a gauge named like a counter).
        p.stdin!.end(text.split('\n').filter((l) => /^(# (HELP|TYPE) )?cps_/.test(l)).join('\n') + '\n');
      });
      expect(check, check.out).toEqual({ code: 0, out: '' });
    } finally {
      await app.stop();
    }
  });
});
