/** JSON Schema of the tariff details request (endpoint 2, D31–D32), compiled once. */
import { compile } from '../jsonapi/validate.js';
import { bool, chargePoint, envelope, toMany } from '../jsonapi/schemas.js';


export const MAX_DETAIL_STATIONS = 50;

export interface TariffDetailsBody {
  data: {
    type?: string;
    attributes: {
      station: {
        country?: string;
        id?: string[];
        operator?: { id: string; type: 'company' };
        charge_point?: { power: number; plug: string };
      };
      filter?: {
        brand_restricted_tariffs?: boolean;
        foreign_tariffs?: boolean;
        provider_customer_tariffs?: boolean;
        tariffs_without_prices?: boolean;
        average_prices?: boolean;
        dimensions?: ('minute' | 'parking_minute' | 'kwh' | 'session')[];
      };
    };
    relationships?: { tariffs?: { data: { id: string; type?: string }[] } };
  };
}

export const validateTariffDetails = compile<TariffDetailsBody>(envelope({
  required: ['attributes'],
  properties: {
    // Any value, as before it was named: stated so that typed clients may send the client's `tariff_details_request`.
    type: { description: 'Not read (the original client sends `tariff_details_request`)' },
    attributes: {
      type: 'object',
      required: ['station'],
      properties: {
        station: {
          type: 'object',
          properties: {
            country: { type: 'string', pattern: '^[A-Za-z]{2}$' },
            id: {
              type: 'array',
              minItems: 1,
              maxItems: MAX_DETAIL_STATIONS,
              items: { type: 'string', minLength: 1, maxLength: 200 },
            },
            operator: {
              type: 'object',
              required: ['id', 'type'],
              properties: { id: { type: 'string', minLength: 1, maxLength: 200 }, type: { const: 'company' } },
            },
            charge_point: chargePoint,
          },
        },
        filter: {
          type: 'object',
          properties: {
            brand_restricted_tariffs: bool,
            foreign_tariffs: bool,
            provider_customer_tariffs: bool,
            tariffs_without_prices: bool,
            average_prices: bool,
            dimensions: {
              type: 'array',
              maxItems: 4,
              items: { enum: ['minute', 'parking_minute', 'kwh', 'session'] },
            },
          },
        },
      },
    },
    relationships: {
      type: 'object',
      properties: {
        tariffs: toMany('tariff', 10000),
      },
    },
  },
}));
