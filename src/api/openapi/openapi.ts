/**
 * The OpenAPI 3.1 description of the route table (D121), served at `GET /openapi.json` without a
 * key, and the docs page at `GET /docs` rendering it with the self-hosted Swagger UI of the
 * `swagger-ui-dist` package (no CDN: it works offline).
 *
 * The document is generated from the route table itself (every route is an operation; a route
 * without an entry in OPERATIONS, or an entry without a route, stops the start with an error),
 * each operation's query, body and answers are those the route states (RouteDef), the request
 * bodies' JSON Schemas the objects their validators compile, and the example
 * answers are captured from the running service (`npm run openapi:examples`).
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Answers, ApiRequest, ApiResponse, RouteDef } from '../types.js';
import { notFound } from '../jsonapi/errors.js';
import type { QueryParam } from '../jsonapi/query.js';
import { EXAMPLE_RESPONSES } from './examples.generated.js';
import { ACCOUNT_OPERATIONS, OPERATIONS, type OperationDoc } from './operations.js';
import type * as Schemas from '../schemas/index.js';
import { errorHeaders, headerParameters, headOperation, HEADERS, jsonApiRoute, representations, NOT_MODIFIED, type Operation, optionsOperation, PARAMETERS, type ResponseDoc, successHeaders } from './http-parts.js';

/** Answers are JSON:API documents sent as `application/json` (D12), or as JSON:API's type when asked for (D236); request bodies may use either type. */
const JSON_MEDIA = 'application/json';
const JSON_API_MEDIA = 'application/vnd.api+json';

/** The description's own answer: its schema is OpenAPI 3.1's, checked by test/http/openapi.test.ts. */
const OPENAPI_DOCUMENT_SCHEMA = {
  type: 'object',
  required: ['openapi', 'info', 'paths', 'components'],
  properties: { openapi: { const: '3.1.0' } },
  externalDocs: { description: 'The OpenAPI 3.1 schema', url: 'https://spec.openapis.org/oas/3.1/schema/2022-10-07' },
};

/**
 * Shapes written once in /components/schemas and referred to wherever they occur (D234): the
 * answer schemas are TypeBox objects shared by identity, so a shared object becomes a `$ref`.
 */
const named = (S: typeof Schemas): readonly (readonly [string, object])[] => [
  ['Errors', S.ErrorsDocument],
  ['ClientErrors', S.ClientErrorsDocument],
  ['ChargingStation', S.StationInList],
  ['ChargingStationSingle', S.StationSingle],
  ['ChargePoint', S.ChargePoint],
  ['IncludedCompany', S.IncludedCompany],
  ['StationCluster', S.Cluster],
  ['Company', S.Company],
  ['CompanyInList', S.CompanyInList],
  ['RawTariff', S.RawTariff],
  ['RawTariffInList', S.RawTariffInList],
  ['PriceComponent', S.PriceComponent],
  ['SimpleTariff', S.SimpleTariff],
  ['ChargePrice', S.ChargePrice],
  ['ChargePricePreview', S.Preview],
  ['AreaPricePreview', S.AreaPreview],
  ['RoutePricePreview', S.RoutePreview],
  ['CdrCost', S.CdrCostAttributes],
  ['TripPlan', S.TripPlan],
  ['PriceProfile', S.PriceProfile],
  ['CarV1', S.CarV1],
  ['CarV2', S.CarV2],
  ['Coordinates', S.Coordinates],
  ['PageLinks', S.PageLinks],
];

/** `value` with every named schema (but the top one) replaced by its `$ref`. */
function withRefs(value: unknown, names: ReadonlyMap<object, string>, top = true): unknown {
  if (value === null || typeof value !== 'object') return value;
  const name = top ? undefined : names.get(value);
  if (name !== undefined) return { $ref: `#/components/schemas/${name}` };
  if (Array.isArray(value)) return value.map((v) => withRefs(v, names, false));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = withRefs(v, names, false);
  return out;
}

