/**
 * `npm run test:deploy`: the systemd unit as an operator installs it (D123), checked with Debian's
 * systemd-analyze (`apt-get install systemd`; .ci/run installs it): it verifies, rates at most 2.0
 * on `systemd-analyze security --offline=true`, runs under a dynamic user with its state in the
 * state directory, is started only once ready (ExecStartPost: wait-ready), and retries every exit
 * a restart can fix (only 2 and 3 are final).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

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
