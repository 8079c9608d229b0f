/**
 * The access log: one JSON line per request, written by src/log.ts straight to the logger's
 * destination. It must be the line pino itself writes for the same fields, and the running
 * service must write one per request (with the request id it answered with).
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessLog, flushAccessLines } from '../../src/log.js';
import { call, keyFor, startTestApp, type TestApp } from '../helpers/server.js';

function memoryLogger(level: string) {
  const lines: string[] = [];
  const logger = pino({ level, base: { pid: 4242 }, timestamp: () => ',"time":1700000000000' }, { write: (s: string) => void lines.push(s) });
  return { logger, lines };
}

/** Past the time access lines wait to be written together (20 ms, D284; timers fire in order). */
const turnEnd = (): Promise<void> => new Promise((r) => setTimeout(r, 30));

describe('access log line', () => {
  const cases: [string, string, string | null, number, number, string, string | null, number, number][] = [
    ['abc-123', 'GET', '/v1/charging_stations/:id', 200, 0.123, '127.0.0.1', 'map-client', 0, 906],
    ['he said "hi" \\ ⚡ \u0001', 'POST', '/v1/charge_prices', 503, 12, '::1', 'key "quoted" \\ ⚡', 1234, 78],
    ['x', 'DELETE', null, 404, 0, '0000:0000:0000:0000:0000:ffff:7f00:0001', null, 0, 0],
  ];

  it('is byte for byte the line pino writes for logger.info({reqId, method, route, status, ms, remoteAddress, keyName, bytesIn, bytesOut}, "request")', async () => {
    for (const [reqId, method, route, status, ms, remoteAddress, keyName, bytesIn, bytesOut] of cases) {
      const fast = memoryLogger('info');
      accessLog(fast.logger)(reqId, method, route, status, ms, remoteAddress, keyName, bytesIn, bytesOut);
      await turnEnd();
      const slow = memoryLogger('info');
      slow.logger.info({ reqId, method, route, status, ms, remoteAddress, keyName, bytesIn, bytesOut }, 'request');
      expect(fast.lines).toEqual(slow.lines);
      expect(JSON.parse(fast.lines[0])).toMatchObject({ level: 30, pid: 4242, reqId, method, route, status, ms, remoteAddress, keyName, bytesIn, bytesOut, msg: 'request' });
    }
  });

  it('adds the path of a request to no route, cut to 200 characters, as pino writes the same fields', async () => {
    for (const path of ['/v1/nothing?x="y"', `/${'a'.repeat(300)}`]) {
      const fast = memoryLogger('info');
      accessLog(fast.logger)('r', 'GET', null, 404, 0, '::1', null, 0, 10, path);
      await turnEnd();
      const slow = memoryLogger('info');
      slow.logger.info({ reqId: 'r', method: 'GET', route: null, path: path.slice(0, 200), status: 404, ms: 0, remoteAddress: '::1', keyName: null, bytesIn: 0, bytesOut: 10 }, 'request');
      expect(fast.lines).toEqual(slow.lines);
    }
    // A routed request's line has no path (the route template says it, the path may hold ids).
    const routed = memoryLogger('info');
    accessLog(routed.logger)('r', 'GET', '/v1/companies/:id', 200, 0, '::1', null, 0, 10, '/v1/companies/abc');
    await turnEnd();
    expect(JSON.parse(routed.lines[0]).path).toBeUndefined();
  });

  it('adds the trace and server span ids of a traced request as pino writes the same fields (D251)', async () => {
    const trace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const span = '00f067aa0ba902b7';
    for (const path of [undefined, '/v9/nothing']) {
      const fast = memoryLogger('info');
      accessLog(fast.logger)('r', 'GET', path === undefined ? '/health' : null, 200, 1, '::1', null, 0, 10, path, trace, span);
      await turnEnd();
      const slow = memoryLogger('info');
      slow.logger.info({ reqId: 'r', method: 'GET', route: path === undefined ? '/health' : null, ...(path !== undefined ? { path } : {}), status: 200, ms: 1, remoteAddress: '::1', keyName: null, bytesIn: 0, bytesOut: 10, trace_id: trace, span_id: span }, 'request');
      expect(fast.lines).toEqual(slow.lines);
    }
    // An untraced request ('' from an unsampled trace) has neither.
    const none = memoryLogger('info');
    accessLog(none.logger)('r', 'GET', '/health', 200, 1, '::1', null, 0, 10, undefined, '', '');
    await turnEnd();
    expect(JSON.parse(none.lines[0])).not.toHaveProperty('trace_id');
  });

  it('writes nothing below level info, and follows a level changed at run time', async () => {
    const m = memoryLogger('warn');
    const log = accessLog(m.logger);
    log('a', 'GET', '/health', 200, 1, '127.0.0.1', null, 0, 10);
    await turnEnd();
    expect(m.lines).toEqual([]);
    m.logger.level = 'info';
    log('b', 'GET', '/health', 200, 1, '127.0.0.1', null, 0, 10);
    await turnEnd();
    expect(m.lines).toHaveLength(1);
  });

  it('hands the lines of 20 ms to the destination as one write, in order, each the line pino writes (D284)', async () => {
    const fast = memoryLogger('info');
    const slow = memoryLogger('info');
    const log = accessLog(fast.logger);
    for (const [reqId, method, route, status, ms, remoteAddress, keyName, bytesIn, bytesOut] of cases) {
      log(reqId, method, route, status, ms, remoteAddress, keyName, bytesIn, bytesOut);
      slow.logger.info({ reqId, method, route, status, ms, remoteAddress, keyName, bytesIn, bytesOut }, 'request');
    }
    expect(fast.lines).toEqual([]);
    await turnEnd();
    expect(fast.lines).toEqual([slow.lines.join('')]);
    // Later lines are the next write.
    log('later', 'GET', '/health', 200, 1, '::1', null, 0, 10);
    await turnEnd();
    expect(fast.lines).toHaveLength(2);
    expect(JSON.parse(fast.lines[1])).toMatchObject({ reqId: 'later', msg: 'request' });
  });

  it('writes at once when 16 KiB of lines wait, and flushAccessLines writes what waits (D284)', () => {
    const m = memoryLogger('info');
    const log = accessLog(m.logger);
    const long = 'x'.repeat(100);
    let n = 0;
    while (m.lines.length === 0 && n < 1000) log(`${long}-${n++}`, 'GET', '/health', 200, 1, '::1', null, 0, 10);
    expect(m.lines).toHaveLength(1);
    expect(m.lines[0].length).toBeGreaterThanOrEqual(16 * 1024);
    expect(m.lines[0].split('\n').filter((l) => l.length > 0)).toHaveLength(n);
    log('waiting', 'GET', '/health', 200, 1, '::1', null, 0, 10);
    expect(m.lines).toHaveLength(1);
    flushAccessLines();
    expect(m.lines).toHaveLength(2);
    expect(JSON.parse(m.lines[1])).toMatchObject({ reqId: 'waiting' });
  });

  it('writes the lines still waiting when the process exits (D284)', () => {
    const log = path.resolve('dist/src/log.js');
    const script = `import { createLogger, accessLog } from ${JSON.stringify(log)};
      const a = accessLog(createLogger('info'));
      for (let i = 0; i < 3; i++) a('exit-' + i, 'GET', '/health', 200, 1, '::1', null, 0, 10);
      process.exit(0);`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(0);
    const ids = r.stdout
      .split('\n')
      .filter((l) => l.length > 0)
      .map((l) => (JSON.parse(l) as { reqId: string }).reqId);
    expect(ids).toEqual(['exit-0', 'exit-1', 'exit-2']);
  });
});

