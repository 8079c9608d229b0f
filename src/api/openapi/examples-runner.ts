/**
 * Sends every example request of the OpenAPI description (D121) to a running service, writes
 * before the deletes that undo them, and returns each answer. `npm run openapi:examples` keeps the
 * answers as the description's example responses; the test suite checks that each example is
 * accepted and that each answer, stored or live, matches its schema.
 */
import { OPERATIONS } from './operations.js';

export interface ExampleResult {
  key: string;
  status: number;
  contentType: string;
  body: unknown;
}

/** Writes first (the price profile before its tiles), the deletes of what they created last (the tariff before its EMP). */
const LAST = ['DELETE /v2/tariffs/:id', 'DELETE /v1/companies/:id', 'POST /admin/snapshot'];
const FIRST = ['PUT /v1/companies/:id', 'PUT /v2/tariffs/:id', 'POST /v1/price_profiles'];

export function exampleOrder(keys: readonly string[]): string[] {
  const rank = (k: string): number => (FIRST.includes(k) ? FIRST.indexOf(k) - 10 : LAST.includes(k) ? 10 + LAST.indexOf(k) : 0);
  return [...keys].sort((a, b) => rank(a) - rank(b));
}

/** One request to the service: over HTTP (`overHttp`) or in process (the service's `request`). */
export type Send = (method: string, path: string, headers: Record<string, string>, body: string | undefined) => Promise<{ status: number; contentType: string; text: string }>;

/** Sends to a running service at `baseUrl`. */
export const overHttp =
  (baseUrl: string): Send =>
  async (method, path, headers, body) => {
    const r = await fetch(baseUrl + path, { method, headers, body });
    return { status: r.status, contentType: r.headers.get('content-type') ?? '', text: await r.text() };
  };

/** `keys`: the operations to run (those the service has routes for). `token`: a device bearer token. */
export async function runExamples(send: Send, apiKey: string, token: string, keys: readonly string[]): Promise<ExampleResult[]> {
  const out: ExampleResult[] = [];
  for (const key of exampleOrder(keys)) {
    const op = OPERATIONS[key];
    if (op.example.stateful === true) continue;
    const method = key.slice(0, key.indexOf(' '));
    const headers: Record<string, string> = { 'Api-Key': apiKey };
    for (const [h, v] of Object.entries(op.example.headers ?? {})) headers[h] = h === 'Authorization' ? `Bearer ${token}` : v;
    if (op.example.body !== undefined) headers['Content-Type'] = 'application/json';
    const { status, contentType, text } = await send(method, op.example.path, headers, op.example.body === undefined ? undefined : JSON.stringify(op.example.body));
    // A binary answer is described, not quoted.
    const body: unknown = contentType.includes('json') && text.length > 0 ? JSON.parse(text) : contentType.startsWith('application/vnd.mapbox-vector-tile') ? '(a Mapbox Vector Tile)' : text;
    out.push({ key, status, contentType, body });
  }
  return out;
}

/**
 * An answer shortened for the description: at most two objects per array (short arrays of
 * numbers, such as a bounding box, whole), long texts cut.
 */
export function shorten(body: unknown, depth = 0): unknown {
  if (typeof body === 'string') return body.length > 600 ? `${body.slice(0, 600)}…` : body;
  if (Array.isArray(body)) return body.slice(0, body.every((x) => typeof x === 'number') ? 4 : 2).map((x) => shorten(x, depth + 1));
  if (body !== null && typeof body === 'object') {
    const o: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(body)) {
      // The description's own example would contain itself: keep its head.
      if (depth === 0 && (k === 'paths' || k === 'components')) o[k] = {};
      else o[k] = shorten(v, depth + 1);
    }
    return o;
  }
  return body;
}
