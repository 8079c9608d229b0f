/**
 * What every operation shares at the HTTP level (D234): the response headers the pipeline writes
 * (src/http/respond.ts), the request headers it reads, 304 for conditional reads (D95), and the
 * HEAD and OPTIONS operations the router answers for every path (D93).
 */
import type { Answers, RouteDef } from '../types.js';

const ref = (kind: 'headers' | 'parameters' | 'responses', name: string): { $ref: string } => ({ $ref: `#/components/${kind}/${name}` });
const text = { type: 'string' } as const;

/** Response header fields, by name (components/headers). */
export const HEADERS: Record<string, object> = {
  'X-Request-Id': { description: 'The request\'s id: the one sent in `X-Request-Id` when well-formed, else a new one; on every answer', schema: text },
  ETag: { description: 'Entity tag of a cacheable answer (D95): send it in `If-None-Match` to get 304 while nothing changed', schema: text },
  'Cache-Control': { description: '`CACHE_CONTROL` (default `no-cache`: revalidate with If-None-Match)', schema: text },
  Vary: {
    description: 'What the answer varies with: `Accept` where the representation is negotiated (D236), `Accept-Language` (the ETag names it, D95), `Accept-Encoding` while compression is on, and `Origin` for a list of CORS origins',
    schema: text,
  },
  'Retry-After': { description: 'Seconds to wait before trying again', schema: { type: 'integer', minimum: 1 } },
  'RateLimit-Policy': { description: 'While rate limits are on (D217): the key\'s limits, `"requests";q=<n>;w=<s>` and `"prices";q=<n>;w=<s>` on price routes', schema: text },
  RateLimit: { description: 'While rate limits are on (D217): what is left, `"requests";r=<left>;t=<s>` and the `"prices"` item on price routes', schema: text },
  Allow: { description: 'The methods of the path', schema: text },
  Location: { description: 'The address of the resource created or found', schema: text },
  'Content-Security-Policy': { description: 'The account pages\' policy (D209): scripts of the service only, no framing', schema: text },
  'Referrer-Policy': { description: '`no-referrer`: the token in the page\'s address goes nowhere (D209)', schema: text },
  Link: { description: 'CSV answers (D238): the paging links of D235 as RFC 8288 links, `<url>; rel="next"`…, at most 10,240 bytes: `next`, `prev`, `first`, `self` are kept in that order while they fit, and the header is absent when none fits (D283)', schema: text },
  'X-More-Available': { description: 'CSV answers (D238): `meta.more_available`', schema: { type: 'string', enum: ['true', 'false'] } },
  'Price-Tile-Pending': {
    description: 'Price tiles (D278): the answer is not final, this many of the tile\'s stations are still being priced (shown without a price, or with the price of the catalog before the last write); no ETag, `Cache-Control: no-store, max-age=1`: ask again after it',
    schema: { type: 'integer', minimum: 1 },
  },
  'X-Snapshot-Version': { description: 'CSV answers (D238): `meta.snapshot_version`', schema: text },
  'Access-Control-Allow-Methods': { description: 'For an allowed Origin (D93): the path\'s methods, HEAD where it has GET, and OPTIONS', schema: text },
  'Access-Control-Allow-Headers': { description: 'For an allowed Origin (D93)', schema: text },
  'Access-Control-Max-Age': { description: 'For an allowed Origin (D93)', schema: { type: 'integer' } },
};

