/** Process-level behaviour: the keys and token CLIs, key changes reaching a running server (start-up: startup.test.ts). */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createKey, hashKey, KeyRegistry } from '../../src/auth/keys.js';
import { GROUP_BIT } from '../../src/auth/groups.js';
import { SqliteStore } from '../../src/storage/sqlite-store.js';
import { openLiveStore } from '../../src/storage/open.js';
import { allKeys, revokeKey } from '../../src/storage/keys.js';
import { getSetting } from '../../src/storage/settings.js';
import { call, cliEnv, databaseUrlOf, freshDataDir, ROOT, startTestApp } from '../helpers/server.js';

const run = promisify(execFile);
const KEYS_CLI = path.join(ROOT, 'dist/src/cli/keys.js');
const TOKEN_CLI = path.join(ROOT, 'dist/src/cli/token.js');

async function keysCli(dataDir: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run(process.execPath, [KEYS_CLI, ...args], { env: await cliEnv(dataDir) });
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
    const store = await openLiveStore({ dataDir: dir, databaseUrl: await databaseUrlOf(dir) });
    const rows = await store.read(allKeys);
    await store.close();
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
    const server = SqliteStore.open(dir);
    const registry = await KeyRegistry.create(server);
    registry.start(100);
    try {
      const cli = SqliteStore.open(dir); // another connection, as the CLI process has
      await createKey(cli, { name: 'late', key: 'late-key-value', groups: ['ReadCosts'] });
      await new Promise((r) => setTimeout(r, 400));
      expect(registry.maskOfKey('late-key-value')).toBe(GROUP_BIT.ReadCosts);
      await cli.tx((s) => revokeKey(s, 'late'));
      await cli.close();
      await new Promise((r) => setTimeout(r, 400));
      expect(registry.maskOfKey('late-key-value')).toBe(-1);
    } finally {
      registry.stop();
      await server.close();
    }
  });
});

describe('keys CLI against a running server', () => {
  it('a key revoked with the CLI is refused by the running server within one second', async () => {
    const srv = await startTestApp({ keys: { reader: 'ReadVehicles', other: 'ReadCosts' } });
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

describe('token CLI', () => {
  it('issues HS256 tokens with the secret stored on first use', async () => {
    const dir = freshDataDir();
    const r = await run(process.execPath, [TOKEN_CLI, '--sub', 'user-1', '--ttl', '60'], { env: await cliEnv(dir) });
    const [h, p] = r.stdout.trim().split('.');
    expect(JSON.parse(Buffer.from(h, 'base64url').toString())).toEqual({ alg: 'HS256', typ: 'JWT' });
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString()) as { sub: string; exp: number; iat: number };
    expect(payload.sub).toBe('user-1');
    expect(payload.exp - payload.iat).toBe(60);
    const store = await openLiveStore({ dataDir: dir, databaseUrl: await databaseUrlOf(dir) });
    expect(await store.read((s) => getSetting(s, 'jwt_hs256_secret'))).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await store.close();
  });
});