const ERROR_TEXT: Record<string, string> = {
  '401': 'Wrong email or password, or a refresh token that cannot be used (D201, D204)',
  '400': 'Bad request: a wrong type, a missing field, an over-limit value (`source.pointer` or `source.parameter` says where)',
  '403': 'Key missing, invalid, or without the group of the operation',
  '404': 'Unknown id',
  '405': 'Method not allowed (the `Allow` header lists the path’s methods)',
  '406': '`Accept` names `application/vnd.api+json` only with media type parameters other than `profile` (JSON:API 1.1, D236)',
  '409': 'Version conflict: `version` must be the stored version + 1, or 1 to create (D47); or a conflicting operation',
  '413': 'Body too large',
  '414': 'Request target (path and query) longer than 8,192 bytes (D283)',
  '415': 'Content type not JSON, or the JSON:API type with a parameter other than `profile` (D12, D236)',
  '422': 'No trip plan reaches the destination (D271): `meta.runs_out` says where the car runs out',
  '429': 'Rate limit exceeded (`Retry-After`; `RateLimit` and `RateLimit-Policy` state the limits, D217)',
  '500': 'The pricing worker of this request died; it is replaced and the service keeps serving (no internals in the answer)',
  '503': 'Overloaded or storage unavailable (`Retry-After`)',
};

/** An answer of each error status, as the service gives it (D5). */
const ERROR_EXAMPLE: Record<string, { code: string; title: string; source?: Record<string, string> }> = {
  '400': { code: 'BAD_REQUEST', title: 'filter[radius] must be an integer', source: { parameter: 'filter[radius]' } },
  '401': { code: 'UNAUTHORIZED', title: 'wrong email or password' },
  '403': { code: 'FORBIDDEN', title: 'api_key missing' },
  '404': { code: 'NOT_FOUND', title: 'charging station 00000000-0000-4000-8000-000000000000' },
  '405': { code: 'METHOD_NOT_ALLOWED', title: 'method not allowed' },
  '406': { code: 'NOT_ACCEPTABLE', title: 'Accept names application/vnd.api+json only with media type parameters other than profile' },
  '409': { code: 'VERSION_CONFLICT', title: 'Version conflict' },
  '413': { code: 'PAYLOAD_TOO_LARGE', title: 'request body too large' },
  '414': { code: 'URI_TOO_LONG', title: 'request target longer than 8192 bytes' },
  '415': { code: 'UNSUPPORTED_MEDIA_TYPE', title: 'unsupported media type' },
  '422': { code: 'NO_TRIP_PLAN', title: 'no trip plan reaches the destination' },
  '429': { code: 'TOO_MANY_REQUESTS', title: 'rate limit exceeded' },
  '500': { code: 'INTERNAL_SERVER_ERROR', title: 'internal error (request cps-1a2b-4f)' },
  '503': { code: 'SERVICE_UNAVAILABLE', title: 'overloaded, retry later' },
};

/** The example of an error status in D5's shape (`E`) or the account routes' shape (`C`, D201). */
function errorExample(status: string, kind: 'E' | 'C'): object {
  const e = ERROR_EXAMPLE[status];
  return { errors: [kind === 'E' ? { status, ...e } : { status: Number(status), message: e.title, ...e }] };
}

