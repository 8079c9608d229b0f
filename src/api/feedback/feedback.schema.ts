/**
 * JSON Schemas of the feedback bodies (spec endpoints 4 and 6, D43, D45), compiled once at load.
 * Required strings may be empty; lengths are maxima in characters (code points).
 */
import { envelope, Envelope, Type, type Static } from '../jsonapi/schemas.js';
import { compile, validatorOf, type SchemaValidator } from '../jsonapi/validate.js';

export const USER_FEEDBACK_TYPES = ['other_feedback', 'missing_price', 'missing_station', 'missing_vehicle', 'wrong_price'] as const;
export type UserFeedbackType = (typeof USER_FEEDBACK_TYPES)[number];

export const PRIORITIES = ['normal', 'high', 'critical'] as const;
export const USER_PRODUCTS = ['mobile_premium'] as const;
export const SEGMENT_DIMENSIONS = ['minute', 'parking_minute', 'kwh', 'session'] as const;
/** Price segments per list and charge points per missing_station feedback (spec "Limits"). */
export const MAX_LIST_ITEMS = 50;

const str = (maxLength?: number) => (maxLength === undefined ? { type: 'string' } : { type: 'string', maxLength });

/** Price Segment (spec endpoint 6, D45). */
const priceSegment = {
  type: 'object',
  required: ['dimension', 'price'],
  properties: {
    dimension: { type: 'string', enum: SEGMENT_DIMENSIONS },
    price: { type: 'number' },
    range_gte: { type: 'integer', minimum: 0 },
    range_lt: { type: 'integer', minimum: 0 },
    currency: { type: 'string', pattern: '^[A-Za-z]{3}$' },
    time_of_day_start: { type: 'integer', minimum: 0, maximum: 1440 },
    time_of_day_end: { type: 'integer', minimum: 0, maximum: 1440 },
  },
} as const;
const segments = { type: 'array', maxItems: MAX_LIST_ITEMS, items: priceSegment } as const;

const chargePoint = {
  type: 'object',
  required: ['plug', 'power', 'count'],
  properties: {
    plug: { type: 'string' },
    power: { type: 'number', minimum: 0 },
    count: { type: 'integer', minimum: 0 },
  },
} as const;

/** Attributes every type has. */
const GENERIC: Record<string, object> = {
  notes: str(1000),
  email: str(100),
  context: str(500),
  language: str(2),
  priority: { type: 'string', enum: PRIORITIES },
  user_products: { type: 'array', items: { type: 'string', enum: USER_PRODUCTS } },
};
const GENERIC_REQUIRED = ['notes', 'email', 'context', 'language'];

/** Extra attributes per type: [properties, required names]. */
const EXTRA: Record<UserFeedbackType, [Record<string, object>, string[]]> = {
  other_feedback: [{}, []],
  missing_price: [
    {
      tariff: str(100),
      cpo: str(200),
      price: str(100),
      price_segments: segments,
      charging_station_id: str(100),
      tariff_id: str(100),
      is_direct_payment: { type: 'boolean' },
      poi_link: str(200),
    },
    ['tariff', 'cpo', 'price'],
  ],
  missing_station: [
    { location: str(200), cpo: str(200), cpo_id: str(100), charge_points: { type: 'array', maxItems: MAX_LIST_ITEMS, items: chargePoint } },
    ['location', 'cpo'],
  ],
  missing_vehicle: [{ brand: str(100), model: str(100) }, ['brand', 'model']],
  wrong_price: [
    {
      tariff: str(100),
      cpo: str(200),
      displayed_price: str(500),
      actual_price: str(500),
      displayed_price_segments: segments,
      actual_price_segments: segments,
      charging_station_id: str(100),
      tariff_id: str(100),
      poi_link: str(200),
    },
    ['tariff', 'cpo', 'displayed_price', 'actual_price'],
  ],
};

/** The attribute names stored for each type (other types' attributes are ignored, D45). */
export const ATTRIBUTES_OF: Readonly<Record<UserFeedbackType, readonly string[]>> = Object.fromEntries(
  USER_FEEDBACK_TYPES.map((t) => [t, [...Object.keys(GENERIC), ...Object.keys(EXTRA[t][0])]]),
) as Record<UserFeedbackType, string[]>;

export interface UserFeedbackBody {
  data: { type: UserFeedbackType; attributes: Record<string, unknown> };
}

/** First pass: the envelope and a known type, so the second pass can pick the type's schema. */
export const validateUserFeedbackEnvelope = compile<UserFeedbackBody>(envelope({
  required: ['type', 'attributes'],
  properties: { type: { type: 'string', enum: USER_FEEDBACK_TYPES }, attributes: { type: 'object' } },
}));

export const validateUserFeedbackOfType: Readonly<Record<UserFeedbackType, SchemaValidator<UserFeedbackBody>>> =
  Object.fromEntries(
    USER_FEEDBACK_TYPES.map((t) => [
      t,
      compile<UserFeedbackBody>(
        envelope({
          required: ['type', 'attributes'],
          properties: {
            type: { type: 'string', const: t },
            attributes: {
              type: 'object',
              required: [...GENERIC_REQUIRED, ...EXTRA[t][1]],
              properties: { ...GENERIC, ...EXTRA[t][0] },
            },
          },
        }),
      ),
    ]),
  ) as Record<UserFeedbackType, SchemaValidator<UserFeedbackBody>>;

/** D43: all five strings required, may be empty, no length limits. */
export const PartnerFeedbackBody = Envelope({
  type: Type.Unsafe<'tariff_update'>({ type: 'string', enum: ['tariff_update'] }),
  attributes: Type.Object({ content: Type.String(), tariff: Type.String(), cpo: Type.String(), emp: Type.String(), language: Type.String() }),
});
export type PartnerFeedbackBody = Static<typeof PartnerFeedbackBody>;

export const validatePartnerFeedback = validatorOf(PartnerFeedbackBody);
