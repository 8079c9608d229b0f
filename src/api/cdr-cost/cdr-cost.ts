/**
 * `POST /v1/ocpi/cdr_cost` (group ReadCosts, D140–D146): the cost of a charging session under an
 * OCPI 2.2.1 or 2.1.1 Tariff. The body's schema, the checks that need more than a schema (dates,
 * period order, currencies, the time zone) and the answer document; `npm run ocpi:cost` prints the
 * same document from files.
 */
import type { CdrCostDocument } from '../schemas/prices.js';
import { Const, Envelope, Type, type Static } from '../jsonapi/schemas.js';
import { createHash } from 'node:crypto';
import { CdrTooComplex, cdrCostBounded, checkBound, elementsOf, isTimeZone, preparedTariff, type OcpiSessionInput, type OcpiTariffInput } from '../../domain/ocpi/cdr-cost.js';
import type { AppContext } from '../context.js';
import { ocpiInstant } from '../../domain/ocpi/instant.js';

export { ocpiInstant };
import { ApiError, type ErrorObject, pointerError } from '../jsonapi/errors.js';
import { validatorOf } from '../jsonapi/validate.js';
import { defineRoute } from '../contract.js';

const { Optional } = Type;
import type { ApiRequest, ApiResponse, RouteDef } from '../types.js';
import type { CdrCostTask, TaskDocument } from '../../pool/protocol.js';

const A = '/data/attributes';
const MAX_PERIODS = 10_000;
/** Longest session priced (days): the period cuts grow with the session's length. */
const MAX_SESSION_DAYS = 31;
/** D172: how long before the session its first charging period may start (real CDRs: the whole hour). */
const MAX_LEAD_MS = 24 * 3_600_000;

