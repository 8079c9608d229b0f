/** JSON Schemas of the account bodies (D200–D212), in the original web client's protocol. */
import { Envelope, Type, type Static } from '../jsonapi/schemas.js';
import { validatorOf } from '../jsonapi/validate.js';

const { Optional } = Type;
const text = (max: number) => Type.String({ minLength: 1, maxLength: max });
/** Long enough for any password the rules accept; the rules themselves are D202's. */
const password = Type.String({ maxLength: 1024 });
const email = Type.String({ maxLength: 1024 });
const version = Type.Integer({ minimum: 1, maximum: 2_147_483_647 });
const id = text(100);
/** The body's `data.type`, written `{"type": "string", "enum": [name]}` as the client's protocol always had it. */
const named = <T extends string>(name: T) => Type.Unsafe<T>({ type: 'string', enum: [name] });

export const EmailAuthentication = Envelope({ type: named('email_authentication'), attributes: Type.Object({ email, password }) });
export const emailAuthenticationSchema = validatorOf(EmailAuthentication);

export const RefreshAuthentication = Envelope({ type: named('refresh_token_authentication'), attributes: Type.Object({ refresh_token: text(200) }) });
export const refreshAuthenticationSchema = validatorOf(RefreshAuthentication);

export const SignupBody = Envelope({
  type: named('user'),
  attributes: Type.Object({
    email,
    password,
    username: Type.String({ minLength: 1, maxLength: 50, pattern: '^[^\\u0000-\\u001f\\u007f]+$' }),
    language: Optional(Type.String({ pattern: '^[A-Za-z]{2}$' })),
  }),
});
export type SignupBody = Static<typeof SignupBody>;
export const signupSchema = validatorOf(SignupBody);

export const TriggerResetBody = Envelope({ type: named('trigger_reset_password'), attributes: Type.Object({ email }) });
export const triggerResetSchema = validatorOf(TriggerResetBody);

export const ResetBody = Envelope({ type: named('password_reset'), attributes: Type.Object({ token: text(200), password }) });
export const resetSchema = validatorOf(ResetBody);

const ref = <T extends string>(type: T) => Type.Object({ id, type: named(type) });
const tariffRefs = Type.Array(ref('tariff'), { maxItems: 200 });

/** A reference of the settings: `{id, type}`. */
export type Ref = Static<ReturnType<typeof ref>>;

/** The usual JSON:API update of the settings (D211). */
export const SettingsBody = Envelope({
  type: named('user_settings'),
  id,
  attributes: Type.Object({ version }),
  relationships: Type.Object({
    vehicle: Type.Object({ data: ref('car') }),
    tariffs: Optional(Type.Object({ data: tariffRefs })),
  }),
});
export const settingsSchema = validatorOf(SettingsBody);

/** The wrapped form the client sends on its first login (D211): no `data.type`. */
export const WrappedSettingsBody = Envelope({
  attributes: Type.Object({ data: Type.Object({ version, vehicle: ref('car'), tariffs: Optional(tariffRefs) }) }),
});
export const wrappedSettingsSchema = validatorOf(WrappedSettingsBody);

const sourceField = Optional(Type.String({ maxLength: 254 }));

/** A product source as a client presents it (D239): its `type` and that type's fields. */
const ProductSource = Type.Object(
  {
    type: text(40),
    code: sourceField,
    member_number: sourceField,
    card_number: sourceField,
    email: sourceField,
    country: sourceField,
    quota_year: Optional(Type.Unsafe<number | string>({ type: ['integer', 'string'], maxLength: 8 })),
  },
  {
    description: 'A product source (D239): `type` `code` with `code`; `emc_membership` with `member_number` and `card_number`; `carbonify_thg` with `email`, `country` and `quota_year`. A source that fits none is answered 404 PRODUCT_SOURCE_NOT_FOUND.',
    maxProperties: 16,
    additionalProperties: { type: ['string', 'number', 'boolean', 'null'], maxLength: 254 },
  },
);

export const ProductsBody = Envelope({ type: named('user_products'), attributes: Type.Object({ source: ProductSource }) });
export type ProductsBody = Static<typeof ProductsBody>;
export const productsSchema = validatorOf(ProductsBody);


/**
 * The bodies of a choice of shapes, as the description states them (RouteDef.bodySchema): the
 * handler tells the shape by `data.type` and checks it with that shape's validator (after its own
 * checks, D239), so the schema is the choice of the very objects those validators compile.
 */
export const AUTHENTICATION_BODY = { schema: { oneOf: [emailAuthenticationSchema.schema, refreshAuthenticationSchema.schema] } } as const;
export const SETTINGS_BODY = { schema: { oneOf: [settingsSchema.schema, wrappedSettingsSchema.schema] } } as const;
