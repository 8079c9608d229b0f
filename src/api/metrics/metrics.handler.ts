/**
 * `GET /metrics` (and HEAD): the Prometheus text exposition of src/metrics.ts. No key by default;
 * with `METRICS_KEY_REQUIRED=on` only keys with group ReadMetrics, sent as `Api-Key` or as
 * `Authorization: Bearer` (Prometheus' `authorization` setting, D120). Scrapes within
 * `METRICS_CACHE_MS` of an exposition share it (D233): a flood of scrapes costs one exposition per
 * window, while a Prometheus scraping every few seconds sees fresh values each time.
 */
import type { AppContext } from '../context.js';
import type { RouteDef } from '../types.js';

export function metricsRoutes(ctx: AppContext): RouteDef[] {
  const m = ctx.metrics;
  if (m === undefined) return [];
  const windowMs = ctx.config.metricsCacheMs;
  // The exposition being made or made last, and when it was started (also shared while in progress).
  let last: { at: number; text: Promise<string> } | null = null;
  const exposition = (): Promise<string> => {
    const now = performance.now();
    if (last !== null && now - last.at < windowMs) return last.text;
    const text = m.text();
    last = { at: now, text };
    text.catch(() => {
      if (last?.text === text) last = null;
    });
    return text;
  };
  return [
    {
      method: 'GET',
      path: '/metrics', answers: { status: 200, mediaType: 'text/plain', errors: ['403', '429'] },
      admission: 'ops',
      groups: ctx.config.metricsKeyRequired ? ['ReadMetrics'] : null,
      keyAsBearer: true,
      body: false,
      notJsonApi: true,
      handler: async () => ({ status: 200, body: await exposition(), headers: { 'Content-Type': m.contentType } }),
    },
  ];
}