/** Which error answers an operation can give. */
function errorsOf(r: RouteDef, doc: OperationDoc): string[] {
  const out: string[] = [];
  if (r.body || r.path.includes(':') || queryOf(r, doc).length > 0) out.push('400');
  if (r.groups !== null) out.push('403');
  // A pricing worker that dies during the request: 500, the worker replaced, the service serving (test/pool).
  if (r.priceWork === true) out.push('500');
  if (r.path.includes(':') || r.body) out.push('404');
  out.push('405');
  // D283: from the pipeline, before routing, on every route.
  out.push('414');
  if (jsonApiRoute(r)) out.push('406');
  if (((r.method === 'PUT' || r.method === 'DELETE') && r.clientErrors !== true) || r.path === '/admin/snapshot') out.push('409');
  if (r.body) out.push('413', '415');
  // Keys have rate limits (D24); the account routes have guessing limits (D207, D209, D212).
  if (r.groups !== null || r.clientErrors === true) out.push('429');
  // Every route but the probes can be refused for load (D106, D176); /ready answers 503 when not ready.
  if (r.admission !== 'probe' || r.body || r.path === '/ready') out.push('503');
  return out;
}

/** The operation's key in OPERATIONS: method and path, the path without a deployment's prefix (D200). */
const keyOf = (r: Pick<RouteDef, 'method' | 'path' | 'docPath'>): string => `${r.method} ${r.docPath ?? r.path}`;
/** The route's path in OpenAPI's templating, with the literal a parameter's segment ends in (`{y}.mvt`, D273). */
const openApiPath = (r: Pick<RouteDef, 'path' | 'params'>): string => r.path.replace(/:([a-z_]+)/g, (_m, name: string) => `{${name}}${r.params?.[name]?.suffix ?? ''}`);

/** The path parameters of a route, stated once on its path (OPTIONS and HEAD have them too). */
function pathParameters(r: RouteDef): object[] {
  return [...r.path.matchAll(/:([a-z_]+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: r.params?.[m[1]]?.schema ?? { type: 'string' } }));
}

/** The query parameters: the route's own (`defineQueryRoute`), else those its description names. */
const queryOf = (r: RouteDef, doc: OperationDoc): readonly QueryParam[] => r.querySchema?.params ?? doc.query ?? [];

/** The answers of a route (`RouteDef.answers`): a route without them stops the start. */
function answersOf(r: RouteDef): Answers {
  if (r.answers === undefined) throw new Error(`route ${keyOf(r)} states no answers (RouteDef.answers)`);
  return r.answers;
}

/** The request body's JSON Schema: the route's own (`defineRoute`), else the one its description names. */
const bodyOf = (r: RouteDef): object | undefined => r.bodySchema?.schema;

/** `getV1ChargingStationsId` → `GetV1ChargingStationsId`. */
const pascal = (id: string): string => id[0].toUpperCase() + id.slice(1);

/**
 * The operation of a route. Its answer and body schemas are the objects themselves: `withRefs`
 * turns each into a `$ref` to its component (`names`), so that every media type of an answer or
 * a body names the same component.
 */
