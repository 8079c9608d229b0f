import type { AppContext } from '../context.js';
import { json, type ApiResponse, type RouteDef } from '../types.js';
import type { HealthDocument, ReadyDocument } from '../schemas/service.js';

/** `GET /health`, `GET /ready` and `GET /attribution` (no key): liveness, readiness (D105), snapshot identity, data licenses. */
export function healthRoutes(ctx: AppContext): RouteDef[] {
  const m = ctx.snapshot.meta;
  const attribution = JSON.stringify({
    meta: { attribution: m.attribution, snapshot: { version: m.snapshotVersion, built_at: m.builtAt } },
  });
  return [
    {
      method: 'GET',
      path: '/health',
      answers: { status: 200, response: (s) => s.HealthDocument },
      admission: 'probe',
      notJsonApi: true,
      groups: null,
      body: false,
      handler: () =>
        json<HealthDocument>(200, {
          status: 'ok',
          snapshot: { format_version: m.formatVersion, version: m.snapshotVersion, built_at: m.builtAt, rates_date: m.ratesDate },
          uptime_seconds: Math.round((performance.now() - ctx.startedAt) / 10) / 100,
        }),
    },
    {
      method: 'GET',
      path: '/ready',
      answers: { status: 200, response: (s) => s.ReadyDocument },
      admission: 'probe',
      notJsonApi: true,
      groups: null,
      body: false,
      handler: () => ready(ctx),
    },
    {
      method: 'GET',
      path: '/attribution',
      answers: { status: 200, response: (s) => s.AttributionDocument },
      admission: 'ops',
      groups: null,
      body: false,
      handler: () => ({ status: 200, body: attribution }),
    },
  ];
}

/**
 * D105: ready when the station snapshot is loaded, price work can run and the live store can be
 * written; 503 naming every failing part otherwise. `/health` stays liveness only.
 */
async function ready(ctx: AppContext): Promise<ApiResponse> {
  const checks: ReadyDocument['checks'] = {
    snapshot: ctx.stations.size > 0 ? 'ok' : 'no stations loaded',
    pool: ctx.prices.alive() ? 'ok' : 'no pricing worker running',
    live_store: (await ctx.live.writeProblem()) ?? 'ok',
  };
  const failing = Object.entries(checks).filter(([, v]) => v !== 'ok');
  // D220: a replica that could not follow a swap across replicas still serves (ready) and says so.
  const behind = ctx.snapshots?.cluster?.behind() ?? null;
  const snapshot = { version: ctx.snapshot.meta.snapshotVersion, ...(behind === null ? {} : { cluster: behind }) };
  if (failing.length === 0) return json<ReadyDocument>(200, { status: 'ready', checks, snapshot });
  return json(503, {
    errors: [{ status: '503', code: 'SERVICE_UNAVAILABLE', title: `not ready: ${failing.map(([k, v]) => `${k} (${v})`).join(', ')}` }],
    meta: { checks },
  });
}