/** Request header parameters, by component name. */
export const PARAMETERS: Record<string, object> = {
  AcceptLanguage: { name: 'Accept-Language', in: 'header', description: 'Language of texts (D22): en, de, fr, nl, da with q-values; default en', schema: text },
  IfNoneMatch: { name: 'If-None-Match', in: 'header', description: 'ETag(s) of an earlier answer: 304 without a body while it still holds (D95)', schema: text },
  RequestId: { name: 'X-Request-Id', in: 'header', description: 'An id for this request, echoed in the answer and the logs; another form is replaced by a new id', schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' } },
  CrmDeviceId: { name: 'CRM-Device-ID', in: 'header', description: 'Accepted and ignored (the original client sends it)', schema: text },
};

/**
 * Headers of every answer (`Vary` on those with a body, and on 304 and OPTIONS where it applies);
 * of cacheable answers; of answers to a keyed route while rate limits are on, errors included.
 */
const always = { 'X-Request-Id': ref('headers', 'X-Request-Id'), Vary: ref('headers', 'Vary') };
const cached = { ETag: ref('headers', 'ETag'), 'Cache-Control': ref('headers', 'Cache-Control') };
const limited = { RateLimit: ref('headers', 'RateLimit'), 'RateLimit-Policy': ref('headers', 'RateLimit-Policy') };

const pendingHeaders = { 'Price-Tile-Pending': ref('headers', 'Price-Tile-Pending'), 'Cache-Control': ref('headers', 'Cache-Control') };
const csvHeaders = { Link: ref('headers', 'Link'), 'X-More-Available': ref('headers', 'X-More-Available'), 'X-Snapshot-Version': ref('headers', 'X-Snapshot-Version') };

/** The header fields of a route's success answer. */
export function successHeaders(r: RouteDef): Record<string, object> {
  return { ...always, ...(r.cache !== undefined ? cached : {}), ...(r.groups !== null ? limited : {}), ...(r.formats?.includes('csv') === true ? csvHeaders : {}), ...(r.partialAnswers === true ? pendingHeaders : {}) };
}

/** The answer is a JSON:API document, offered as `application/vnd.api+json` too (D236). */
export const jsonApiRoute = (r: RouteDef): boolean => r.notJsonApi !== true && r.bareBody !== true && r.clientErrors !== true;

const MEDIA_OF = { geojson: '`application/geo+json` (D237)', csv: '`text/csv` (D238)' } as const;

/**
 * What `Accept` chooses on a route, for the operation's description (OpenAPI ignores a header
 * parameter named `Accept`; the media types themselves are the success answer's `content`).
 */
export function representations(r: RouteDef): string | null {
  if (!jsonApiRoute(r)) return null;
  const more = (r.formats ?? []).map((f) => `, ${MEDIA_OF[f]}`).join('');
  return `Representations by \`Accept\`: \`application/json\` (the default), \`application/vnd.api+json\` (D236)${more}; \`application/vnd.api+json\` asked for only with a parameter other than \`profile\` → 406.`;
}

/**
 * Header fields of error answers (D106, D109, D217): the RateLimit fields on every error a keyed
 * route gives after its key's limits were taken (400, 404, 409, …), as on its successes (`keyed`:
 * the shared answers of routes that may have a key; the account routes have none but their 429).
 */
export function errorHeaders(status: string, keyed: boolean): Record<string, object> {
  const out: Record<string, object> = { ...always };
  if (status === '429' || status === '503') out['Retry-After'] = ref('headers', 'Retry-After');
  if (status === '405') out.Allow = ref('headers', 'Allow');
  return keyed || status === '429' ? { ...out, ...limited } : out;
}

/** The request header parameters of a route. */
export function headerParameters(r: RouteDef, answers: Answers): object[] {
  const out = [ref('parameters', 'RequestId')];
  if (r.cache !== undefined) out.push(ref('parameters', 'IfNoneMatch'));
  if (answers.language === true) out.push(ref('parameters', 'AcceptLanguage'));
  if (r.path === '/v1/crm/devices') out.push(ref('parameters', 'CrmDeviceId'));
  return out;
}

/** 304 of a conditional read. */
export const NOT_MODIFIED = {
  description: 'Not modified: `If-None-Match` matched the current ETag (D95); no body',
  headers: { ...always, ...cached },
};

/** A response of an operation: its own, or a reference to a shared one. */
export interface ResponseDoc {
  $ref?: string;
  description?: string;
  headers?: object;
  content?: object;
}

/** An operation as the description writes it (what a HEAD copies of its GET, and the rest). */
export interface Operation {
  operationId: string;
  summary: string;
  tags: string[];
  security: object[];
  'x-groups'?: string[];
  parameters?: object[];
  responses: Record<string, ResponseDoc>;
  [member: string]: unknown;
}

/** HEAD of a GET operation: the same statuses and headers, no body (RFC 9110 §9.3.2). */
export function headOperation(get: Operation): object {
  const responses: Record<string, object> = {};
  for (const [s, resp] of Object.entries(get.responses)) {
    responses[s] = resp.$ref !== undefined ? resp : { description: resp.description, ...(resp.headers ? { headers: resp.headers } : {}) };
  }
  return {
    operationId: `head${get.operationId.slice(3)}`,
    summary: `${get.summary} (headers only)`,
    tags: get.tags,
    security: get.security,
    ...(get['x-groups'] !== undefined ? { 'x-groups': get['x-groups'] } : {}),
    ...(get.parameters ? { parameters: get.parameters } : {}),
    responses,
  };
}

/** OPTIONS of a path: 204 with the methods, before any key check (D93). */
export function optionsOperation(pathName: string, tag: string): object {
  return {
    operationId: `options${pathName.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`,
    summary: 'The methods of the path; the CORS preflight (D93)',
    tags: [tag],
    security: [],
    responses: {
      '204': {
        description: 'No body; `Allow`, and for an allowed Origin the Access-Control-Allow-* fields',
        headers: {
          ...always,
          Allow: ref('headers', 'Allow'),
          'Access-Control-Allow-Methods': ref('headers', 'Access-Control-Allow-Methods'),
          'Access-Control-Allow-Headers': ref('headers', 'Access-Control-Allow-Headers'),
          'Access-Control-Max-Age': ref('headers', 'Access-Control-Max-Age'),
        },
      },
    },
  };
}
