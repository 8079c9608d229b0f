/**
 * Price profiles (D196): `POST /v1/price_profiles` and `GET /v1/price_profiles/{id}` (group
 * ReadCosts). A profile is what a map prices its price tiles with (tariffs, Set A or Set B, the
 * options of the bulk preview), stored normalised in the live store under an id derived from that
 * form, and kept while it is used.
 */
import type { PriceProfileDocument } from '../schemas/prices.js';
import { createHash } from 'node:crypto';
import type { LiveStore } from '../../storage/live.js';
import { PriceProfileStore } from '../../storage/price-profiles.js';
import type { StationPricesTask } from '../../pool/protocol.js';
import { DEFAULT_CHARGE_PRICE_OPTIONS } from '../../domain/pricing/index.js';
import { Attempts } from '../../auth/rate-limit.js';
import type { AppContext } from '../context.js';
import { ApiError, badParameter, badPointer } from '../jsonapi/errors.js';
import { batteryRange, Const, duration, Envelope, energy, toMany, toOne, Type, type Static } from '../jsonapi/schemas.js';
import { validatorOf } from '../jsonapi/validate.js';
import { bulkOptions, currencyOf, startDayOf, vehicleOf } from '../price-inputs.js';
import { defineRoute } from '../contract.js';
import type { ApiRequest, ApiResponse, RouteDef } from '../types.js';

const A = '/data/attributes';
export const MAX_PROFILE_TARIFFS = 200;
/** A replica writes a profile's use at most this often (D196). */
export const TOUCH_EVERY_MS = 60 * 60 * 1000;

/** A price profile's request (D196): the bulk preview's options, Set A or Set B. */
export const ProfileBody = Envelope({
  type: Type.Optional(Const('price_profile')),
  attributes: Type.Object({
    battery_range: Type.Optional(batteryRange),
    energy: Type.Optional(energy),
    duration: Type.Optional(duration),
    ...bulkOptions,
  }),
  relationships: Type.Object({ tariffs: toMany('tariff', MAX_PROFILE_TARIFFS), vehicle: Type.Optional(toOne('car')) }),
});
export type ProfileBody = Static<typeof ProfileBody>;

export const validateProfile = validatorOf(ProfileBody);

/** A profile in its normalised form (D196): the key order is part of its id. */
export interface PriceProfile {
  tariffs: string[];
  vehicle: string | null;
  battery_range: [number, number] | null;
  energy: number | null;
  duration: number | null;
  currency: string;
  start_time: number;
  start_date: string | null;
  allow_unbalanced_load: boolean;
  include_direct_payment: boolean;
  charge_points_power_lte: number | null;
}

/** The normalised profile of a request body (400/404 as the bulk preview's, D196). */
export function normalisedProfile(ctx: AppContext, body: ProfileBody): PriceProfile {
  const d = body.data;
  const a = d.attributes;
  const vehicle = d.relationships.vehicle?.data.id;
  const setA = vehicle !== undefined || a.battery_range !== undefined;
  const setB = a.energy !== undefined || a.duration !== undefined;
  if (setA && setB) throw badPointer(A, 'give either vehicle and battery_range or energy and duration, not both');
  if (!setA && !setB) throw badPointer(A, 'one input set is required: vehicle and battery_range, or energy and duration');
  if (setA) {
    if (vehicle === undefined) throw badPointer('/data/relationships/vehicle', 'vehicle is required with battery_range');
    if (a.battery_range === undefined) throw badPointer(`${A}/battery_range`, 'battery_range is required with a vehicle');
    if (!(a.battery_range[0] < a.battery_range[1])) throw badPointer(`${A}/battery_range`, 'battery_range start must be below its end');
    vehicleOf(ctx, vehicle);
  } else {
    if (a.energy === undefined) throw badPointer(`${A}/energy`, 'energy is required with duration');
    if (a.duration === undefined) throw badPointer(`${A}/duration`, 'duration is required with energy');
  }
  startDayOf(a.start_date, `${A}/start_date`);
  return {
    tariffs: [...new Set(d.relationships.tariffs.data.map((t) => t.id))].sort(),
    vehicle: vehicle ?? null,
    battery_range: a.battery_range === undefined ? null : [a.battery_range[0], a.battery_range[1]],
    energy: a.energy ?? null,
    duration: a.duration ?? null,
    currency: currencyOf(a.currency, ctx.snapshot.rates()),
    start_time: a.start_time ?? DEFAULT_CHARGE_PRICE_OPTIONS.start_time,
    start_date: a.start_date ?? null,
    allow_unbalanced_load: a.allow_unbalanced_load ?? DEFAULT_CHARGE_PRICE_OPTIONS.allow_unbalanced_load,
    include_direct_payment: a.include_direct_payment ?? false,
    charge_points_power_lte: a.charge_points_power_lte ?? null,
  };
}

