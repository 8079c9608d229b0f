// Settings of replicas: SNAPSHOT_URL_PREFIXES and SNAPSHOT_SWAP_WAIT_MS (D220), SHARED_STATE_URL (D221).
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { urlAllowed } from '../../src/api/admin/admin.handler.js';

describe('snapshot URL settings (D220)', () => {
  it('reads prefixes and the wait; none and 60 s by default', () => {
    expect(loadConfig({}).snapshotUrlPrefixes).toEqual([]);
    expect(loadConfig({}).snapshotSwapWaitMs).toBe(60_000);
    const c = loadConfig({ SNAPSHOT_URL_PREFIXES: ' https://files.example/snapshots/ , http://10.0.0.5:8000/', SNAPSHOT_SWAP_WAIT_MS: '0' });
    expect(c.snapshotUrlPrefixes).toEqual(['https://files.example/snapshots/', 'http://10.0.0.5:8000/']);
    expect(c.snapshotSwapWaitMs).toBe(0);
  });

  it('refuses prefixes that are not http(s) with a host and a path (a bare host would allow a longer host name)', () => {
    for (const v of ['files.example/snapshots/', 'ftp://files.example/', 'https://', 'https://files.example', 'file:///srv/']) {
      expect(() => loadConfig({ SNAPSHOT_URL_PREFIXES: v }), v).toThrow(ConfigError);
    }
    expect(() => loadConfig({ SNAPSHOT_SWAP_WAIT_MS: '-1' })).toThrow(ConfigError);
  });

  it('allows a URL only under a prefix', () => {
    const p = ['https://files.example/snapshots/'];
    expect(urlAllowed(p, 'https://files.example/snapshots/de.sqlite')).toBe(true);
    expect(urlAllowed(p, 'https://files.example/other/de.sqlite')).toBe(false);
    expect(urlAllowed(p, 'https://files.example.evil/snapshots/de.sqlite')).toBe(false);
    expect(urlAllowed([], 'https://files.example/snapshots/de.sqlite')).toBe(false);
  });
});

describe('SHARED_STATE_URL (D221)', () => {
  const db = 'postgres://cps@127.0.0.1:5432/cps';
  it('names a second PostgreSQL database; unset or the same as DATABASE_URL is none', () => {
    expect(loadConfig({ DATABASE_URL: db }).sharedStateUrl).toBeNull();
    expect(loadConfig({ DATABASE_URL: db, SHARED_STATE_URL: db }).sharedStateUrl).toBeNull();
    expect(loadConfig({ DATABASE_URL: db, SHARED_STATE_URL: 'postgresql://cps@10.0.0.7/state' }).sharedStateUrl).toBe('postgresql://cps@10.0.0.7/state');
  });

  it('refuses Redis (with the reason), other schemes, and a shared store without DATABASE_URL', () => {
    expect(() => loadConfig({ DATABASE_URL: db, SHARED_STATE_URL: 'redis://127.0.0.1:6379' })).toThrow(/Redis is not supported.*D221/);
    expect(() => loadConfig({ DATABASE_URL: db, SHARED_STATE_URL: 'rediss://cache.example:6380/0' })).toThrow(ConfigError);
    expect(() => loadConfig({ DATABASE_URL: db, SHARED_STATE_URL: 'mysql://x/y' })).toThrow(ConfigError);
    expect(() => loadConfig({ DATABASE_URL: db, SHARED_STATE_URL: 'not a url' })).toThrow(ConfigError);
    expect(() => loadConfig({ SHARED_STATE_URL: 'postgres://cps@127.0.0.1/state' })).toThrow(/needs DATABASE_URL/);
  });
});
