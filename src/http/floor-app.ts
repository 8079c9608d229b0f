/**
 * The floor under a small keyed read (D295): a uWebSockets.js app that answers one fixed
 * answer (the bytes the full service returned) and does, per request, the required work of the
 * service up to a given step, each step adding to the ones before:
 *
 *   bare    the answer only (as src/http/bare-app.ts)
 *   remote  + the client's address read as text (the service's read, HeadFields.remote)
 *   log     + the access line (src/log.ts's writer, info level, to stdout as the service)
 *   limit   + the rate-limit count and its RateLimit field (D24; src/auth/rate-limit.ts)
 *   route   + the request head copied (copyHead, D285), the route looked up in a table of the
 *             API's every operation (src/http/router.ts) and the API key checked (a key map and
 *             its groups)
 *
 * Run as a child process by bench/read-floor.ts:
 *
 *   node dist/src/http/floor-app.js <spec.json>
 *
 * spec.json: { step, path, body, contentType, operations: ["GET /v1/…/:id", …], key }; prints
 * `listening <port>`.
 */
import './uws-env.js';
import uWS from 'uWebSockets.js';
import type { Method, RouteDef } from '../api/types.js';
import { GROUP_BIT } from '../auth/groups.js';
import { RateLimiter } from '../auth/rate-limit.js';
import { accessLog, createLogger } from '../log.js';
import { listenLoopback, runAsChild, type BenchApp } from './bare-app.js';
import { Router } from './router.js';
import { HeadFields, copyHead } from './server.js';

export const FLOOR_STEPS = ['bare', 'remote', 'log', 'limit', 'route'] as const;
export type FloorStep = (typeof FLOOR_STEPS)[number];

export interface FloorSpec {
  step: FloorStep;
  path: string;
  body: string;
  contentType: string;
  /** `METHOD /path/:param` of every operation of the API (the route table's shape). */
  operations: readonly string[];
  /** The one API key known, with every group. */
  key: string;
}

/** Route definitions of the table's shape; only their paths, methods and groups are read here. */
function tableOf(operations: readonly string[]): RouteDef[] {
  const out: RouteDef[] = [];
  const seen = new Set<string>();
  for (const op of operations) {
    if (seen.has(op)) continue;
    seen.add(op);
    const [method, p] = op.split(' ');
    out.push({ method: method as Method, path: p, groups: ['ReadStations'], handler: () => ({ status: 200 }) } as unknown as RouteDef);
  }
  return out;
}

/** The last RateLimit field computed (kept so that computing it is not optimised away). */
export let lastField = '';

/** `dest`: where access lines go (default stdout, as the service's). */
export function startFloorApp(spec: FloorSpec, port = 0, dest?: { write(line: string): unknown }): Promise<BenchApp> {
  const level = FLOOR_STEPS.indexOf(spec.step);
  if (level < 0) throw new Error(`unknown step ${spec.step}`);
  const body = Buffer.from(spec.body);
  const log = level >= 2 ? accessLog(createLogger('info', dest)) : null;
  const limiter = level >= 3 ? new RateLimiter({ perWindow: 1e9, windowS: 300, pricesPerWindow: 1e9, pricesWindowS: 60 }) : null;
  const router = level >= 4 ? new Router(tableOf(spec.operations)) : null;
  const keys = new Map<string, number>([[spec.key, 0x7fffffff]]);
  const fields = new HeadFields();
  let counter = 0;
  const app = uWS.App();
  app.get('/*', (res, req) => {
    const t0 = performance.now();
    let route = spec.path;
    let keyName: string | null = null;
    let remote = '';
    if (router !== null) {
      const h = copyHead(res, req, false, fields);
      remote = h.remote;
      const m = router.match(h.method, h.path);
      const mask = keys.get(h.headers.apiKey.trim()) ?? -1;
      if (m === null || 'allow' in m || mask === -1 || (mask & GROUP_BIT.ReadStations) === 0) {
        // Not the measured request: the load counts it as an error answer.
        res.cork(() => res.writeStatus('404 Not Found').end());
        return;
      }
      route = m.route.path;
      keyName = 'bench';
    } else if (level >= 1) remote = fields.remote(res);
    if (limiter !== null) {
      limiter.take(keyName ?? 'bench', false);
      // Computed as the service computes it; these answers carry the bytes of a service without limits.
      lastField = limiter.field(keyName ?? 'bench', false);
    }
    res.cork(() => {
      res.writeStatus('200 OK').writeHeader('Content-Type', spec.contentType).end(body);
    });
    if (log !== null) log(`floor-${++counter}`, 'GET', route, 200, Math.round((performance.now() - t0) * 1000) / 1000, remote, keyName, 0, body.length);
  });
  return listenLoopback(app, port, 'floor app');
}

runAsChild<FloorSpec>(import.meta.url, (spec) => startFloorApp(spec));
