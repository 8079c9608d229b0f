/**
 * `npm start` and `npm run wait-ready`: stopping npm stops the service (the start script execs
 * node, so npm's SIGTERM reaches it); wait-ready exits 0 once /ready answers 200 and 1 after its
 * timeout when nothing gets ready (the systemd unit's ExecStartPost, D123).
 */
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import { ROOT, freshDataDir } from '../helpers/server.js';

const run = promisify(execFile);

describe('npm start and wait-ready', () => {
  it('stops the service when npm is stopped, and wait-ready sees it ready', { timeout: 60_000 }, async () => {
    const env = { ...process.env, PORT: '0', DATA_DIR: freshDataDir(), SNAPSHOT: inject('testSnapshot'), WORKERS: '0', LOG_LEVEL: 'info', DATABASE_URL: '' };
    const npm = spawn('npm', ['start', '--silent'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no listening line:\n${out}`)), 30_000);
      npm.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /"port":(\d+)[^\n]*"msg":"listening"/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(Number(m[1]));
        }
      });
    });
    const ready = await run(process.execPath, ['dist/src/cli/wait-ready.js', '--timeout', '20'], { cwd: ROOT, env: { ...env, PORT: String(port) } });
    expect(ready.stderr).toBe('');
    const exited = new Promise<number | null>((resolve) => npm.on('exit', (code) => resolve(code)));
    npm.kill('SIGTERM');
    await exited;
    // The service itself is gone: its port refuses connections.
    const deadline = Date.now() + 10_000;
    let answering = true;
    while (answering && Date.now() < deadline) {
      answering = await fetch(`http://127.0.0.1:${port}/health`).then(
        () => true,
        () => false,
      );
      if (answering) await new Promise((r) => setTimeout(r, 100));
    }
    expect(answering).toBe(false);
  });

  it('wait-ready gives up after its timeout with exit code 1 and says what it waited for', async () => {
    const r = await run(process.execPath, ['dist/src/cli/wait-ready.js', '--timeout', '1'], { cwd: ROOT, env: { ...process.env, PORT: '1', DATA_DIR: freshDataDir() } }).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('http://127.0.0.1:1/ready not ready after 1 s');
  });
});
