/**
 * The service as a process on its port: settings refused at start with exit code 2 (D93–D97) and
 * one owner per port (REUSE_PORT).
 */
import { spawn } from 'node:child_process';
import net from 'node:net';
import { describe, expect, inject, it } from 'vitest';
import { MAIN, freshDataDir, startTestServer } from '../helpers/server.js';

describe('browser settings', () => {
  it('refuses bad settings with exit code 2', async () => {
    for (const env of [{ CORS_ORIGINS: 'https://a.example/path' }, { COMPRESSION: 'maybe' }, { COMPRESS_MIN_BYTES: '-1' }, { CACHE_MAX_AGE_S: 'x' }, { DATA_ADAPTER_ALIASES: 'legacy:nope' }, { DATA_ADAPTER_ALIASES: 'native:ext_b' }, { REUSE_PORT: 'sometimes' }]) {
      const p = spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH ?? '', DATA_DIR: freshDataDir(), SNAPSHOT: inject('testSnapshot'), PORT: '0', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
      let err = '';
      p.stderr!.on('data', (d: Buffer) => (err += d.toString()));
      const code = await new Promise<number | null>((res) => p.on('exit', res));
      expect(code, JSON.stringify(env)).toBe(2);
      expect(err).toContain(Object.keys(env)[0]);
    }
  });
});

describe('one owner per port (REUSE_PORT)', () => {
  const startOn = (port: number, env: Record<string, string> = {}) => {
    const p = spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: String(port), DATA_DIR: freshDataDir(), SNAPSHOT: inject('testSnapshot'), WORKERS: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    const listening = new Promise<boolean>((res) => {
      p.stdout!.on('data', () => out.includes('"msg":"listening"') && res(true));
      p.on('exit', () => res(false));
    });
    return { p, listening, exit: new Promise<number | null>((res) => p.on('exit', res)), err: () => err + out };
  };

  /** A port free right now (the kernel does not share ports bound as port 0, so a fixed one). */
  const freePort = () =>
    new Promise<number>((res) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const port = (s.address() as net.AddressInfo).port;
        s.close(() => res(port));
      });
    });

  it('refuses a taken port by default (exit 1, naming the port) and shares it with REUSE_PORT=on', async () => {
    const first = await startTestServer({ env: { REUSE_PORT: 'on', WORKERS: '0', PORT: String(await freePort()) } });
    try {
      const second = startOn(first.port);
      expect(await second.exit).toBe(1);
      expect(second.err()).toContain(`port ${first.port}`);
      const shared = startOn(first.port, { REUSE_PORT: 'on' });
      expect(await shared.listening, shared.err()).toBe(true);
      shared.p.kill('SIGTERM');
      expect(await shared.exit).toBe(0);
    } finally {
      await first.stop();
    }
    // An exclusive owner keeps even REUSE_PORT=on instances out.
    const owner = await startTestServer({ env: { WORKERS: '0', PORT: String(await freePort()) } });
    try {
      const other = startOn(owner.port, { REUSE_PORT: 'on' });
      expect(await other.exit).toBe(1);
    } finally {
      await owner.stop();
    }
  });
});