describe('access log of the running service', () => {
  let srv: TestApp;
  beforeAll(async () => {
    srv = await startTestApp({ keys: { 'map-client': 'ReadCosts' } });
  });
  afterAll(async () => {
    await srv.stop();
  });

  it('writes one line per request, with the request id, route, status, time, client, key name and bytes', async () => {
    const ids = ['log-check-1', 'log-check-2', 'log-check-3'];
    const health = await call(srv, 'GET', '/health', { headers: { 'X-Request-Id': ids[0] } });
    const miss = await call(srv, 'GET', '/v9/nothing', { headers: { 'X-Request-Id': ids[1] } });
    expect(miss.status).toBe(404);
    const raw = '{"data":{"type":"charge_price_request"}}';
    const priced = await call(srv, 'POST', '/v1/charge_prices', { key: keyFor('map-client'), raw, headers: { 'X-Request-Id': ids[2] } });
    expect(priced.status).toBe(400);
    const linesOf = (id: string) =>
      srv
        .stdout()
        .split('\n')
        .filter((l) => l.startsWith('{') && l.includes(`"reqId":"${id}"`))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline && ids.some((id) => linesOf(id).length === 0)) await new Promise((r) => setTimeout(r, 20));
    const [line] = linesOf(ids[0]);
    expect(linesOf(ids[0])).toHaveLength(1);
    expect(line).toMatchObject({ level: 30, method: 'GET', route: '/health', status: 200, remoteAddress: '127.0.0.1', keyName: null, bytesIn: 0, msg: 'request' });
    expect(line.bytesOut).toBe(Buffer.byteLength(health.text));
    expect(typeof line.ms).toBe('number');
    expect(typeof line.time).toBe('number');
    expect(typeof line.pid).toBe('number');
    // A request to no route says which path it asked for (D129); routed ones do not.
    expect(linesOf(ids[1])).toEqual([expect.objectContaining({ route: null, path: '/v9/nothing', status: 404, msg: 'request' })]);
    expect(line.path).toBeUndefined();
    // The key's name, never the key.
    expect(linesOf(ids[2])).toEqual([expect.objectContaining({ route: '/v1/charge_prices', status: 400, keyName: 'map-client', bytesIn: raw.length, bytesOut: Buffer.byteLength(priced.text) })]);
    expect(srv.stdout()).not.toContain(keyFor('map-client'));
  });
});