const num0 = { type: 'number', minimum: 0, maximum: 1e9 } as const;
const optNum = { type: ['number', 'null'], minimum: 0, maximum: 1e9 } as const;
const HHMM = { type: ['string', 'null'], pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$' } as const;
const DATE = { type: ['string', 'null'], pattern: '^[12][0-9]{3}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$' } as const;
/**
 * OCPI DateTime: RFC 3339 with or without a zone designator (without one it is UTC, as OCPI
 * 2.2.1 allows); a reading that is no instant (a leap second `23:59:60`, 30 February) is refused
 * by `checkCdrCost` with its pointer.
 */
const DATE_TIME = { type: 'string', maxLength: 40, pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{1,9})?(Z|z|[+-][0-9]{2}:[0-9]{2})?$' } as const;

/** An OCPI DateTime as given, with `Z` added when it names no zone (D141). */
export function utcDateTime(s: string): string {
  const n = s.length;
  const last = s.charCodeAt(n - 1);
  const sign = s.charCodeAt(n - 6);
  const zoned = last === 90 || last === 122 || ((sign === 43 || sign === 45) && s.charCodeAt(n - 3) === 58);
  return zoned ? s : `${s}Z`;
}

const price = { type: ['object', 'null'], required: ['excl_vat'], properties: { excl_vat: num0, incl_vat: optNum } } as const;
/** CDR dimension types of OCPI 2.2.1 and 2.1.1. */
export const CDR_DIMENSIONS = [
  'CURRENT',
  'ENERGY',
  'ENERGY_EXPORT',
  'ENERGY_IMPORT',
  'MAX_CURRENT',
  'MIN_CURRENT',
  'MAX_POWER',
  'MIN_POWER',
  'PARKING_TIME',
  'POWER',
  'RESERVATION_TIME',
  'STATE_OF_CHARGE',
  'TIME',
  'FLAT',
] as const;

/** An OCPI Tariff as the service prices it (the OCPI model's type, D140). */
const tariffSchema = Type.Unsafe<OcpiTariffInput>({
  type: 'object',
  required: ['currency', 'elements'],
  properties: {
    currency: { type: 'string', pattern: '^[A-Z]{3}$' },
    min_price: price,
    max_price: price,
    elements: {
      type: 'array',
      minItems: 1,
      maxItems: 1000,
      items: {
        type: 'object',
        required: ['price_components'],
        properties: {
          price_components: {
            type: 'array',
            minItems: 1,
            maxItems: 10,
            items: {
              type: 'object',
              required: ['type', 'price'],
              properties: {
                type: { enum: ['ENERGY', 'FLAT', 'PARKING_TIME', 'TIME'] },
                price: num0,
                vat: { type: ['number', 'null'], minimum: 0, maximum: 100 },
                step_size: { type: ['integer', 'null'], minimum: 0, maximum: 1e9 },
              },
            },
          },
          restrictions: {
            type: ['object', 'null'],
            properties: {
              start_time: HHMM,
              end_time: HHMM,
              start_date: DATE,
              end_date: DATE,
              min_kwh: optNum,
              max_kwh: optNum,
              min_current: optNum,
              max_current: optNum,
              min_power: optNum,
              max_power: optNum,
              min_duration: { type: ['integer', 'null'], minimum: 0, maximum: 1e9 },
              max_duration: { type: ['integer', 'null'], minimum: 0, maximum: 1e9 },
              day_of_week: { type: ['array', 'null'], maxItems: 7, items: { enum: ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'] } },
              reservation: { enum: ['RESERVATION', 'RESERVATION_EXPIRES', null] },
            },
          },
        },
      },
    },
  },
});

const dateTime = Type.Unsafe<string>(DATE_TIME);
/** The charging periods of a CDR (OCPI 2.2.1 and 2.1.1 dimensions). */
const periodsSchema = Type.Unsafe<OcpiSessionInput['charging_periods']>({
  type: 'array',
  minItems: 1,
  maxItems: MAX_PERIODS,
  items: {
    type: 'object',
    required: ['start_date_time', 'dimensions'],
    properties: {
      start_date_time: DATE_TIME,
      dimensions: {
        type: 'array',
        maxItems: 20,
        items: { type: 'object', required: ['type', 'volume'], properties: { type: { enum: CDR_DIMENSIONS }, volume: num0 } },
      },
    },
  },
});

/** The request: an OCPI Tariff, the CDR (2.2.1 `end_date_time` or 2.1.1 `stop_date_time`) and the time zone. */
export const CdrCostBody = Envelope({
  type: Const('ocpi_cdr_cost_request'),
  attributes: Type.Object({
    tariff: tariffSchema,
    cdr: Type.Object({
      id: Optional(Type.String({ maxLength: 200 })),
      currency: Optional(Type.String({ pattern: '^[A-Z]{3}$' })),
      start_date_time: dateTime,
      end_date_time: Optional(dateTime),
      stop_date_time: Optional(dateTime),
      charging_periods: periodsSchema,
    }),
    timezone: Optional(Type.String({ minLength: 1, maxLength: 64 })),
  }),
});
export type CdrCostBody = Static<typeof CdrCostBody>;
export type CdrCostAttributes = CdrCostBody['data']['attributes'];
export const validateCdrCost = validatorOf(CdrCostBody);

/** The checks a schema cannot make; every failure with its pointer (under `base`). */
export function checkCdrCost(a: CdrCostAttributes, base = A): ErrorObject[] {
  const errors: ErrorObject[] = [];
  const bad = (pointer: string, title: string) => errors.push(pointerError(`${base}${pointer}`, title));
  const tz = a.timezone ?? 'UTC';
  if (!isTimeZone(tz)) bad('/timezone', `timezone ${tz} is not an IANA time zone`);
  const endText = a.cdr.end_date_time ?? a.cdr.stop_date_time;
  if (endText === undefined) bad('/cdr/end_date_time', 'cdr end_date_time (or stop_date_time for OCPI 2.1.1) is required');
  if (a.cdr.currency !== undefined && a.cdr.currency !== a.tariff.currency) bad('/cdr/currency', `the CDR currency ${a.cdr.currency} differs from the tariff currency ${a.tariff.currency}`);
  const instant = (text: string, pointer: string): number => {
    const t = ocpiInstant(text);
    if (Number.isNaN(t)) bad(pointer, `${text} is not an instant (a leap second, or a day the month does not have)`);
    return t;
  };
  const start = instant(a.cdr.start_date_time, '/cdr/start_date_time');
  const end = endText === undefined ? NaN : instant(endText, a.cdr.end_date_time !== undefined ? '/cdr/end_date_time' : '/cdr/stop_date_time');
  if (!Number.isNaN(end) && end < start) bad(a.cdr.end_date_time !== undefined ? '/cdr/end_date_time' : '/cdr/stop_date_time', 'the session ends before it starts');
  if (!Number.isNaN(end) && end - start > MAX_SESSION_DAYS * 86_400_000) bad('/cdr/end_date_time', `sessions of at most ${MAX_SESSION_DAYS} days are priced`);
  // The first period may start before the session: real CDRs start it at the whole hour or at
  // the first meter value (D141). Durations still count from the session's start_date_time.
  const first = ocpiInstant(a.cdr.charging_periods[0].start_date_time);
  if (first < start - MAX_LEAD_MS) bad('/cdr/charging_periods/0/start_date_time', 'the first charging period starts more than 24 hours before the session');
  let previous = -Infinity;
  a.cdr.charging_periods.forEach((p, i) => {
    const t = instant(p.start_date_time, `/cdr/charging_periods/${i}/start_date_time`);
    if (t < previous) bad(`/cdr/charging_periods/${i}/start_date_time`, 'charging periods must be in order of start_date_time');
    else if (!Number.isNaN(end) && t > end) bad(`/cdr/charging_periods/${i}/start_date_time`, 'the charging period starts after the session ended');
    previous = Math.max(previous, t);
  });
  return errors;
}

/** The session to price, every DateTime with its zone (UTC where the CDR named none). */
function sessionOf(a: CdrCostAttributes): OcpiSessionInput {
  return {
    start_date_time: utcDateTime(a.cdr.start_date_time),
    end_date_time: utcDateTime((a.cdr.end_date_time ?? a.cdr.stop_date_time)!),
    charging_periods: a.cdr.charging_periods.map((p) => ({ ...p, start_date_time: utcDateTime(p.start_date_time) })),
  };
}

/** The answer, typed by its schema in /openapi.json (D234). */
export type { CdrCostDocument } from '../schemas/prices.js';

/**
 * A request validated, checked and bounded on the main thread (D226): its attributes as JSON text
 * for the thread that prices it, its id, and its cost bound in element checks (D172).
 */
export interface PreparedCdrCost {
  task: CdrCostTask;
  checks: number;
}

/** Validates a request body and bounds its cost; throws ApiError (400) with every failure. */
export function prepareCdrCost(body: unknown): PreparedCdrCost {
  return prepareChecked(validateCdrCost(body).data.attributes);
}

/** Bounds the cost of a request its schema passed: the checks a schema cannot make first (400 with every failure). */
function prepareChecked(a: CdrCostAttributes): PreparedCdrCost {
  const errors = checkCdrCost(a);
  if (errors.length > 0) throw ApiError.many(400, errors);
  // The tariff's text keys its preparation, kept by content on this thread and the pricing one (D280).
  const tariff = JSON.stringify(a.tariff);
  let checks: number;
  try {
    checks = checkBound(preparedTariff(tariff, a.tariff), sessionOf(a), a.timezone ?? 'UTC');
  } catch (e) {
    if (!(e instanceof CdrTooComplex)) throw e;
    throw ApiError.many(400, [pointerError(`${A}/cdr/charging_periods`, e.message)]);
  }
  const text = JSON.stringify(a);
  const id = a.cdr.id ?? createHash('sha256').update(text).digest('hex').slice(0, 32);
  return { task: { text, tariff, id }, checks };
}

/** The document of a prepared request (run inline or in a pricing worker: the same bytes either way). */
export function cdrCostOf(task: CdrCostTask): CdrCostDocument {
  const a = JSON.parse(task.text) as CdrCostAttributes;
  const session = sessionOf(a);
  // Bounded by `prepareCdrCost` (D172), on this thread or the main one.
  const r = cdrCostBounded(preparedTariff(task.tariff, a.tariff), session, a.timezone ?? 'UTC');
  return {
    data: {
      id: task.id,
      type: 'cdr_cost',
      attributes: {
        currency: a.tariff.currency,
        timezone: a.timezone ?? 'UTC',
        total_cost: r.total_cost,
        total_energy_cost: r.total_energy_cost,
        total_time_cost: r.total_time_cost,
        total_parking_time_cost: r.total_parking_time_cost,
        total_fixed_cost: r.total_fixed_cost,
        total_reservation_cost: r.total_reservation_cost,
        total_energy: r.billed.energy,
        total_time: r.billed.time,
        total_parking_time: r.billed.parking_time,
        total_reservation_time: r.billed.reservation_time,
        price_bound: r.price_bound,
        charging_periods: session.charging_periods.map((p, k) => ({ start_date_time: p.start_date_time, tariff_elements: elementsOf(r, k) })),
      },
    },
  };
}

/** The price task of cdr_cost (src/api/price-work.ts): always a 200 document, its errors answered before dispatch. */
export function runCdrCost(task: CdrCostTask): TaskDocument {
  return { status: 200, body: JSON.stringify(cdrCostOf(task)) };
}

/** Validates a request body and prices it on this thread (`npm run ocpi:cost`, tests); throws ApiError (400). */
export function cdrCostDocument(body: unknown): CdrCostDocument {
  return cdrCostOf(prepareCdrCost(body).task);
}

/** A small CDR across an element switch in a zone with summer time: what `warmCdrCost` prices. */
const WARM_BODY = {
  data: {
    type: 'ocpi_cdr_cost_request',
    attributes: {
      timezone: 'Europe/Berlin',
      tariff: { currency: 'EUR', elements: [{ price_components: [{ type: 'TIME', price: 2, vat: 19, step_size: 60 }], restrictions: { start_time: '08:00', end_time: '20:00', max_current: 32 } }, { price_components: [{ type: 'PARKING_TIME', price: 1, step_size: 300 }] }] },
      cdr: {
        start_date_time: '2024-03-04T09:30:00Z',
        end_date_time: '2024-03-04T11:00:00Z',
        charging_periods: [
          { start_date_time: '2024-03-04T09:30:00Z', dimensions: [{ type: 'ENERGY', volume: 10 }, { type: 'TIME', volume: 1 }, { type: 'MAX_CURRENT', volume: 16 }] },
          { start_date_time: '2024-03-04T10:30:00Z', dimensions: [{ type: 'PARKING_TIME', volume: 0.5 }] },
        ],
      },
    },
  },
};

/**
 * The one-time set-up of the first cdr_cost, done at start (D259): the request schema's
 * compilation, the process's first Intl time zone format and a zone table, through one small
 * request. Returns its total excluding VAT (2.5), so that the set-up is seen to price.
 */
export function warmCdrCost(): number {
  return cdrCostDocument(WARM_BODY).data.attributes.total_cost.excl_vat;
}

export function cdrCostRoutes(ctx: AppContext): RouteDef[] {
  // Planned like other price work (D226): inline when its bound is small, else in a pricing worker.
  const handler = (req: ApiRequest<CdrCostBody>): Promise<ApiResponse> => {
    const p = prepareChecked(req.body.data.attributes);
    return ctx.prices.run(ctx.prices.plan({ task: 'cdrCost', checks: p.checks }), p.task);
  };
  // OCPI's nulls are values (`"vat": null`, `"restrictions": null`): the body is checked as sent.
  return [defineRoute({ method: 'POST', path: '/v1/ocpi/cdr_cost', answers: { status: 200, response: (s) => s.CdrCostDocument }, groups: ['ReadCosts'], input: validateCdrCost, keepNulls: true, admission: 'cost', handler })];
}

