/**
 * `npm run test:install`: the production install. The checkout's files (tracked and new, as in the
 * working tree) and the compiled dist/ are copied into an empty directory, `npm ci --omit=dev`
 * installs the runtime dependencies only (no TypeScript, tsx or test tools), `npm run prune:uws`
 * keeps only this platform's HTTP core binary, and then `npm start`
 * serves real data (the default snapshot is built from snapshots/sources on first start) and the
 * CLIs run from dist/. Prints the install and start-up times.
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');

describe('production install (npm ci --omit=dev)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cps-install-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('serves real data and runs the CLIs without TypeScript, tsx or dev tools', { timeout: 600_000 }, async () => {
    const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: ROOT }).toString().split('\0').filter((f) => f.length > 0);
    for (const f of files) {
      if (!fs.existsSync(path.join(ROOT, f))) continue;
      fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
      fs.copyFileSync(path.join(ROOT, f), path.join(dir, f));
    }
    fs.cpSync(path.join(ROOT, 'dist'), path.join(dir, 'dist'), { recursive: true });
    const t0 = performance.now();
    await run('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund'], { cwd: dir, env: process.env, maxBuffer: 64 << 20 });
    const installS = (performance.now() - t0) / 1000;
    const before = execFileSync('du', ['-sm', path.join(dir, 'node_modules')]).toString().split('\t')[0];
    // Only this platform's HTTP core binary.
    await run('npm', ['run', '--silent', 'prune:uws'], { cwd: dir, env: process.env });
    for (const dev of ['typescript', 'tsx', 'vitest', 'eslint', 'autocannon', 'fastify']) {
      expect(fs.existsSync(path.join(dir, 'node_modules', dev)), dev).toBe(false);
    }
    const dataDir = path.join(dir, 'data');
    const t1 = performance.now();
    const proc = spawn('npm', ['start', '--silent'], { cwd: dir, env: { ...process.env, PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    try {
      const port = await new Promise<number>((resolve, reject) => {
        let out = '';
        let err = '';
        const timer = setTimeout(() => reject(new Error(`no listening line:\n${out}\n${err}`)), 120_000);
        proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
        proc.stdout!.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /"port":(\d+)[^\n]*"msg":"listening"/.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve(Number(m[1]));
          }
        });
        proc.on('exit', (code) => reject(new Error(`npm start exited with ${code}:\n${out}\n${err}`)));
      });
      const startS = (performance.now() - t1) / 1000;
      const ready = await fetch(`http://127.0.0.1:${port}/ready`);
      expect(ready.status).toBe(200);
      const key = fs.readFileSync(path.join(dataDir, 'dev-key.txt'), 'utf8').trim();
      const near = await fetch(`http://127.0.0.1:${port}/v1/charging_stations?filter[latitude]=48.8566&filter[longitude]=2.3522&filter[radius]=2000&page[size]=5`, { headers: { 'Api-Key': key } });
      expect(near.status).toBe(200);
      expect(((await near.json()) as { data: unknown[] }).data.length).toBe(5);
      const keys = await run('npm', ['run', '--silent', 'keys', '--', 'list'], { cwd: dir, env: { ...process.env, DATA_DIR: dataDir } });
      expect(keys.stdout).toContain('development');
      const help = await run('npm', ['run', '--silent', 'snapshot:build', '--', '--help'], { cwd: dir, env: process.env });
      expect(help.stdout).toContain('usage');
      const after = execFileSync('du', ['-sm', path.join(dir, 'node_modules')]).toString().split('\t')[0];
      console.log(`npm ci --omit=dev: ${installS.toFixed(1)} s; node_modules ${before} MB, ${after} MB after prune:uws; npm start to listening (default snapshot built on first start): ${startS.toFixed(1)} s`);
    } finally {
      try {
        process.kill(-proc.pid!, 'SIGTERM');
      } catch {
        /* gone */
      }
    }
  });
});
