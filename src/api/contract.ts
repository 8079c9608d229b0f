/**
 * A route with its contract. A body route: one TypeBox schema is what AJV checks, what the API
 * description shows as the request body, and (its `Static` type) what the handler reads. The
 * handler receives the request after the check, its body typed; no copy is made (the validator
 * hands back the object it checked). A query route: one declaration (`defineQuery`) states the
 * query parameters in the description and parses them into the handler's typed input.
 */
import type { TSchema } from '@sinclair/typebox';
import { dropNulls, type SchemaValidator } from './jsonapi/validate.js';
import type { QuerySchema } from './jsonapi/query.js';
import type { ApiRequest, ApiResponse, Handler, RouteDef } from './types.js';

/** A body route as written: the route's fields, its body validator, and a handler of typed input. */
export type BodyRoute<T> = Omit<RouteDef, 'body' | 'bodySchema' | 'handler'> & {
  /** The body's validator (`validatorOf` a TypeBox schema). */
  readonly input: SchemaValidator<T, TSchema>;
  /** Checks on the body as parsed, before nulls are dropped and the schema applies (counts that must come first, D170). */
  readonly before?: (raw: unknown) => void;
  /** Nulls are members like any other (the OCPI receivers, D8 does not apply): the body is checked as sent. */
  readonly keepNulls?: boolean;
  readonly handler: Handler<T>;
};

/** The route of a body route: the body is checked (D8: nulls of optional members dropped first), then handed over typed. */
export function defineRoute<T>(def: BodyRoute<T>): RouteDef {
  const { input, before, keepNulls, handler, ...route } = def;
  return {
    ...route,
    body: true,
    bodySchema: input,
    handler: (req: ApiRequest) => {
      if (before !== undefined) before(req.body);
      input(keepNulls === true ? req.body : dropNulls(req.body));
      return handler(req as ApiRequest<T>);
    },
  };
}

/** A query route as written: the route's fields, its query's contract, and a handler of the typed query. */
export type QueryRoute<Q, P> = Omit<RouteDef, 'body' | 'querySchema' | 'handler'> & {
  /** The path parameters' parser (400 naming the one that is wrong), run before the query's. */
  readonly pathInput?: (params: Readonly<Record<string, string>>) => P;
  /** The query's contract (`defineQuery`): the parameters the description states and their parser. */
  readonly query: QuerySchema<Q>;
  readonly handler: (req: ApiRequest, query: Q, path: P) => ApiResponse | Promise<ApiResponse>;
};

/**
 * The route of a query route: the path parameters, then the query, are parsed (D9: a malformed
 * value answers 400 naming it) and handed over typed.
 */
export function defineQueryRoute<Q, P = undefined>(def: QueryRoute<Q, P>): RouteDef {
  const { pathInput, query, handler, ...route } = def;
  return {
    ...route,
    body: false,
    querySchema: query,
    handler: (req: ApiRequest) => {
      const path = pathInput === undefined ? (undefined as P) : pathInput(req.params);
      return handler(req, query.parse(req.query), path);
    },
  };
}
