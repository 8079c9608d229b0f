import fs from 'node:fs';
/** Process-level behaviour: keys CLI, key refresh, restart, snapshot format check, configuration errors. */
import { execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { describe, expect, inject, it } from 'vitest';
import { createKey, hashKey, KeyRegistry } from '../../src/auth/keys.js';
import { GROUP_BIT } from '../../src/auth/groups.js';
import { LiveStore } from '../../src/storage/live.js';
import { call, freshDataDir, MAIN, ROOT, startTestServer } from '../helpers/server.js';

const run = promisify(execFile);
const KEYS_CLI = path.join(ROOT, 'dist/src/cli/keys.js');
const TOKEN_CLI = path.join(ROOT, 'dist/src/cli/token.js');

async function keysCli(dataDir: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run(process.execPath, [KEYS_CLI, ...args], { env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir } });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, stdout: x.stdout, stderr: x.stderr };
  }
}

describe('keys CLI', () => {
  it('creates, lists and revokes keys on a fresh data directory before the first start', async () => {
    const dir = freshDataDir();
    const c = await keysCli(dir, 'create', '--groups', 'ReadStations,read_costs', '--name', 'app');
    expect(c.code).toBe(0);
    const key = c.stdout.trim();
    expect(key).toMatch(/^cps_[A-Za-z0-9_-]{32}$/);
    const fixed = await keysCli(dir, 'create', '--groups', 'none', '--key', 'my-own-key-value', '--name', 'nogroups');
    expect(fixed.stdout.trim()).toBe('my-own-key-value');
    const all = await keysCli(dir, 'create', '--groups', 'all', '--name', 'admin');
    expect(all.code).toBe(0);

    const list = await keysCli(dir, 'list');
    expect(list.stdout).toMatch(/^app\tactive\t.*groups ReadStations,ReadCosts$/m);
    expect(list.stdout).toMatch(/^nogroups\tactive\t.*groups \(none\)$/m);
    expect(list.stdout).not.toContain(key);

    // Only hashes are stored.
    const store = LiveStore.open(dir);
    const rows = store.allKeys();
    store.close();
    expect(rows.find((r) => r.name === 'app')!.key_hash).toBe(hashKey(key));
    expect(JSON.stringify(rows)).not.toContain(key);

    expect((await keysCli(dir, 'revoke', 'app')).code).toBe(0);
    expect((await keysCli(dir, 'list')).stdout).toMatch(/^app\trevoked /m);
    expect((await keysCli(dir, 'revoke', 'app')).code).toBe(2);
  });

  it('rejects unknown groups, duplicate names and missing arguments with exit code 2', async () => {
    const dir = freshDataDir();
    expect((await keysCli(dir, 'create', '--groups', 'ReadEverything')).stderr).toContain('unknown group');
    expect((await keysCli(dir, 'create')).code).toBe(2);
    expect((await keysCli(dir, 'create', '--groups', 'all', '--name', 'x')).code).toBe(0);
    const dup = await keysCli(dir, 'create', '--groups', 'all', '--name', 'x');
    expect(dup.code).toBe(2);
    expect(dup.stderr).toContain('exists already');
    expect((await keysCli(dir, 'frobnicate')).code).toBe(2);
  });

  it('is wired as npm run keys', async () => {
    const dir = freshDataDir();
    const r = await run('npm', ['run', '--silent', 'keys', '--', 'create', '--groups', 'ReadVehicles', '--name', 'viaNpm'], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: dir },
    });
    expect(r.stdout.trim()).toMatch(/^cps_/);
  });
});

describe('key changes reach a running server', () => {
  it('sees keys created and revoked by another process within one refresh interval', async () => {
    const dir = freshDataDir();
    const server = LiveStore.open(dir);
    const registry = new KeyRegistry(server);
    registry.start(100);
    try {
      const cli = LiveStore.open(dir); // another connection, as the CLI process has
      createKey(cli, { name: 'late', key: 'late-key-value', groups: ['ReadCosts'] });
      await new Promise((r) => setTimeout(r, 400));
      expect(registry.maskOfKey('late-key-value')).toBe(GROUP_BIT.ReadCosts);
      cli.revokeKey('late');
      cli.close();
      await new Promise((r) => setTimeout(r, 400));
      expect(registry.maskOfKey('late-key-value')).toBe(-1);
    } finally {
      registry.stop();
      server.close();
    }
  });
});

