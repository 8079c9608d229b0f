/** JSON Schema of the device registration body (spec endpoint 5, D44), compiled once at load. */
import { envelope } from '../jsonapi/schemas.js';
import { compile } from '../jsonapi/validate.js';

export const NOTIFICATION_TYPES = [
  'promotion_external_generic',
  'promotion_external_personalized',
  'promotion_native_premium',
  'product_updates',
] as const;
export const USER_PRODUCTS = ['mobile_premium'] as const;

/** UUID version 4 (variant 8, 9, a or b), any letter case. */
export const UUID_V4_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-4[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$';
export const TWO_LETTERS_PATTERN = '^[A-Za-z]{2}$';

export interface DeviceBody {
  data: {
    id: string;
    type: 'crm_device';
    attributes: {
      fcmToken: string;
      country: string;
      language: string;
      app_version: string;
      os_version: string;
      user_products: string[];
      disabled_notifications: string[];
    };
  };
}

const nonEmpty = { type: 'string', minLength: 1 } as const;

export const deviceBodySchema = compile<DeviceBody>(envelope({
  required: ['id', 'type', 'attributes'],
  properties: {
    id: { type: 'string', pattern: UUID_V4_PATTERN },
    type: { type: 'string', enum: ['crm_device'] },
    attributes: {
      type: 'object',
      required: ['fcmToken', 'country', 'language', 'app_version', 'os_version', 'user_products', 'disabled_notifications'],
      properties: {
        fcmToken: nonEmpty,
        country: { type: 'string', pattern: TWO_LETTERS_PATTERN },
        language: { type: 'string', pattern: TWO_LETTERS_PATTERN },
        app_version: nonEmpty,
        os_version: nonEmpty,
        user_products: { type: 'array', items: { type: 'string', enum: USER_PRODUCTS } },
        disabled_notifications: { type: 'array', items: { type: 'string', enum: NOTIFICATION_TYPES } },
      },
    },
  },
}));

const PATTERN_TITLES: Record<string, string> = {
  [UUID_V4_PATTERN]: 'must be a UUID version 4',
  [TWO_LETTERS_PATTERN]: 'must be a two-letter code',
};

/** Validates a device body; pattern failures get readable titles. */
export function validateDevice(body: unknown): DeviceBody {
  try {
    return deviceBodySchema(body);
  } catch (e) {
    const errors = (e as { errors?: { title: string; source?: { pointer?: string } }[] }).errors;
    if (errors) {
      for (const err of errors) {
        for (const [pattern, text] of Object.entries(PATTERN_TITLES)) {
          if (err.title.endsWith(`must match pattern "${pattern}"`)) err.title = `${err.source?.pointer ?? 'value'} ${text}`;
        }
      }
    }
    throw e;
  }
}
