import type { Group } from '../auth/groups.js';
import type { QuerySchema } from './jsonapi/query.js';
import type { SchemaValidator } from './jsonapi/validate.js';
import type * as Schemas from './schemas/index.js';

/**
 * The request as handlers see it: everything copied out of the transport synchronously. `B`: the
 * body's type once the route's schema has checked it (`defineRoute`), else `unknown`.
 */
export interface ApiRequest<B = unknown> {
  readonly method: string;
  readonly path: string;
  /** Path parameters by name (`:id` → params.id), URL-decoded. */
  readonly params: Readonly<Record<string, string>>;
  /** Query parameters, URL-decoded; a repeated parameter keeps its last value (D9). */
  readonly query: ReadonlyMap<string, string>;
  readonly headers: RequestHeaders;
  /** Parsed JSON body (routes with `body: true`), else undefined; checked by the route's schema when it has one. */
  readonly body: B;
  /** Group mask of the presented API key (0 on routes without a group). */
  readonly groups: number;
  /** The name of the presented API key (null on routes without a group; D261 counts by it). */
  readonly keyName?: string | null;
  readonly requestId: string;
  /** The socket's peer address (the proxy's, behind one; D207 reads `X-Forwarded-For` then). */
  readonly remote: string;
  /** The representation `Accept` chose among the route's offers (D236–D238). */
  readonly format: Format;
}

/**
 * A representation of an answer (D236–D238): JSON (D12's default), the same bytes as JSON:API's
 * media type, GeoJSON, CSV. Routes offer the last two by naming them in `formats`.
 */
export type Format = 'json' | 'jsonapi' | 'geojson' | 'csv';

/** The media type each representation is written with. */
export const CONTENT_TYPE: Readonly<Record<Format, string>> = {
  json: 'application/json; charset=utf-8',
  jsonapi: 'application/vnd.api+json',
  geojson: 'application/geo+json',
  csv: 'text/csv; charset=utf-8; header=present',
};

export interface RequestHeaders {
  readonly apiKey: string;
  readonly contentType: string;
  readonly acceptLanguage: string;
  readonly authorization: string;
  readonly crmDeviceId: string;
  /** `Host` and `X-Forwarded-Proto`: the address clients reach the service at (TileJSON, D193). */
  readonly host: string;
  readonly forwardedProto: string;
  /** `X-Forwarded-For` as received (the client address behind a trusted proxy, D207). */
  readonly forwardedFor: string;
}

export interface ApiResponse {
  status: number;
  /** Serialized body (JSON text); absent for 204. */
  body?: string | Buffer;
  headers?: Record<string, string>;
  /**
   * Called once the body has been handed to the socket (or the response was dropped): the body's
   * memory may then be reused (price answers in a shared output slot of the pool).
   */
  release?: () => void;
  /**
   * Where the handler keeps compressed copies of this body (cached tiles, D192): the responder takes
   * the copy for the negotiated encoding when there is one, else compresses and hands it back.
   */
  compressed?: CompressedForms;
  /**
   * False for an answer that is not final (a price tile with prices pending, D278): it carries
   * no ETag and no default Cache-Control, whatever the route's validator said.
   */
  final?: boolean;
}

export interface CompressedForms {
  get(enc: 'br' | 'gzip'): Buffer | undefined;
  keep(enc: 'br' | 'gzip', body: Buffer): void;
}