function operation(r: RouteDef, doc: OperationDoc, S: typeof Schemas): Operation {
  const a = answersOf(r);
  const media = a.mediaType ?? JSON_MEDIA;
  const body = bodyOf(r);
  const example = EXAMPLE_RESPONSES[keyOf(r)];
  const params: object[] = queryOf(r, doc).map((q) => ({ name: q.name, in: 'query', required: q.required ?? false, description: q.description, schema: q.schema, ...(q.deprecated ? { deprecated: true } : {}) }));
  params.push(...headerParameters(r, a));
  const success: ResponseDoc = { description: doc.summary, headers: { ...successHeaders(r), ...Object.fromEntries((a.headers ?? []).map((h) => [h, { $ref: `#/components/headers/${h}` }])) } };
  if (a.status !== 204) {
    const content: Record<string, unknown> = {};
    const schema = a.response?.(S);
    if (schema !== undefined) content.schema = schema;
    if (example !== undefined) content.example = example.body;
    // D236: the JSON:API type names the same schema.
    const jsonApi = media === JSON_MEDIA && schema !== undefined && jsonApiRoute(r) ? { [JSON_API_MEDIA]: { schema } } : {};
    success.content = { [media]: content, ...jsonApi, ...Object.fromEntries(Object.entries(a.otherMediaTypes?.(S) ?? {}).map(([m, other]) => [m, { schema: other }])) };
  }
  const responses: Record<string, ResponseDoc> = { [String(a.status)]: success };
  for (const [s, description] of Object.entries(a.alsoSuccess ?? {})) responses[s] = { ...success, description };
  for (const [s, description] of Object.entries(a.alsoEmpty ?? {})) responses[s] = { description, headers: success.headers };
  if (r.cache !== undefined) responses['304'] = NOT_MODIFIED;
  // Errors in D5's shape, as JSON:API's type too where the route negotiates (E) or as JSON only (J); the account client's shape (C).
  const kind = r.clientErrors === true ? 'C' : jsonApiRoute(r) ? 'E' : 'J';
  const own = a.errorSchemas?.(S) ?? {};
  for (const s of [...errorsOf(r, doc), ...(a.errors ?? []), ...Object.keys(own)].sort()) {
    // 405 and 414 come before routing, before a route's own error shape applies: always D5's shape.
    responses[s] = a.pageErrors?.includes(s) === true ? pageError(s) : s in own ? ownError(s, own[s], r.groups !== null) : { $ref: `#/components/responses/${s === '405' || s === '414' ? 'E' : kind}${s}` };
  }
  return {
    operationId: operationIdOf(r),
    summary: doc.summary,
    description: [doc.description, representations(r), r.groups === null ? 'No key needed.' : `Key groups: ${r.groups.join(' or ')}.`].filter(Boolean).join('\n\n'),
    tags: [doc.tag],
    ...securityOf(r, a),
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(body !== undefined
      ? { requestBody: { required: true, content: { [JSON_MEDIA]: { schema: body, example: doc.example.body }, [JSON_API_MEDIA]: { schema: body } } } }
      : {}),
    responses,
    'x-example-request': { path: doc.example.path, ...(doc.example.headers ? { headers: doc.example.headers } : {}), ...(doc.example.stateful ? { stateful: true } : {}) },
  };
}

/** An error with a document of its own (both JSON types, D236). */
function ownError(status: string, schema: object, keyed: boolean): ResponseDoc {
  return { description: ERROR_TEXT[status], headers: errorHeaders(status, keyed), content: { [JSON_MEDIA]: { schema }, [JSON_API_MEDIA]: { schema } } };
}

const operationIdOf = (r: RouteDef): string => `${r.method.toLowerCase()}${r.path.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`;

/**
 * The names of the components: the shared shapes (`named`), each answer schema under its name in
 * src/api/schemas, the description's own schema, and each request body as `<OperationId>Body`
 * (the first operation taking a shared body names it).
 */
function componentNames(routes: readonly RouteDef[], S: typeof Schemas): Map<object, string> {
  const names = new Map<object, string>(named(S).map(([n, schema]) => [schema, n]));
  const exported = new Map<unknown, string>(Object.entries(S).map(([n, v]) => [v, n]));
  const taken = new Set(names.values());
  const give = (schema: object | undefined, name: string | undefined): void => {
    if (schema === undefined || names.has(schema) || name === undefined) return;
    if (taken.has(name)) throw new Error(`two schemas named ${name} in the API description`);
    names.set(schema, name);
    taken.add(name);
  };
  for (const r of routes) {
    const a = answersOf(r);
    const answer = a.response?.(S);
    give(answer, answer === OPENAPI_DOCUMENT_SCHEMA ? 'OpenApiDocument' : exported.get(answer));
    for (const other of Object.values(a.otherMediaTypes?.(S) ?? {})) give(other, exported.get(other));
    for (const e of Object.values(a.errorSchemas?.(S) ?? {})) give(e, exported.get(e));
    give(bodyOf(r), `${pascal(operationIdOf(r))}Body`);
  }
  return names;
}

