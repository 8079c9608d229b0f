/** JSON Schema of the device registration body (spec endpoint 5, D44), compiled once at load. */
import { Envelope, Type, type Static } from '../jsonapi/schemas.js';
import { validatorOf } from '../jsonapi/validate.js';

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

const nonEmpty = Type.String({ minLength: 1 });
const strings = <const T extends readonly string[]>(values: T) => Type.Array(Type.Unsafe<T[number]>({ type: 'string', enum: values }));

/** Checked after the bearer token (403 before 400), so in the handler rather than by `defineRoute`. */
export const DeviceBody = Envelope({
  id: Type.String({ pattern: UUID_V4_PATTERN }),
  type: Type.Unsafe<'crm_device'>({ type: 'string', enum: ['crm_device'] }),
  attributes: Type.Object({
    fcmToken: nonEmpty,
    country: Type.String({ pattern: TWO_LETTERS_PATTERN }),
    language: Type.String({ pattern: TWO_LETTERS_PATTERN }),
    app_version: nonEmpty,
    os_version: nonEmpty,
    user_products: strings(USER_PRODUCTS),
    disabled_notifications: strings(NOTIFICATION_TYPES),
  }),
});
export type DeviceBody = Static<typeof DeviceBody>;

export const deviceBodySchema = validatorOf(DeviceBody);

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
