/**
 * `npm run wait-ready` (`node dist/src/cli/wait-ready.js`): waits until the service at HOST:PORT
 * answers `GET /ready` with 200 (D105), then exits 0; exit 1 after `--timeout` seconds (default
 * 300). The systemd unit runs it as `ExecStartPost`, so the unit is started only once the service
 * is ready (its snapshot loaded, the live store open), and a start that never gets ready fails.
 */
import { cliConfig, fail, parseCli } from './common.js';

const USAGE = `usage: wait-ready [--timeout <seconds>]

Waits until GET /ready of the service at HOST:PORT answers 200 (exit 0); exit 1 after the timeout.`;

const { values } = parseCli(process.argv.slice(2), { timeout: { type: 'string', default: '300' } }, USAGE);
const timeoutS = Number(values.timeout);
if (!(timeoutS > 0)) fail('--timeout must be a number of seconds above 0');
const config = cliConfig();
// A service listening on every address is reached on the loopback.
const host = config.host === '0.0.0.0' || config.host === '::' || config.host === '' ? '127.0.0.1' : config.host;
const url = `http://${host.includes(':') ? `[${host}]` : host}:${config.port}/ready`;
const deadline = Date.now() + timeoutS * 1000;
let last = 'no answer';
while (Date.now() < deadline) {
  try {
    const r = await fetch(url, { signal: AbortSignal.timeout(2000) });
    if (r.status === 200) process.exit(0);
    last = `${r.status} ${(await r.text()).slice(0, 200)}`;
  } catch (e) {
    last = (e as Error).message;
  }
  await new Promise((done) => setTimeout(done, 200));
}
process.stderr.write(`wait-ready: ${url} not ready after ${timeoutS} s (last: ${last})\n`);
process.exit(1);
