/** The error catalogue of the service (D5–D7): one place maps a code to its status and fixed title. */

/** Every error code (also the `enum` of `code` in /openapi.json, D234). */
export const ERROR_CODES = [
  'BAD_REQUEST',
  'FORBIDDEN',
  'TOKEN_EXPIRED',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'NOT_ACCEPTABLE',
  'VERSION_CONFLICT',
  'PAYLOAD_TOO_LARGE',
  'URI_TOO_LONG',
  'UNSUPPORTED_MEDIA_TYPE',
  'TOO_MANY_REQUESTS',
  'INTERNAL_SERVER_ERROR',
  'SERVICE_UNAVAILABLE',
  'UNAUTHORIZED',
  'PRODUCT_SOURCE_NOT_FOUND',
  'PRODUCT_SOURCE_ALREADY_USED',
  'NO_TRIP_PLAN',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export const STATUS_OF: Readonly<Record<ErrorCode, number>> = {
  BAD_REQUEST: 400,
  FORBIDDEN: 403,
  TOKEN_EXPIRED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  NOT_ACCEPTABLE: 406,
  VERSION_CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  URI_TOO_LONG: 414,
  UNSUPPORTED_MEDIA_TYPE: 415,
  TOO_MANY_REQUESTS: 429,
  INTERNAL_SERVER_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
  UNAUTHORIZED: 401,
  PRODUCT_SOURCE_NOT_FOUND: 404,
  PRODUCT_SOURCE_ALREADY_USED: 409,
  NO_TRIP_PLAN: 422,
};

export interface ErrorSource {
  pointer?: string;
  parameter?: string;
}

export interface ErrorObject {
  status: string;
  code?: ErrorCode;
  title: string;
  detail?: string;
  source?: ErrorSource;
}

/**
 * A client-facing error. Thrown by validation and lookups, caught at the single request boundary
 * and serialized per D5 (the boundary drops `code` for the five code-less endpoints of D6).
 */
export class ApiError extends Error {
  readonly status: number;
  readonly errors: ErrorObject[];
  readonly headers: Readonly<Record<string, string>> | undefined;

  constructor(
    code: ErrorCode,
    title: string,
    opts: { detail?: string; source?: ErrorSource; headers?: Record<string, string> } = {},
  ) {
    super(title);
    this.status = STATUS_OF[code];
    const err: ErrorObject = { status: String(this.status), code, title };
    if (opts.detail !== undefined) err.detail = opts.detail;
    if (opts.source !== undefined) err.source = opts.source;
    this.errors = [err];
    this.headers = opts.headers;
  }

  /** Several errors of one status (the rule checks of one body), at most MAX_ERRORS of them (D170). */
  static many(status: number, errors: ErrorObject[]): ApiError {
    const e = new ApiError('BAD_REQUEST', errors[0]?.title ?? 'bad request');
    (e as { status: number }).status = status;
    (e as { errors: ErrorObject[] }).errors = errors.length > MAX_ERRORS ? errors.slice(0, MAX_ERRORS) : errors;
    return e;
  }
}

/** D170: an answer lists at most this many errors, the first ones found. */
export const MAX_ERRORS = 20;

export const badRequest = (title: string, source?: ErrorSource, detail?: string): ApiError =>
  new ApiError('BAD_REQUEST', title, { source, detail });

export const badParameter = (parameter: string, title: string): ApiError =>
  new ApiError('BAD_REQUEST', title, { source: { parameter } });

/** One 400 error object pointing into the body (for a list of them: `ApiError.many(400, list)`). */
export const pointerError = (pointer: string, title: string): ErrorObject => ({ status: '400', code: 'BAD_REQUEST', title, source: { pointer } });

export const badPointer = (pointer: string, title: string): ApiError =>
  new ApiError('BAD_REQUEST', title, { source: { pointer } });

export const notFound = (title: string): ApiError => new ApiError('NOT_FOUND', title);

export const forbidden = (title: string): ApiError => new ApiError('FORBIDDEN', title);

export const versionConflict = (): ApiError => new ApiError('VERSION_CONFLICT', 'Version conflict');

/**
 * How a route writes its errors: `jsonapi` (D5), `codeless` (the endpoints of D6, without
 * `code`), `client` (the account routes, D201: a numeric `status` and a `message` as well).
 */
export type ErrorStyle = 'jsonapi' | 'codeless' | 'client';

/** Serializes an error document in the route's style. */
export function errorDocument(errors: readonly ErrorObject[], style: ErrorStyle): string {
  if (style === 'jsonapi') return JSON.stringify({ errors });
  if (style === 'client') return JSON.stringify({ errors: errors.map((e) => ({ ...e, status: Number(e.status), message: e.title })) });
  return JSON.stringify({
    errors: errors.map((e) => {
      const { code: _code, ...rest } = e;
      return rest;
    }),
  });
}

/** Price work refused for load (D106): 503 with Retry-After, the same wherever it is refused. */
export const overloadedError = (): ApiError => new ApiError('SERVICE_UNAVAILABLE', 'overloaded, retry later', { headers: { 'Retry-After': '1' } });

/**
 * A handler's 503 for load that is answered like D106's refusals, after REFUSAL_DELAY_MS, so that
 * clients that ignore `Retry-After` cannot turn refusals into a flood (password hashing, D246).
 */
export class HeldRefusal extends Error {}