describe('keys CLI against a running server', () => {
  it('a key revoked with the CLI is refused by the running server within one second', async () => {
    const srv = await startTestServer({ keys: { reader: 'ReadVehicles', other: 'ReadCosts' } });
    try {
      expect((await call(srv, 'GET', '/v2/vehicle_brands', { key: 'test-key-reader' })).status).toBe(200);
      expect((await call(srv, 'GET', '/v2/vehicle_brands', { key: 'test-key-other' })).json.errors[0].title).toBe(
        'action read_vehicles not allowed',
      );
      const created = await keysCli(srv.dataDir, 'create', '--groups', 'ReadVehicles', '--key', 'created-while-running', '--name', 'late');
      expect(created.code).toBe(0);
      expect((await keysCli(srv.dataDir, 'revoke', 'reader')).code).toBe(0);
      const t0 = performance.now();
      let revokedAfter = -1;
      let createdAfter = -1;
      while (performance.now() - t0 < 3000 && (revokedAfter < 0 || createdAfter < 0)) {
        if (revokedAfter < 0) {
          const r = await call(srv, 'GET', '/v2/vehicle_brands', { key: 'test-key-reader' });
          if (r.status === 403) {
            expect(r.json.errors[0].title).toBe('api_key invalid');
            revokedAfter = performance.now() - t0;
          }
        }
        if (createdAfter < 0 && (await call(srv, 'GET', '/v2/vehicle_brands', { key: 'created-while-running' })).status === 200) {
          createdAfter = performance.now() - t0;
        }
        await new Promise((r) => setTimeout(r, 25));
      }
      expect(revokedAfter).toBeGreaterThanOrEqual(0);
      expect(revokedAfter).toBeLessThan(1000);
      expect(createdAfter).toBeGreaterThanOrEqual(0);
      expect(createdAfter).toBeLessThan(1000);
    } finally {
      await srv.stop();
    }
  });
});

