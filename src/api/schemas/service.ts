/** Vehicles, devices, availability feeds, operations, admin and account answers. */
import { Closed, Lit, OverallCount, DateTime, Id, Nullable, OrNull, PageLinks, Resource, ToMany, ToOne, Type, Version, type Static } from './common.js';

const Kw = Type.Number({ minimum: 0, description: 'kW' });

export const CarV1 = Resource(
  'car',
  Closed({
    name: Type.String({ description: 'Model, variant and release year' }),
    brand: Type.String(),
    dc_charge_ports: Type.Array(Type.String()),
    usable_battery_size: Type.Number({ minimum: 0, description: 'Net kWh' }),
    ac_max_power: Kw,
    dc_max_power: Nullable('number', { minimum: 0, description: 'kW; null without DC' }),
  }),
  { manufacturer: ToOne('brand') },
);
export const CarV1ListDocument = Closed({ data: Type.Array(CarV1) });
export type CarV1 = Static<typeof CarV1>;

export const CarV2Attributes = Closed({
  ev_type: Lit('bev', 'phev'),
    model: Type.String(),
    release_year: Nullable('integer'),
    variant: Type.String(),
    usable_battery_size: Type.Number({ minimum: 0, description: 'Net kWh' }),
    ac_phases: Type.Integer({ minimum: 0, maximum: 3 }),
    ac_ports: Type.Array(Type.String()),
    ac_max_power: Kw,
    ac_power_per_charging_point: Type.Optional(
      OrNull(Type.Record(Type.String({ pattern: '^[0-9]+\\.[0-9]$' }), Kw), { description: 'Station kW → car kW (single read and filter[id] only)' }),
    ),
    dc_ports: Type.Array(Type.String()),
    dc_max_power: Nullable('number', { minimum: 0 }),
    dc_charging_curve: Type.Optional(Type.Array(Closed({ percentage: Type.Number({ minimum: 0, maximum: 100 }), power: Kw }))),
    dc_default_charging_curve: Type.Boolean(),
    energy_consumption: Closed({ average_consumption: Nullable('number', { description: 'kWh per 100 km' }) }),
    dc_charge_ports: Type.Array(Type.String()),
});
/** A car of /v2/vehicles: the members of fields[car] (all by default). */
export const CarV2 = Closed({
  id: Id,
  type: Type.Literal('car'),
  attributes: Type.Optional(Type.Partial(CarV2Attributes)),
  relationships: Type.Optional(Closed({ manufacturer: ToOne('vehicle_brand') })),
});
export type CarV2Attributes = Static<typeof CarV2Attributes>;
const Brand = Resource('vehicle_brand', Closed({ name: Type.String() }));
export const CarV2ListDocument = Closed({ data: Type.Array(CarV2), included: Type.Optional(Type.Array(Brand)), meta: OverallCount, links: PageLinks });
export const BrandListDocument = Closed({ data: Type.Array(Brand), meta: OverallCount });

export const DeviceDocument = Closed({ data: Closed({ id: Id, type: Type.Literal('crm_device') }) });

export const AvailabilityDocument = Closed({
  meta: Closed({
    received: Type.Integer({ minimum: 0 }),
    applied: Type.Integer({ minimum: 0 }),
    stale: Type.Integer({ minimum: 0 }),
    unknown: Type.Integer({ minimum: 0 }),
    unknown_evse_ids: Type.Array(Type.String()),
  }),
});
/** OCPI 2.2.1's response envelope (OCPI status codes: 1000 success, 2xxx client errors). */
export const OcpiResponse = Closed({
  data: Type.Null(),
  status_code: Type.Integer({ minimum: 1000, maximum: 4999 }),
  status_message: Type.String(),
  timestamp: DateTime,
});

export const HealthDocument = Closed({
  status: Type.Literal('ok'),
  snapshot: Closed({ format_version: Type.Integer(), version: Type.String(), built_at: DateTime, rates_date: Type.String() }),
  uptime_seconds: Type.Number({ minimum: 0 }),
});
const Behind = Closed({ version: Type.String(), detail: Type.String() }, { description: 'D220: a swap of the cluster this replica could not follow' });
export const ReadyDocument = Closed({
  status: Type.Literal('ready'),
  checks: Closed({ snapshot: Type.String(), pool: Type.String(), live_store: Type.String() }),
  snapshot: Closed({ version: Type.String(), cluster: Type.Optional(Behind) }),
});
export const AttributionDocument = Closed({ meta: Closed({ attribution: Type.String(), snapshot: Closed({ version: Type.String(), built_at: DateTime }) }) });

const Outcome = Lit('swapped', 'refused', 'missing', 'unreachable', 'pending');
export const SnapshotDocument = Closed({
  data: Resource(
    'snapshots',
    Closed({
      version: Type.String(),
      built_at: DateTime,
      file: Type.String(),
      stations: Type.Integer({ minimum: 0 }),
      generation: Type.Integer({ minimum: 0 }),
      load_ms: Type.Integer({ minimum: 0 }),
      swap_ms: Type.Number({ minimum: 0 }),
    }),
  ),
  meta: Type.Optional(
    Closed({
      replicas: Type.Optional(Type.Array(Closed({ id: Type.String(), name: Type.String(), outcome: Outcome, version: Nullable('string'), detail: Nullable('string') }))),
      cluster: Type.Optional(Type.String({ description: 'Why the other replicas could not be told' })),
    }),
  ),
});

export const TokenPairDocument = Closed({
  data: Closed({
    type: Type.Literal('authentication_result'),
    attributes: Closed({ access_token: Type.String({ description: 'JWT (sub, email, username, exp)' }), refresh_token: Type.String() }),
  }),
});
export const SettingsDocument = Closed({
  data: Resource('user_settings', Closed({ version: Version }), { vehicle: ToOne('car'), tariffs: ToMany('tariff') }),
  meta: Closed({ products: Type.Array(Type.String()) }),
});
export const ProductsDocument = Closed({ data: Closed({ type: Type.Literal('user_products'), attributes: Closed({ products: Type.Array(Type.String()) }) }) });

export type SettingsDocument = Static<typeof SettingsDocument>;
export type SnapshotDocument = Static<typeof SnapshotDocument>;
export type HealthDocument = Static<typeof HealthDocument>;
export type ReadyDocument = Static<typeof ReadyDocument>;
export type DeviceDocument = Static<typeof DeviceDocument>;
export type AvailabilityDocument = Static<typeof AvailabilityDocument>;
export type OcpiResponse = Static<typeof OcpiResponse>;
