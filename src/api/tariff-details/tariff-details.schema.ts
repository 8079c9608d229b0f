/** JSON Schema of the tariff details request (endpoint 2, D31–D32), compiled once. */
import { validatorOf } from '../jsonapi/validate.js';
import { bool, chargePoint, Const, Enum, Envelope, toMany, Type, type Static } from '../jsonapi/schemas.js';

export const MAX_DETAIL_STATIONS = 50;

const { Optional } = Type;

export const TariffDetailsBody = Envelope({
  // Any value, as before it was named: stated so that typed clients may send the client's `tariff_details_request`.
  type: Optional(Type.Unsafe<unknown>({ description: 'Not read (the original client sends `tariff_details_request`)' })),
  attributes: Type.Object({
    station: Type.Object({
      country: Optional(Type.String({ pattern: '^[A-Za-z]{2}$' })),
      id: Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: MAX_DETAIL_STATIONS })),
      operator: Optional(Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }), type: Const('company') })),
      charge_point: Optional(chargePoint),
    }),
    filter: Optional(
      Type.Object({
        brand_restricted_tariffs: Optional(bool),
        foreign_tariffs: Optional(bool),
        provider_customer_tariffs: Optional(bool),
        tariffs_without_prices: Optional(bool),
        average_prices: Optional(bool),
        dimensions: Optional(Type.Array(Enum(['minute', 'parking_minute', 'kwh', 'session']), { maxItems: 4 })),
      }),
    ),
  }),
  relationships: Optional(Type.Object({ tariffs: Optional(toMany('tariff', 10000)) })),
});
export type TariffDetailsBody = Static<typeof TariffDetailsBody>;

export const validateTariffDetails = validatorOf(TariffDetailsBody);