/** The stored form of a profile: JSON with the keys in one order, whatever order `p` has them in. */
export function canonicalProfile(p: PriceProfile): string {
  const c: PriceProfile = {
    tariffs: p.tariffs,
    vehicle: p.vehicle,
    battery_range: p.battery_range,
    energy: p.energy,
    duration: p.duration,
    currency: p.currency,
    start_time: p.start_time,
    start_date: p.start_date,
    allow_unbalanced_load: p.allow_unbalanced_load,
    include_direct_payment: p.include_direct_payment,
    charge_points_power_lte: p.charge_points_power_lte,
  };
  return JSON.stringify(c);
}

/** A profile's id (D196): the first 32 hex digits of the SHA-256 of its stored form. */
export const profileId = (p: PriceProfile): string => createHash('sha256').update(canonicalProfile(p)).digest('hex').slice(0, 32);

/** How a price tile narrows the charge points it prices (D197). */
export interface Narrowing {
  plugs: string[] | null;
  powerGte: number | null;
  powerLte: number | null;
}

/** The bulk calculation's inputs for a profile (D196, D197), stations left out. */
export function profileTask(ctx: AppContext, p: PriceProfile, n: Narrowing): Omit<StationPricesTask, 'stations'> {
  const lte = p.charge_points_power_lte === null ? n.powerLte : n.powerLte === null ? p.charge_points_power_lte : Math.min(p.charge_points_power_lte, n.powerLte);
  return {
    tariffIds: p.tariffs,
    vehicle: p.vehicle === null ? null : vehicleOf(ctx, p.vehicle),
    batteryRange: p.battery_range ?? [0, 100],
    energy: p.energy === null ? null : { energy: p.energy, duration: p.duration! },
    currency: p.currency,
    startTime: p.start_time,
    startDay: startDayOf(p.start_date ?? undefined, `${A}/start_date`),
    allowUnbalancedLoad: p.allow_unbalanced_load,
    includeDirectPayment: p.include_direct_payment,
    chargePointsPowerLte: lte,
    chargePointsPowerGte: n.powerGte,
    plugs: n.plugs,
  };
}

interface Known {
  profile: PriceProfile;
  /**
   * The last use the store has (ms): written by this replica, read from the store, or the time of
   * a write in flight. Expiry is judged from it, never from uses only this replica knows of, so
   * every replica sees a profile expire at the same time (D196).
   */
  writtenAt: number;
}

/** Profiles a replica keeps in memory (the most recently used); the others are read again. */
export const KNOWN_PROFILES = 10_000;

/** The profiles of the live store, with the ones this replica used recently kept in memory. */
export class PriceProfiles {
  private readonly store: PriceProfileStore;
  private readonly known = new Map<string, Known>();
  /** How often a replica writes a profile's use: hourly, more often for a TTL under 4 h. */
  readonly touchEveryMs: number;

  /** `unrecorded` is told of a use that could not be written (it is written with a later one). */
  constructor(
    live: LiveStore,
    readonly ttlMs: number,
    private readonly unrecorded: (e: unknown) => void,
    /** D261: profiles the store keeps at most (the least recently used beyond are deleted). */
    private readonly max = Infinity,
  ) {
    this.store = new PriceProfileStore(live);
    this.touchEveryMs = Math.min(TOUCH_EVERY_MS, ttlMs / 4);
  }

  /**
   * Stores (or renews) a profile; its id and whether it was new. A new one is stored only when
   * `mayCreate` (D261: its key's new profiles are under their limit), else `refused`.
   */
  async register(p: PriceProfile, now = Date.now(), mayCreate = true): Promise<{ id: string; outcome: 'created' | 'renewed' | 'refused' }> {
    const body = canonicalProfile(p);
    const id = profileId(p);
    const outcome = await this.store.put(id, body, this.ttlMs, now, mayCreate, this.max);
    if (outcome !== 'refused') this.remember(id, { profile: p, writtenAt: now });
    return { id, outcome };
  }

  /**
   * The profile in memory when it is not expired (no I/O: the ETag check, whose 304 is a use as
   * well), used now.
   */
  cached(id: string, now = Date.now()): PriceProfile | undefined {
    const k = this.known.get(id);
    if (k === undefined || now - k.writtenAt > this.ttlMs) return undefined;
    this.used(id, k, now);
    return k.profile;
  }

