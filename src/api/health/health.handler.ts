import type { AppContext } from '../context.js';
import { json, type RouteDef } from '../types.js';

/** `GET /health` (no key) and `GET /attribution` (no key): liveness, snapshot identity, data licenses. */
export function healthRoutes(ctx: AppContext): RouteDef[] {
  const m = ctx.snapshot.meta;
  const attribution = JSON.stringify({
    meta: { attribution: m.attribution, snapshot: { version: m.snapshotVersion, built_at: m.builtAt } },
  });
  return [
    {
      method: 'GET',
      path: '/health',
      groups: null,
      body: false,
      handler: () =>
        json(200, {
          status: 'ok',
          snapshot: { format_version: m.formatVersion, version: m.snapshotVersion, built_at: m.builtAt, rates_date: m.ratesDate },
          uptime_seconds: Math.round((performance.now() - ctx.startedAt) / 10) / 100,
        }),
    },
    {
      method: 'GET',
      path: '/attribution',
      groups: null,
      body: false,
      handler: () => ({ status: 200, body: attribution }),
    },
  ];
}