export type Handler<B = unknown> = (req: ApiRequest<B>) => ApiResponse | Promise<ApiResponse>;

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteDef {
  readonly method: Method;
  /** Path pattern with `:name` parameters, e.g. `/v1/charging_stations/:id`. */
  readonly path: string;
  /**
   * Groups allowed to call the route (any one suffices); null = no key needed.
   * The first group names the route in the 403 title (D2).
   */
  readonly groups: readonly Group[] | null;
  /** The route may answer 200 with `Price-Tile-Pending` before its answer is final (D278). */
  readonly partialAnswers?: boolean;
  /** The route takes a JSON body (content type checked, size limited, parsed). */
  readonly body: boolean;
  /**
   * The body's contract, whose JSON Schema the API description shows as the request body: the
   * validator the handler's input passes (`defineRoute`), or the schema a handler that checks its
   * body itself validates with (a choice of shapes, checks that must come first: 401 and 429 of
   * the account routes, D239).
   */
  readonly bodySchema?: { readonly schema: object } | SchemaValidator<unknown>;
  /** The JSON body is any object, not a JSON:API document with `data` (OCPI receiver routes). */
  readonly bareBody?: boolean;
  /** Errors of this route carry no `code` (D6). */
  readonly codeless?: boolean;
  /** The route's path in the API description when it is served under a deployment's prefix (D200). */
  readonly docPath?: string;
  /** Errors of this route have the account client's shape: numeric `status`, `message` (D201). */
  readonly clientErrors?: boolean;
  /**
   * Cacheable GET (D95): what the answer depends on besides path, query, language and encoding
   * (snapshot version, catalog generation, the key's groups where they change it), as one string;
   * null for a request whose answer is not cacheable. Absent: no ETag.
   */
  readonly cache?: (req: ApiRequest) => string | null;
  /**
   * Price work: refused 503 before its body is read while price work is saturated (D106), and
   * counted against the price rate limit of D24 as well (D109).
   */
  readonly priceWork?: boolean;
  /**
   * Price work that answers what it has when the pool is saturated (price tiles, D278): not
   * refused before its handler; the handler answers without the work it could not have done.
   */
  readonly answersWhenSaturated?: boolean;
  /** The API key may also come as `Authorization: Bearer <key>` (scrapers that send only that, D120). */
  readonly keyAsBearer?: boolean;
  /**
   * The answer depends on the live catalog (companies, tariffs): with a shared live store the
   * server waits for this replica's view to be current before serving it (read-your-writes, D151).
   */
  readonly fresh?: boolean;
  /**
   * The route's admission class (D176) when not the default: `price` for price work, `read` for
   * GET and HEAD, `write` for the other methods.
   */
  readonly admission?: 'probe' | 'ops' | 'cost';
  /**
   * The answer is not a JSON:API document (the probes, TileJSON, vector tiles, /metrics, the API
   * description and its page, the map page): sent in its own media type whatever `Accept` says, and
   * its errors as `application/json` (D236), as are the answers of OCPI (`bareBody`) and account
   * routes (`clientErrors`).
   */
  readonly notJsonApi?: boolean;
  /** Representations besides JSON the handler writes when `Accept` prefers them (D237, D238). */
  readonly formats?: readonly ('geojson' | 'csv')[];
  /**
   * The query's contract (`defineQueryRoute`): the parameters the API description states, and the
   * parser whose typed result the handler receives.
   */
  readonly querySchema?: QuerySchema<unknown>;
  /** The path parameters as the API description states them (absent: a string of any form). */
  readonly params?: Readonly<Record<string, PathParam>>;
  /** The route's answers as the API description states them: statuses, schemas, media types, headers. */
  readonly answers?: Answers;
  readonly handler: Handler;
}

/**
 * The answers of a route, its contract beside path, query and body: the success status and the
 * schema of its document, other media types and statuses, error documents of its own, and the
 * header fields it sends or reads. The schemas are named in src/api/schemas, handed in as `s` when
 * the description is first built (the answer schemas are not loaded at start, D234).
 */
export interface Answers {
  /** Status of the documented success answer. */
  readonly status: 200 | 201 | 204;
  /** Media type of the success answer (default application/json, D12). */
  readonly mediaType?: string;
  /** Further media types the success answer may have (files of several kinds), with their schemas. */
  readonly otherMediaTypes?: (s: typeof Schemas) => Readonly<Record<string, object>>;
  /** Schema of the success answer (a JSON document; absent for 204 and non-JSON answers). */
  readonly response?: (s: typeof Schemas) => object;
  /** Other success statuses with the same body, and what they mean (200 of a PUT that updates). */
  readonly alsoSuccess?: Readonly<Record<string, string>>;
  /** Error statuses with a document of their own (beyond D5's), by status: added to the operation's errors. */
  readonly errorSchemas?: (s: typeof Schemas) => Readonly<Record<string, object>>;
  /** Other success statuses without a body, and what they mean (204 of a tile without a feature). */
  readonly alsoEmpty?: Readonly<Record<string, string>>;
  /** Header fields of the success answer beyond those every route of its kind sends (components/headers). */
  readonly headers?: readonly string[];
  /** Error statuses beyond those the route table implies (401 of the account routes). */
  readonly errors?: readonly string[];
  /** Error statuses answered as an HTML page rather than a JSON document (the account links). */
  readonly pageErrors?: readonly string[];
  /** Texts localised by Accept-Language (D22). */
  readonly language?: true;
  /** Whether the route reads `Authorization: Bearer` (D203): required, optional, or not at all (default). */
  readonly bearer?: 'required' | 'optional' | 'none';
}


/**
 * A path parameter in the API description: its JSON Schema, and the literal its segment ends in
 * (`{y}.mvt`): the router hands the segment whole, the handler strips the literal (D273).
 */
export interface PathParam {
  readonly schema: object;
  readonly suffix?: string;
}

/** A JSON answer; `json<T>(…)` checks the document against its type (a `Static` of src/api/schemas, D234). */
export const json = <T = unknown>(status: number, doc: T): ApiResponse => ({ status, body: JSON.stringify(doc) });

export const noContent = (): ApiResponse => ({ status: 204 });
