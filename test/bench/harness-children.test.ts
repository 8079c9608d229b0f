import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { spawnAndWait } from '../../bench/lib/harness.js';

/** The benches' child processes (bench/lib/harness.ts). */
describe('spawnAndWait', () => {
  const child = () =>
    spawnAndWait(['-e', "console.log('listening 4242'); setInterval(() => {}, 1000)"], {}, (line) => (line === 'listening 4242' ? 4242 : null));

  it('when a child was ended by a signal during the run, then stop resolves at once and the run is marked failed', { timeout: 30_000 }, async () => {
    const c = await child();
    expect(c.port).toBe(4242);
    const gone = once(c.proc, 'exit');
    c.proc.kill('SIGKILL');
    await gone;
    expect(process.exitCode).toBe(1);
    process.exitCode = undefined;
    const stopped = await Promise.race([c.stop().then(() => 'stopped'), new Promise((r) => setTimeout(() => r('still waiting'), 5_000))]);
    expect(stopped).toBe('stopped');
  });

  it('when a child is stopped, then it ends by SIGTERM and the run is not marked failed', { timeout: 30_000 }, async () => {
    const c = await child();
    await c.stop();
    expect(c.proc.signalCode).toBe('SIGTERM');
    expect(process.exitCode).toBeUndefined();
    await c.stop();
  });
});
