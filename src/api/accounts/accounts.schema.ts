/** JSON Schemas of the account bodies (D200–D212), in the original web client's protocol. */
import { envelope } from '../jsonapi/schemas.js';
import { compile } from '../jsonapi/validate.js';

const text = (max: number) => ({ type: 'string', minLength: 1, maxLength: max }) as const;
/** Long enough for any password the rules accept; the rules themselves are D202's. */
const password = { type: 'string', maxLength: 1024 } as const;
const email = { type: 'string', maxLength: 1024 } as const;
const version = { type: 'integer', minimum: 1, maximum: 2_147_483_647 } as const;
const id = text(100);

export interface EmailAuthentication {
  data: { type: 'email_authentication'; attributes: { email: string; password: string } };
}
export interface RefreshAuthentication {
  data: { type: 'refresh_token_authentication'; attributes: { refresh_token: string } };
}

export const emailAuthenticationSchema = compile<EmailAuthentication>(envelope({
  required: ['type', 'attributes'],
  properties: {
    type: { type: 'string', enum: ['email_authentication'] },
    attributes: { type: 'object', required: ['email', 'password'], properties: { email, password } },
  },
}));

export const refreshAuthenticationSchema = compile<RefreshAuthentication>(envelope({
  required: ['type', 'attributes'],
  properties: {
    type: { type: 'string', enum: ['refresh_token_authentication'] },
    attributes: { type: 'object', required: ['refresh_token'], properties: { refresh_token: text(200) } },
  },
}));

export interface SignupBody {
  data: { type: 'user'; attributes: { email: string; password: string; username: string; language?: string } };
}

export const signupSchema = compile<SignupBody>(envelope({
  required: ['type', 'attributes'],
  properties: {
    type: { type: 'string', enum: ['user'] },
    attributes: {
      type: 'object',
      required: ['email', 'password', 'username'],
      properties: { email, password, username: { ...text(50), pattern: '^[^\\u0000-\\u001f\\u007f]+$' }, language: { type: 'string', pattern: '^[A-Za-z]{2}$' } },
    },
  },
}));

export interface TriggerResetBody {
  data: { type: 'trigger_reset_password'; attributes: { email: string } };
}

export const triggerResetSchema = compile<TriggerResetBody>(envelope({
  required: ['type', 'attributes'],
  properties: {
    type: { type: 'string', enum: ['trigger_reset_password'] },
    attributes: { type: 'object', required: ['email'], properties: { email } },
  },
}));

export interface ResetBody {
  data: { type: 'password_reset'; attributes: { token: string; password: string } };
}

export const resetSchema = compile<ResetBody>(envelope({
  required: ['type', 'attributes'],
  properties: {
    type: { type: 'string', enum: ['password_reset'] },
    attributes: { type: 'object', required: ['token', 'password'], properties: { token: text(200), password } },
  },
}));

const ref = (type: string) => ({ type: 'object', required: ['id', 'type'], properties: { id, type: { type: 'string', enum: [type] } } }) as const;
const tariffRefs = { type: 'array', maxItems: 200, items: ref('tariff') } as const;

export interface Ref {
  id: string;
  type: string;
}

/** The usual JSON:API update of the settings (D211). */
export interface SettingsBody {
  data: { type: 'user_settings'; id: string; attributes: { version: number }; relationships: { vehicle: { data: Ref }; tariffs?: { data: Ref[] } } };
}

export const settingsSchema = compile<SettingsBody>(envelope({
  required: ['type', 'id', 'attributes', 'relationships'],
  properties: {
    type: { type: 'string', enum: ['user_settings'] },
    id,
    attributes: { type: 'object', required: ['version'], properties: { version } },
    relationships: {
      type: 'object',
      required: ['vehicle'],
      properties: {
        vehicle: { type: 'object', required: ['data'], properties: { data: ref('car') } },
        tariffs: { type: 'object', required: ['data'], properties: { data: tariffRefs } },
      },
    },
  },
}));

/** The wrapped form the client sends on its first login (D211): no `data.type`. */
export interface WrappedSettingsBody {
  data: { attributes: { data: { version: number; vehicle: Ref; tariffs?: Ref[] } } };
}

export const wrappedSettingsSchema = compile<WrappedSettingsBody>(envelope({
  required: ['attributes'],
  properties: {
    attributes: {
      type: 'object',
      required: ['data'],
      properties: {
        data: { type: 'object', required: ['version', 'vehicle'], properties: { version, vehicle: ref('car'), tariffs: tariffRefs } },
      },
    },
  },
}));

/** A product source as a client presents it (D239): its `type` and that type's fields. */
export interface ProductSource {
  type: string;
  [field: string]: unknown;
}

export interface ProductsBody {
  data: { type: 'user_products'; attributes: { source: ProductSource } };
}

const sourceField = { type: 'string', maxLength: 254 } as const;

export const productsSchema = compile<ProductsBody>(envelope({
  required: ['type', 'attributes'],
  properties: {
    type: { type: 'string', enum: ['user_products'] },
    attributes: {
      type: 'object',
      required: ['source'],
      properties: {
        source: {
          type: 'object',
          description: 'A product source (D239): `type` `code` with `code`; `emc_membership` with `member_number` and `card_number`; `carbonify_thg` with `email`, `country` and `quota_year`. A source that fits none is answered 404 PRODUCT_SOURCE_NOT_FOUND.',
          required: ['type'],
          maxProperties: 16,
          properties: {
            type: text(40),
            code: sourceField,
            member_number: sourceField,
            card_number: sourceField,
            email: sourceField,
            country: sourceField,
            quota_year: { type: ['integer', 'string'], maxLength: 8 },
          },
          additionalProperties: { type: ['string', 'number', 'boolean', 'null'], maxLength: 254 },
        },
      },
    },
  },
}));
