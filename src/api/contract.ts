/**
 * A route with its body's contract: one TypeBox schema is what AJV checks, what the API
 * description shows as the request body, and (its `Static` type) what the handler reads. The
 * handler receives the request after the check, its body typed; no copy is made (the validator
 * hands back the object it checked).
 */
import type { TSchema } from '@sinclair/typebox';
import { dropNulls, type SchemaValidator } from './jsonapi/validate.js';
import type { ApiRequest, Handler, RouteDef } from './types.js';

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
