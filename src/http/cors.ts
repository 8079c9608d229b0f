/**
 * Cross-origin access (D93). Browser clients on other origins send `Api-Key`, a JSON
 * `Content-Type` (even on GET), `Accept` (a JSON:API profile or a long value is not
 * CORS-safelisted), `Accept-Language` and, for device registration, `Authorization`, so every
 * call is preflighted: `OPTIONS` on a known path answers 204 with the path's methods and
 * these headers, without a key. Every other answer, errors included, carries the allowed origin
 * and the headers scripts may read. Hand-written: the `cors` package is Express middleware; what
 * it would do here is these few header lines.
 */
export const ALLOW_HEADERS = 'Api-Key, Content-Type, Accept, Accept-Language, Authorization, CRM-Device-ID, X-Request-Id, If-None-Match';
export const EXPOSE_HEADERS = 'X-Request-Id, Retry-After, ETag, RateLimit, RateLimit-Policy, Link, X-More-Available, X-Snapshot-Version';
/** Browsers cap it (Chromium at 2 h); longer would not save preflights. */
export const MAX_AGE_S = 7200;

export interface CorsPolicy {
  /** `Access-Control-Allow-Origin` for a request's `Origin` header, or null (no CORS headers). */
  allowOrigin(origin: string): string | null;
  /** Whether answers depend on the `Origin` header (`Vary: Origin`). */
  readonly varyOrigin: boolean;
}

/** `*`: any origin; a list: exact origins (scheme, host, port), echoed; null: no CORS. */
export function corsPolicy(origins: '*' | readonly string[] | null): CorsPolicy | null {
  if (origins === null) return null;
  if (origins === '*') return { allowOrigin: () => '*', varyOrigin: false };
  const set = new Set(origins);
  return {
    allowOrigin: (origin) => (origin.length > 0 && set.has(origin.toLowerCase()) ? origin : null),
    varyOrigin: true,
  };
}
