/**
 * JSON Schemas of the feedback bodies (spec endpoints 4 and 6, D43, D45), compiled once at load.
 * Required strings may be empty; lengths are maxima in characters (code points).
 */
import { Envelope, Type, type Static, type TProperties } from '../jsonapi/schemas.js';
import { validatorOf } from '../jsonapi/validate.js';

export const USER_FEEDBACK_TYPES = ['other_feedback', 'missing_price', 'missing_station', 'missing_vehicle', 'wrong_price'] as const;
export type UserFeedbackType = (typeof USER_FEEDBACK_TYPES)[number];

export const PRIORITIES = ['normal', 'high', 'critical'] as const;
export const USER_PRODUCTS = ['mobile_premium'] as const;
export const SEGMENT_DIMENSIONS = ['minute', 'parking_minute', 'kwh', 'session'] as const;
/** Price segments per list and charge points per missing_station feedback (spec "Limits"). */
export const MAX_LIST_ITEMS = 50;

const str = (maxLength: number) => Type.String({ maxLength });
const opt = Type.Optional;

/** Price Segment (spec endpoint 6, D45). */
const priceSegment = Type.Object({
  dimension: Type.Unsafe<(typeof SEGMENT_DIMENSIONS)[number]>({ type: 'string', enum: SEGMENT_DIMENSIONS }),
  price: Type.Number(),
  range_gte: opt(Type.Integer({ minimum: 0 })),
  range_lt: opt(Type.Integer({ minimum: 0 })),
  currency: opt(Type.String({ pattern: '^[A-Za-z]{3}$' })),
  time_of_day_start: opt(Type.Integer({ minimum: 0, maximum: 1440 })),
  time_of_day_end: opt(Type.Integer({ minimum: 0, maximum: 1440 })),
});
const segments = Type.Array(priceSegment, { maxItems: MAX_LIST_ITEMS });

const chargePoint = Type.Object({
  plug: Type.String(),
  power: Type.Number({ minimum: 0 }),
  count: Type.Integer({ minimum: 0 }),
});

/** Attributes every type has. */
const GENERIC = {
  notes: str(1000),
  email: str(100),
  context: str(500),
  language: str(2),
  priority: opt(Type.Unsafe<(typeof PRIORITIES)[number]>({ type: 'string', enum: PRIORITIES })),
  user_products: opt(Type.Array(Type.Unsafe<(typeof USER_PRODUCTS)[number]>({ type: 'string', enum: USER_PRODUCTS }))),
};

/** Attributes of each type beyond the generic ones. */
const EXTRA = {
  other_feedback: {},
  missing_price: {
    tariff: str(100),
    cpo: str(200),
    price: str(100),
    price_segments: opt(segments),
    charging_station_id: opt(str(100)),
    tariff_id: opt(str(100)),
    is_direct_payment: opt(Type.Boolean()),
    poi_link: opt(str(200)),
  },
  missing_station: {
    location: str(200),
    cpo: str(200),
    cpo_id: opt(str(100)),
    charge_points: opt(Type.Array(chargePoint, { maxItems: MAX_LIST_ITEMS })),
  },
  missing_vehicle: { brand: str(100), model: str(100) },
  wrong_price: {
    tariff: str(100),
    cpo: str(200),
    displayed_price: str(500),
    actual_price: str(500),
    displayed_price_segments: opt(segments),
    actual_price_segments: opt(segments),
    charging_station_id: opt(str(100)),
    tariff_id: opt(str(100)),
    poi_link: opt(str(200)),
  },
} satisfies Record<UserFeedbackType, TProperties>;

/** `data` of one feedback type: its `type` and its attributes (the generic ones, then its own). */
const feedbackOf = <T extends UserFeedbackType, P extends TProperties>(type: T, extra: P) =>
  Type.Object({ type: Type.Unsafe<T>({ type: 'string', const: type }), attributes: Type.Object({ ...GENERIC, ...extra }) });

const BRANCHES = [
  feedbackOf('other_feedback', EXTRA.other_feedback),
  feedbackOf('missing_price', EXTRA.missing_price),
  feedbackOf('missing_station', EXTRA.missing_station),
  feedbackOf('missing_vehicle', EXTRA.missing_vehicle),
  feedbackOf('wrong_price', EXTRA.wrong_price),
];

/**
 * The user feedback body (spec endpoint 6, D45): `data` is one of the five types, told apart by
 * `type`; only the named type's schema applies, and an unknown type is one 400 at `/data/type`.
 */
export const UserFeedbackBody = Type.Object({ data: Type.Tagged('type', BRANCHES) });
export type UserFeedbackBody = Static<typeof UserFeedbackBody>;

export const validateUserFeedback = validatorOf(UserFeedbackBody);

/** The attribute names stored for each type (other types' attributes are ignored, D45): the names its branch states. */
export const ATTRIBUTES_OF: Readonly<Record<UserFeedbackType, readonly string[]>> = Object.fromEntries(
  USER_FEEDBACK_TYPES.map((t) => [t, [...Object.keys(GENERIC), ...Object.keys(EXTRA[t])]]),
) as Record<UserFeedbackType, string[]>;

/** D43: all five strings required, may be empty, no length limits. */
export const PartnerFeedbackBody = Envelope({
  type: Type.Unsafe<'tariff_update'>({ type: 'string', enum: ['tariff_update'] }),
  attributes: Type.Object({ content: Type.String(), tariff: Type.String(), cpo: Type.String(), emp: Type.String(), language: Type.String() }),
});
export type PartnerFeedbackBody = Static<typeof PartnerFeedbackBody>;

export const validatePartnerFeedback = validatorOf(PartnerFeedbackBody);