describe('start-up and restart', () => {
  it('SIGTERM in any phase of start-up ends the process promptly (D102)', async () => {
    const dataDir = freshDataDir();
    for (const delayMs of [0, 60, 150, 300, 600, 1200]) {
      const proc = spawn(process.execPath, [MAIN], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', PORT: '0', DATA_DIR: dataDir, SNAPSHOT: inject('testSnapshot'), LOG_LEVEL: 'info', WORKERS: '2' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
      await new Promise((r) => setTimeout(r, delayMs));
      const t0 = Date.now();
      proc.kill('SIGTERM');
      const r = await Promise.race([exited, new Promise<'hang'>((resolve) => setTimeout(() => resolve('hang'), 5000))]);
      if (r === 'hang') proc.kill('SIGKILL');
      expect(r, `SIGTERM ${delayMs} ms after spawn`).not.toBe('hang');
      // Before the handlers are installed the default action ends it; after, a clean exit 0.
      expect(r === 'hang' ? null : r.code === 0 || r.signal === 'SIGTERM', `exit after SIGTERM at ${delayMs} ms: ${JSON.stringify(r)}`).toBe(true);
      expect(Date.now() - t0).toBeLessThan(5000);
    }
  });

  it('a restart keeps API keys and acknowledged writes', async () => {
    const first = await startTestServer({ keys: { writer: 'WriteUserFeedback,ReadVehicles' } });
    const fb = {
      data: { type: 'tariff_update', attributes: { content: 'kept across restart', tariff: '', cpo: '', emp: '', language: 'en' } },
    };
    expect((await call(first, 'POST', '/v1/partner_feedback', { key: 'test-key-writer', body: fb })).status).toBe(204);
    expect(await first.stop()).toBe(0);
    const second = await startTestServer({ dataDir: first.dataDir });
    try {
      expect((await call(second, 'GET', '/v2/vehicle_brands', { key: 'test-key-writer' })).status).toBe(200);
      const store = LiveStore.open(first.dataDir);
      const n = (store.db.prepare("SELECT count(*) AS n FROM partner_feedback WHERE content = 'kept across restart'").get() as { n: number }).n;
      store.close();
      expect(n).toBe(1);
    } finally {
      expect(await second.stop()).toBe(0);
    }
  });

  it('prints a development key on the first start only; a restart keeps keys and seeded companies', async () => {
    const first = await startTestServer();
    expect(first.devKey).toMatch(/^cps_/);
    // D104: never in the JSON log on stdout; a file only its owner can read, and the log says where.
    expect(first.stdout()).not.toContain(first.devKey);
    expect(first.stderr()).not.toContain(first.devKey);
    expect(fs.statSync(path.join(first.dataDir, 'dev-key.txt')).mode & 0o777).toBe(0o600);
    expect(first.stdout()).toContain(path.join(first.dataDir, 'dev-key.txt'));
    expect(await first.stop()).toBe(0);
    const shown = await startTestServer({ env: { PRINT_DEV_KEY: '1' } });
    try {
      const key = /Development API key[^:]*: (\S+)/.exec(shown.stderr())?.[1] ?? '';
      expect(key).toMatch(/^cps_/);
      expect(shown.stdout()).not.toContain(key);
      expect(fs.existsSync(path.join(shown.dataDir, 'dev-key.txt'))).toBe(false);
      expect((await call(shown, 'GET', '/v2/vehicle_brands', { key })).status).toBe(200);
    } finally {
      await shown.stop();
    }
    const store = LiveStore.open(first.dataDir);
    const companies = (store.db.prepare('SELECT count(*) AS n FROM companies').get() as { n: number }).n;
    store.close();
    expect(companies).toBeGreaterThan(100);

    const second = await startTestServer({ dataDir: first.dataDir });
    try {
      expect(second.devKey).toBe('');
      expect(second.stdout()).not.toContain('Development API key');
      expect((await call(second, 'GET', '/health')).status).toBe(200);
      expect((await call(second, 'GET', '/v2/vehicle_brands', { key: first.devKey })).status).toBe(200);
      const again = LiveStore.open(first.dataDir);
      expect(again.activeKeys().map((k) => k.name)).toEqual(['development']);
      expect((again.db.prepare('SELECT count(*) AS n FROM companies').get() as { n: number }).n).toBe(companies);
      again.close();
    } finally {
      expect(await second.stop()).toBe(0);
    }
  });

  it('refuses to start on a snapshot of another format version, with a clear message', async () => {
    const dir = freshDataDir();
    const file = path.join(dir, 'old.sqlite');
    const db = new Database(file);
    db.exec("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO meta VALUES ('format_version', '999')");
    db.close();
    const r = await runMain({ SNAPSHOT: file, DATA_DIR: dir });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('format version 999');
    expect(r.stderr).toContain('npm run snapshot:build');
    const missing = await runMain({ SNAPSHOT: path.join(dir, 'nope.sqlite'), DATA_DIR: dir });
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('does not exist');
  });

  it('refuses an invalid configuration with exit code 2', async () => {
    const r = await runMain({ PORT: 'eighty', DATA_DIR: freshDataDir() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('PORT must be an integer');
    const negative = await runMain({ PRICING_INLINE_MAX_EVALUATIONS: '-1', DATA_DIR: freshDataDir() });
    expect(negative.code).toBe(2);
    expect(negative.stderr).toContain('PRICING_INLINE_MAX_EVALUATIONS');
    const split = await runMain({ PRICING_SPLIT_MIN_EVALUATIONS: 'half', DATA_DIR: freshDataDir() });
    expect(split.code).toBe(2);
    expect(split.stderr).toContain('PRICING_SPLIT_MIN_EVALUATIONS');
  });
});

describe('token CLI', () => {
  it('issues HS256 tokens with the secret stored on first use', async () => {
    const dir = freshDataDir();
    const r = await run(process.execPath, [TOKEN_CLI, '--sub', 'user-1', '--ttl', '60'], { env: { PATH: process.env.PATH ?? '', DATA_DIR: dir } });
    const [h, p] = r.stdout.trim().split('.');
    expect(JSON.parse(Buffer.from(h, 'base64url').toString())).toEqual({ alg: 'HS256', typ: 'JWT' });
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString()) as { sub: string; exp: number; iat: number };
    expect(payload.sub).toBe('user-1');
    expect(payload.exp - payload.iat).toBe(60);
    const store = LiveStore.open(dir);
    expect(store.getSetting('jwt_hs256_secret')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    store.close();
  });
});

function runMain(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH ?? '', PORT: '0', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('exit', (code) => resolve({ code, stderr }));
  });
}

describe('unusable DATA_DIR (D102)', () => {
  it('exits promptly with code 2 and a message naming the directory', async () => {
    const file = path.join(freshDataDir(), 'a-file');
    fs.writeFileSync(file, 'x');
    for (const dir of ['/proc/nope', '/proc/self/nope/deeper', file, path.join(file, 'below')]) {
      const t0 = Date.now();
      const p = spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH ?? '', DATA_DIR: dir, SNAPSHOT: inject('testSnapshot'), PORT: '0', WORKERS: '0' }, stdio: ['ignore', 'ignore', 'pipe'] });
      let err = '';
      p.stderr!.on('data', (d: Buffer) => (err += d.toString()));
      const timer = setTimeout(() => p.kill('SIGKILL'), 15_000);
      const code = await new Promise<number | null>((res) => p.on('exit', res));
      clearTimeout(timer);
      expect(code, `${dir}: ${err}`).toBe(2);
      expect(err).toContain(`DATA_DIR ${dir}`);
      expect(Date.now() - t0).toBeLessThan(15_000);
    }
  });
});