/** An error answered as a page (the account links of a mail, D209). */
function pageError(status: string): ResponseDoc {
  const page = Object.fromEntries(['Content-Security-Policy', 'Referrer-Policy', 'Cache-Control'].map((h) => [h, { $ref: `#/components/headers/${h}` }]));
  return { description: ERROR_TEXT[status], headers: { ...errorHeaders(status, false), ...page }, content: { 'text/html': { schema: { type: 'string' } } } };
}

/** The key (groups in `x-groups`) and, where a route reads one, the bearer token (D203, D210). */
function securityOf(r: RouteDef, a: Answers): { security: object[]; 'x-groups'?: string[] } {
  const bearer = a.bearer ?? 'none';
  if (r.groups === null) return { security: bearer === 'required' ? [{ BearerToken: [] }] : [] };
  const key = { ApiKey: [] };
  const security = bearer === 'none' ? [key] : bearer === 'optional' ? [key, { ApiKey: [], BearerToken: [] }] : [{ ApiKey: [], BearerToken: [] }];
  return { security, 'x-groups': [...r.groups] };
}

/** Throws when the route table and OPERATIONS disagree (checked at start; cheap). */
export function checkDescribed(routes: readonly RouteDef[]): void {
  const seen = new Set<string>();
  for (const r of routes) {
    const k = keyOf(r);
    if (OPERATIONS[k] === undefined) throw new Error(`route ${k} has no description in src/api/openapi/operations.ts`);
    if (r.body && r.bodySchema === undefined) throw new Error(`route ${k} takes a body but states no body schema (RouteDef.bodySchema)`);
    if (r.querySchema !== undefined && OPERATIONS[k].query !== undefined) throw new Error(`route ${k} has its query on the route and in src/api/openapi/operations.ts`);
    answersOf(r);
    seen.add(k);
  }
  const orphans = Object.keys(OPERATIONS).filter((k) => !seen.has(k) && !OPTIONAL.has(k));
  if (orphans.length > 0) throw new Error(`operations without a route: ${orphans.join(', ')}`);
}

/**
 * The OpenAPI 3.1 document of a route table (throws when the table and OPERATIONS disagree); `S`:
 * the answer schemas (src/api/schemas), loaded when the description is first asked for.
 */
export function openApiDocument(routes: readonly RouteDef[], version: string, S: typeof Schemas): Record<string, unknown> {
  checkDescribed(routes);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const doc = OPERATIONS[keyOf(r)];
    const item = (paths[openApiPath(r)] ??= {});
    if (r.path.includes(':')) item.parameters ??= pathParameters(r);
    const op = operation(r, doc, S);
    item[r.method.toLowerCase()] = op;
    if (r.method === 'GET') item.head = headOperation(op);
    item.options ??= optionsOperation(r.path, doc.tag);
  }
  const responses: Record<string, unknown> = {};
  for (const [s, text] of Object.entries(ERROR_TEXT)) {
    const headers = { headers: errorHeaders(s, true) };
    const errors = { $ref: '#/components/schemas/Errors' };
    responses[`E${s}`] = { description: text, ...headers, content: { [JSON_MEDIA]: { schema: errors, example: errorExample(s, 'E') }, [JSON_API_MEDIA]: { schema: errors } } };
    responses[`J${s}`] = { description: text, ...headers, content: { [JSON_MEDIA]: { schema: errors, example: errorExample(s, 'E') } } };
    responses[`C${s}`] = { description: text, headers: errorHeaders(s, false), content: { [JSON_MEDIA]: { schema: { $ref: '#/components/schemas/ClientErrors' }, example: errorExample(s, 'C') } } };
  }
  const names = componentNames(routes, S);
  const schemas = Object.fromEntries([...names].map(([schema, n]) => [n, withRefs(schema, names)]));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Charging Price Service',
      version,
      description: 'EV charging prices, station search and tariffs. JSON:API documents; the behaviour is specified in docs/api-spec.md and docs/decisions.md.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/' }],
    tags: [...new Set(Object.values(OPERATIONS).map((o) => o.tag))].map((name) => ({ name })),
    paths: withRefs(paths, names),
    components: {
      securitySchemes: {
        ApiKey: { type: 'apiKey', in: 'header', name: 'Api-Key', description: 'API key; each operation names the key groups that may call it (x-groups).' },
        BearerToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'An access token of POST /v1/authenticate (D203), in `Authorization: Bearer <token>`.' },
      },
      headers: HEADERS,
      parameters: PARAMETERS,
      schemas,
      responses,
    },
  };
}

