/**
 * `GET /metrics` (and HEAD): the Prometheus text exposition of src/metrics.ts. No key by default;
 * with `METRICS_KEY_REQUIRED=on` only keys with group ReadMetrics, sent as `Api-Key` or as
 * `Authorization: Bearer` (Prometheus' `authorization` setting, D120).
 */
import type { AppContext } from '../context.js';
import type { RouteDef } from '../types.js';

export function metricsRoutes(ctx: AppContext): RouteDef[] {
  const m = ctx.metrics;
  if (m === undefined) return [];
  return [
    {
      method: 'GET',
      path: '/metrics',
      admission: 'ops',
      groups: ctx.config.metricsKeyRequired ? ['ReadMetrics'] : null,
      keyAsBearer: true,
      body: false,
      handler: async () => ({ status: 200, body: await m.text(), headers: { 'Content-Type': m.contentType } }),
    },
  ];
}