  /** The profile, used now, and when it expires unless used again; undefined when unknown or expired. */
  async use(id: string, now = Date.now()): Promise<{ profile: PriceProfile; expiresAt: number } | undefined> {
    let k = this.known.get(id);
    if (k === undefined || now - k.writtenAt > this.ttlMs) {
      const row = await this.store.get(id, this.ttlMs, now);
      if (row === undefined) {
        this.known.delete(id);
        return undefined;
      }
      k = { profile: JSON.parse(row.body) as PriceProfile, writtenAt: row.last_used_at };
    }
    this.remember(id, k);
    this.used(id, k, now);
    return { profile: k.profile, expiresAt: k.writtenAt + this.ttlMs };
  }

  /** Keeps `k` as the most recently used, within KNOWN_PROFILES. */
  private remember(id: string, k: Known): void {
    this.known.delete(id);
    this.known.set(id, k);
    if (this.known.size > KNOWN_PROFILES) this.known.delete(this.known.keys().next().value as string);
  }

  /**
   * Records a use in the store once `touchEveryMs` passed since the last one it has (D196). A
   * profile the store no longer has alive (expired, deleted) is forgotten here too.
   */
  private used(id: string, k: Known, now: number): void {
    if (now - k.writtenAt < this.touchEveryMs) return;
    k.writtenAt = now;
    this.store.touch(id, now, this.ttlMs).then(
      (alive) => {
        if (!alive && this.known.get(id) === k) this.known.delete(id);
      },
      // A use that cannot be written now is written with a later one; the answer does not wait.
      this.unrecorded,
    );
  }
}

/** The profile of a path (404 at `profile_id` when unknown or expired). */
export async function profileOf(profiles: PriceProfiles, id: string): Promise<{ profile: PriceProfile; expiresAt: number; id: string }> {
  const found = /^[0-9a-f]{32}$/.test(id) ? await profiles.use(id) : undefined;
  if (found === undefined) throw new ApiError('NOT_FOUND', 'price profile not found', { source: { parameter: 'profile_id' } });
  return { ...found, id };
}

function resource(id: string, p: PriceProfile, expiresAt: number): PriceProfileDocument {
  const { tariffs, vehicle, ...attributes } = p;
  return {
    data: {
      type: 'price_profile',
      id,
      attributes: { ...attributes, expires_at: new Date(expiresAt).toISOString() },
      relationships: {
        tariffs: { data: tariffs.map((t) => ({ type: 'tariff', id: t })) },
        vehicle: { data: vehicle === null ? null : { type: 'car', id: vehicle } },
      },
      links: { tiles: `/v1/tiles/prices/${id}/{z}/{x}/{y}.mvt` },
    },
  };
}

export function priceProfileRoutes(ctx: AppContext, profiles: PriceProfiles): RouteDef[] {
  // D261: new profiles per key and hour (on PostgreSQL counted for all replicas together, D219's table).
  const newProfiles = new Attempts('price-profiles-new', ctx.config.priceProfilesNewPerKey, 3600, ctx.live.sharedAttempts);
  const create = async (req: ApiRequest<ProfileBody>): Promise<ApiResponse> => {
    const p = normalisedProfile(ctx, req.body);
    const now = Date.now();
    // D261: new profiles per key are limited; registering one that exists is a use, never refused.
    const key = req.keyName ?? '';
    const wait = await newProfiles.check(key, now);
    const { id, outcome } = await profiles.register(p, now, wait === 0);
    if (outcome === 'refused') throw new ApiError('TOO_MANY_REQUESTS', 'too many new price profiles, retry later', { headers: { 'Retry-After': String(wait) } });
    if (outcome === 'created') await newProfiles.count(key, now);
    const headers = { Location: `/v1/price_profiles/${id}` };
    return { status: outcome === 'created' ? 201 : 200, body: JSON.stringify(resource(id, p, now + profiles.ttlMs)), headers };
  };
  const read = async (req: ApiRequest): Promise<ApiResponse> => {
    const id = req.params.id;
    if (!/^[0-9a-f]{32}$/.test(id)) throw badParameter('id', 'a price profile id is 32 lower-case hex digits');
    const found = await profiles.use(id);
    if (found === undefined) throw new ApiError('NOT_FOUND', 'price profile not found', { source: { parameter: 'id' } });
    return { status: 200, body: JSON.stringify(resource(id, found.profile, found.expiresAt)) };
  };
  return [
    defineRoute({ method: 'POST', path: '/v1/price_profiles', answers: { status: 201, response: (s) => s.PriceProfileDocument, alsoSuccess: { '200': 'The same profile existed already (its id is derived from its normalised form, D196)' }, headers: ['Location'] }, groups: ['ReadCosts'], input: validateProfile, handler: create }),
    { method: 'GET', path: '/v1/price_profiles/:id', answers: { status: 200, response: (s) => s.PriceProfileDocument }, groups: ['ReadCosts'], body: false, handler: read },
  ];
}
