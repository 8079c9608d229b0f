/** JSON Schema fragments shared by the request schemas of several endpoints. */

export const bool = { type: 'boolean' } as const;

/** Set A's battery range in percent (D37); start < end is checked by the handlers. */
export const batteryRange = { type: 'array', minItems: 2, maxItems: 2, items: { type: 'number', minimum: 0, maximum: 100 } } as const;

/** Minutes after midnight of the session's start (D36). */
export const startTime = { type: 'integer', minimum: 0, maximum: 1439 } as const;

/** Set B (D37): energy in kWh and duration in minutes. */
export const energy = { type: 'number', minimum: 0, maximum: 100000 } as const;
export const duration = { type: 'number', exclusiveMinimum: 0, maximum: 1000000 } as const;

/** ISO 4217 form; whether the code is known is checked against the rate table (D84). */
export const currency = { type: 'string', pattern: '^[A-Za-z]{3}$' } as const;

/** A request reference `{type?, id}` whose `type`, if given, must be the documented one (D16). */
export const ref = (type: string, idMaxLength = 200) =>
  ({
    type: 'object',
    required: ['id'],
    properties: { type: { const: type }, id: { type: 'string', minLength: 1, maxLength: idMaxLength } },
  }) as const;

/** A to-many relationship `{"data": [ref, …]}` of at most `maxItems` references of `type`. */
export const toMany = (type: string, maxItems: number, o: { minItems?: number; meta?: object } = {}) =>
  ({
    type: 'object',
    required: ['data'],
    properties: {
      data: { type: 'array', ...(o.minItems !== undefined ? { minItems: o.minItems } : {}), maxItems, items: ref(type) },
      ...(o.meta !== undefined ? { meta: o.meta } : {}),
    },
  }) as const;

/** A to-one relationship `{"data": ref}`. */
export const toOne = (type: string) => ({ type: 'object', required: ['data'], properties: { data: ref(type) } }) as const;

/** A requested charge point `{power, plug}` (charge prices, tariff details). */
export const chargePoint = {
  type: 'object',
  required: ['power', 'plug'],
  properties: {
    power: { type: 'number', minimum: 0, maximum: 10000 },
    plug: { type: 'string', minLength: 1, maxLength: 100 },
  },
} as const;

/**
 * The JSON:API request envelope (D8): `{"data": {…}}` with `data` an object of the given members
 * (`required`, `properties`, `additionalProperties`). Every request schema is built on it.
 */
export const envelope = <D extends object>(data: D) =>
  ({ type: 'object', required: ['data'], properties: { data: { type: 'object', ...data } } }) as const;
