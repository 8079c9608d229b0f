/**
 * The request schemas' building blocks, typed as TypeBox's: each gives the JSON Schema AJV checks and
 * the API description shows, and the TypeScript type (`Static<…>`) the handler reads the body as.
 * They write the JSON Schema as it always was: `const` and `enum` without a `type` beside them (their
 * AJV titles name the accepted values), ranges as arrays of two numbers.
 *
 * `Type` here builds the same plain JSON Schema objects as TypeBox's builders of the same names,
 * typed with TypeBox's types (so `Static` applies), without loading TypeBox at start: its module graph
 * cost the start 200–400 ms under load, and the answer schemas that need the whole of it are loaded
 * only when the description is first asked for (D234). An optional member is marked by a symbol
 * (not a JSON member, unseen by AJV) that its object leaves out of `required`.
 */
import type {
  Static, TArray, TBoolean, TInteger, TNumber, TObject, TOptional, TProperties, TSchema, TString, TUnion, TUnsafe,
} from '@sinclair/typebox';

export type { Static, TObject, TProperties, TSchema };

const OPTIONAL = Symbol('optional');
type Options = Record<string, unknown>;
const cast = <T>(schema: object): T => schema as unknown as T;

export const Type = {
  String: (options: Options = {}): TString => cast({ type: 'string', ...options }),
  Number: (options: Options = {}): TNumber => cast({ type: 'number', ...options }),
  Integer: (options: Options = {}): TInteger => cast({ type: 'integer', ...options }),
  Boolean: (options: Options = {}): TBoolean => cast({ type: 'boolean', ...options }),
  Array: <T extends TSchema>(items: T, options: Options = {}): TArray<T> => cast({ type: 'array', items, ...options }),
  /** Members without `Optional` are required. */
  Object: <P extends TProperties>(properties: P, options: Options = {}): TObject<P> => {
    const required = Object.keys(properties).filter((k) => !(OPTIONAL in properties[k]));
    return cast({ type: 'object', properties, ...(required.length > 0 ? { required } : {}), ...options });
  },
  Optional: <T extends TSchema>(schema: T): TOptional<T> => cast({ ...schema, [OPTIONAL]: true }),
  /**
   * One of these objects, told apart by the member `tag`, which each branch states as a `const`
   * (`discriminator`: AJV checks only the branch the tag names and reports its errors alone; an
   * unknown tag is one error at the tag; OpenAPI 3.1 and the client generators read it too).
   */
  Tagged: <T extends TObject[]>(tag: string, branches: [...T]): TUnion<T> =>
    cast({ type: 'object', required: [tag], discriminator: { propertyName: tag }, oneOf: branches }),
  /** A JSON Schema written as is, of the type given. */
  Unsafe: <T>(schema: object): TUnsafe<T> => cast({ ...schema }),
};

export const bool = Type.Boolean();

/** Exactly this value (`{"const": …}`). */
export const Const = <T extends string | number>(value: T): TUnsafe<T> => Type.Unsafe<T>({ const: value });

/** One of these values (`{"enum": […]}`). */
export const Enum = <const T extends readonly (string | number)[]>(values: T): TUnsafe<T[number]> => Type.Unsafe<T[number]>({ enum: values });

/** Two numbers from `minimum` to `maximum`, as an array of exactly two items. */
export const Pair = (item: object = { type: 'number' }): TUnsafe<[number, number]> =>
  Type.Unsafe<[number, number]>({ type: 'array', minItems: 2, maxItems: 2, items: item });

/** Set A's battery range in percent (D37); start < end is checked by the handlers. */
export const batteryRange = Pair({ type: 'number', minimum: 0, maximum: 100 });

/** Minutes after midnight of the session's start (D36). */
export const startTime = Type.Integer({ minimum: 0, maximum: 1439 });

/** Set B (D37): energy in kWh and duration in minutes. */
export const energy = Type.Number({ minimum: 0, maximum: 100000 });
export const duration = Type.Number({ exclusiveMinimum: 0, maximum: 1000000 });

/** ISO 4217 form; whether the code is known is checked against the rate table (D84). */
export const currency = Type.String({ pattern: '^[A-Za-z]{3}$' });

/** A request reference `{type?, id}` whose `type`, if given, must be the documented one (D16). */
export const ref = <T extends string>(type: T, idMaxLength = 200) =>
  Type.Object({ type: Type.Optional(Const(type)), id: Type.String({ minLength: 1, maxLength: idMaxLength }) });

/** A to-many relationship `{"data": [ref, …]}` of at most `maxItems` references of `type`. */
export function toMany<T extends string>(type: T, maxItems: number, o: { minItems?: number } = {}) {
  return Type.Object({ data: Type.Array(ref(type), { ...(o.minItems !== undefined ? { minItems: o.minItems } : {}), maxItems }) });
}

/** A to-many relationship with a `meta` object of its own. */
export function toManyWithMeta<T extends string, M extends TSchema>(type: T, maxItems: number, meta: M) {
  return Type.Object({ data: Type.Array(ref(type), { maxItems }), meta: Type.Optional(meta) });
}

/** A to-one relationship `{"data": ref}`. */
export const toOne = <T extends string>(type: T) => Type.Object({ data: ref(type) });

/** A requested charge point `{power, plug}` (charge prices, tariff details). */
export const chargePoint = Type.Object({
  power: Type.Number({ minimum: 0, maximum: 10000 }),
  plug: Type.String({ minLength: 1, maxLength: 100 }),
});

/**
 * The JSON:API request envelope (D8): `{"data": {…}}` with `data` an object of the given members.
 * Every request schema is built on it.
 */
export const Envelope = <P extends TProperties>(data: P, options: Record<string, unknown> = {}) => Type.Object({ data: Type.Object(data, options) });

/**
 * The plain form of the envelope for the schemas not written in TypeBox: `data` an object of the
 * given members (`required`, `properties`, `additionalProperties`).
 */
export const envelope = <D extends object>(data: D) =>
  ({ type: 'object', required: ['data'], properties: { data: { type: 'object', ...data } } }) as const;
