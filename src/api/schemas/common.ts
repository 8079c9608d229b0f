/**
 * The building blocks of the answer schemas (D234): one TypeBox definition per shape gives both
 * the JSON Schema in /openapi.json and the TypeScript type (`Static<…>`) the document writers use.
 * Objects are closed (`additionalProperties: false`) unless a decision leaves them open; nullable
 * scalars are type arrays (`["string","null"]`), as OpenAPI 3.1 writes them.
 */
import { ERROR_CODES } from '../jsonapi/errors.js';
import { Type, type Static, type TLiteral, type TObject, type TProperties, type TSchema, type TString, type TUnsafe } from '@sinclair/typebox';

export { Type, type Static, type TObject, type TProperties, type TSchema };

type Scalar = 'string' | 'number' | 'integer' | 'boolean';
type ScalarOf<T extends Scalar> = T extends 'string' ? string : T extends 'boolean' ? boolean : number;

/** A scalar or null, written `{"type":["<t>","null"]}`. */
export function Nullable<T extends Scalar>(t: T, options: Record<string, unknown> = {}): TUnsafe<ScalarOf<T> | null> {
  return Type.Unsafe<ScalarOf<T> | null>({ ...options, type: [t, 'null'] });
}

/** An object schema or null. */
export const OrNull = <T extends TSchema>(t: T, options: Record<string, unknown> = {}) => Type.Union([t, Type.Null()], options);

/** A closed object: members other than those named are refused. */
export const Closed = <P extends Record<string, TSchema>>(properties: P, options: Record<string, unknown> = {}) =>
  Type.Object(properties, { additionalProperties: false, ...options });

/** One of the given strings. */
export const Lit = <T extends string>(...values: T[]) => Type.Union(values.map((v) => Type.Literal(v)));

/** `meta` of a list that counts its items over all pages. */
export const OverallCount = Closed({ overall_count: Type.Integer({ minimum: 0, description: 'Items over all pages' }) });

export const Id = Type.String({ minLength: 1 });
export const Currency = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 currency code' });
export const Country = Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2 country code' });
export const Timestamp = Type.Integer({ description: 'Unix time in milliseconds (D13)' });
export const Version = Type.Integer({
  minimum: 0,
  description:
    'Lock version (D47): the next write sends this + 1 (1 creates); another value answers 409 Version conflict and changes nothing.',
  examples: [3],
});
export const DateTime = Type.String({ format: 'date-time' });

/** A resource identifier object of one type. */
export const Ref = <T extends string>(type: T) => Closed({ type: Type.Literal(type), id: Id });
/** A to-one relationship. */
export const ToOne = <T extends string>(type: T) => Closed({ data: Ref(type) });
/** A to-one relationship that may be empty (null). */
export const ToOneOrNull = <T extends string>(type: T) => Closed({ data: OrNull(Ref(type)) });
/** A to-many relationship. */
export const ToMany = <T extends string>(type: T) => Closed({ data: Type.Array(Ref(type)) });

/** A resource object: id, type constant, attributes, and relationships and other members when given. */
export function Resource<T extends string, A extends TSchema>(type: T, attributes: A): TObject<{ id: TString; type: TLiteral<T>; attributes: A }>;
export function Resource<T extends string, A extends TSchema, R extends TProperties, X extends TProperties = Record<never, TSchema>>(
  type: T,
  attributes: A,
  relationships: R,
  extra?: X,
): TObject<{ id: TString; type: TLiteral<T>; attributes: A; relationships: TObject<R> } & X>;
export function Resource(type: string, attributes: TSchema, relationships?: TProperties, extra: TProperties = {}): TObject {
  return Closed({ id: Id, type: Type.Literal(type), attributes, ...(relationships === undefined ? {} : { relationships: Closed(relationships) }), ...extra });
}

/** Paging links of a list (D235). */
export const PageLinks = Closed(
  {
    self: Type.String(),
    first: Type.String(),
    prev: Type.Optional(Type.String()),
    next: Type.Optional(Type.String({ description: 'While more items follow' })),
    last: Type.Optional(Type.String({ description: 'Where the list counts its items' })),
  },
  { description: 'Relative URLs of pages of this list: the query parameters sorted by name, page[number] set (D235)' },
);

const ErrorCode = Type.Union(ERROR_CODES.map((c) => Type.Literal(c)));

/** Errors (D5): `status` as a string, a code, a title, and where the problem is. */
export const ErrorObject = Closed({
  status: Type.String({ pattern: '^[1-5][0-9][0-9]$' }),
  code: Type.Optional(ErrorCode),
  title: Type.String(),
  detail: Type.Optional(Type.String()),
  source: Type.Optional(Closed({ pointer: Type.Optional(Type.String()), parameter: Type.Optional(Type.String()) })),
});
export const ErrorsDocument = Closed({
  errors: Type.Array(ErrorObject, { minItems: 1 }),
  meta: Type.Optional(Closed({ checks: Type.Record(Type.String(), Type.String(), { description: 'GET /ready: each part, `ok` or what fails' }) })),
});

/** The account routes' errors (D201): a numeric status and a message besides the members of D5. */
export const ClientErrorObject = Closed({
  status: Type.Integer(),
  message: Type.String(),
  code: Type.Optional(ErrorCode),
  title: Type.Optional(Type.String()),
  detail: Type.Optional(Type.String({ description: 'A sentence for people where `message` is a code a client reads (D243)' })),
  source: Type.Optional(Closed({ pointer: Type.Optional(Type.String()), parameter: Type.Optional(Type.String()) })),
});
export const ClientErrorsDocument = Closed({ errors: Type.Array(ClientErrorObject, { minItems: 1 }) });

export type ErrorsDocument = Static<typeof ErrorsDocument>;