/** Operations whose route exists only with some settings (the availability feeds, D134). */
const OPTIONAL = new Set(['POST /v1/availability', 'PUT /ocpi/2.2.1/locations/:country_code/:party_id/:location_id/:evse_uid', 'PATCH /ocpi/2.2.1/locations/:country_code/:party_id/:location_id/:evse_uid', 'GET /metrics', ...ACCOUNT_OPERATIONS]);

// ---- The docs page ----

const DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Charging Price Service API</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

const INIT_JS = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true, docExpansion: 'list', defaultModelsExpandDepth: 0 });\n`;

/** A Map, not an object literal: a file name from the path (`toString`, `__proto__`) must not find a prototype member. */
const ASSETS = new Map<string, string>([
  ['swagger-ui.css', 'text/css; charset=utf-8'],
  ['swagger-ui-bundle.js', 'application/javascript; charset=utf-8'],
]);
const assetCache = new Map<string, Buffer>();

function asset(name: string): Buffer {
  let b = assetCache.get(name);
  if (b === undefined) {
    const dir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
    b = fs.readFileSync(path.join(dir, name));
    assetCache.set(name, b);
  }
  return b;
}

/** `GET /openapi.json`, `GET /docs` and `GET /docs/:file` for a route table (which they join). */
export function openApiRoutes(routes: readonly RouteDef[], version: string): RouteDef[] {
  const own: RouteDef[] = [
    { method: 'GET', path: '/openapi.json', answers: { status: 200, mediaType: 'application/json', response: () => OPENAPI_DOCUMENT_SCHEMA }, groups: null, body: false, admission: 'ops', notJsonApi: true, cache: () => version, handler: async () => ({ status: 200, body: await text(), headers: { 'Content-Type': 'application/json' } }) },
    { method: 'GET', path: '/docs', answers: { status: 200, mediaType: 'text/html' }, groups: null, body: false, admission: 'ops', notJsonApi: true, cache: () => version, handler: () => ({ status: 200, body: DOCS_HTML, headers: { 'Content-Type': 'text/html; charset=utf-8' } }) },
    {
      method: 'GET',
      path: '/docs/:file',
      answers: { status: 200, mediaType: 'application/javascript', otherMediaTypes: () => ({ 'text/css': { type: 'string' } }) },
      admission: 'ops',
      notJsonApi: true,
      groups: null,
      body: false,
      cache: () => version,
      handler: (req: ApiRequest): ApiResponse => {
        const f = req.params.file;
        if (f === 'init.js') return { status: 200, body: INIT_JS, headers: { 'Content-Type': 'application/javascript; charset=utf-8' } };
        const type = ASSETS.get(f);
        if (type === undefined) throw notFound(`no file ${f}`);
        return { status: 200, body: asset(f), headers: { 'Content-Type': type } };
      },
    },
  ];
  // Checked with the route table (a route without a description stops the start); built and
  // serialised once, at the first request, with the answer schemas loaded then: a start (every
  // replica, every test) pays for neither (TypeBox's modules alone take about 120 ms to load).
  const all = [...routes, ...own];
  checkDescribed(all);
  let doc: Promise<string> | null = null;
  const text = (): Promise<string> => (doc ??= import('../schemas/index.js').then((S) => JSON.stringify(openApiDocument(all, version, S))));
  return own;
}
