/** Station answers (spec: charging_station; D3, D27–D29; clusters D194, TileJSON D193). */
import { Closed, Lit, OverallCount, Country, Id, Nullable, OrNull, PageLinks, Ref, Resource, Timestamp, ToMany, ToOneOrNull, Type, Version, type Static } from './common.js';

const Latitude = Type.Number({ minimum: -90, maximum: 90 });
const Longitude = Type.Number({ minimum: -180, maximum: 180 });
const EnergyType = Lit('ac', 'dc');
const Power = Type.Number({ minimum: 0, description: 'kW' });

/** Charge points grouped by plug and power; `evse_ids` and `available_count` in the list shape. */
export const ChargePoint = Closed({
  plug: Type.String(),
  energy_type: EnergyType,
  power: Power,
  count: Type.Integer({ minimum: 0 }),
  evse_ids: Type.Optional(Type.Array(Type.String())),
  available_count: Type.Optional(Nullable('integer', { minimum: 0, description: 'Ready and not occupied (null = unknown, D3); single read: only with availability=true' })),
});

const Branding = OrNull(Closed({ map_pin_icon_url: Type.String() }));
const StationMeta = Closed({ branding: Branding });

const common = {
  name: Type.String(),
  latitude: Latitude,
  longitude: Longitude,
  country: Country,
  address: Type.String(),
  free_parking: Nullable('boolean', { description: 'null = unknown' }),
  free_charging: Nullable('boolean', { description: 'null = unknown' }),
  evse_ids: Type.Array(Type.String()),
  charge_points: Type.Array(ChargePoint),
  facilities: Type.Array(Type.String()),
  parking_type: Nullable('string'),
  version: Version,
  source_label: Nullable('string'),
};

/** The list-shape attributes (D28), also the properties of a station feature (D237). */
export const listAttributes = {
  ...common,
  evse_operator: Nullable('string', { description: 'eMI3 EVSE operator id' }),
  created_at: Timestamp,
  updated_at: Timestamp,
};
export const StationListAttributes = Closed(listAttributes);

const FacilityDetail = Closed({ facility_types: Type.Array(Type.String()), name: Nullable('string'), longitude: Longitude, latitude: Latitude });

export const StationSingleAttributes = Closed({
  ...common,
  parking_description: Type.Optional(Nullable('string', { description: 'Localised by Accept-Language' })),
  facility_details: Type.Array(FacilityDetail),
});

const operator = { operator: ToOneOrNull('company') };
export const StationInList = Resource('charging_station', StationListAttributes, operator, { meta: StationMeta });
export const StationSingle = Resource('charging_station', StationSingleAttributes, operator, { meta: StationMeta });

/** The company included with stations (D29): `name` by default, `supported_emps` through fields[company]. */
export const IncludedCompany = Closed({
  id: Id,
  type: Type.Literal('company'),
  attributes: Type.Optional(Closed({ name: Type.String() })),
  relationships: Type.Optional(Closed({ supported_emps: ToMany('company') })),
});

export const StationListMeta = Closed({
  more_available: Type.Boolean(),
  disabled_ext_b_countries: Type.Array(Type.String(), { description: 'DISABLED_EXT_B_COUNTRIES as set' }),
  snapshot_version: Type.String({ description: 'The snapshot the page was read from (D27)' }),
});

export const StationListDocument = Closed({
  data: Type.Array(StationInList),
  included: Type.Array(IncludedCompany),
  meta: StationListMeta,
  links: PageLinks,
});
export const StationDocument = Closed({
  data: StationSingle,
  included: Type.Array(IncludedCompany),
  meta: Closed({ snapshot_version: Type.String({ description: 'The snapshot the station was read from (D27, D236)' }) }),
});

export const Cluster = Resource(
  'station_cluster',
  Closed({
    count: Type.Integer({ minimum: 2 }),
    latitude: Latitude,
    longitude: Longitude,
    bbox: Type.Array(Type.Number(), { minItems: 4, maxItems: 4, description: 'west, south, east, north' }),
    expansion_zoom: Type.Integer({ minimum: 0 }),
    max_power: Power,
    plug_counts: Type.Record(Type.String(), Type.Integer({ minimum: 1 })),
  }),
);
export const ClusterListDocument = Closed({
  data: Type.Array(Type.Union([Cluster, StationInList])),
  included: Type.Array(IncludedCompany),
  meta: StationListMeta,
  links: PageLinks,
});

export const StatisticsDocument = Closed({
  data: Type.Array(
    Resource(
      'charge_point_statistics',
      Closed({ country: Country, power: Power, plug: Type.String(), count: Type.Integer({ minimum: 0 }) }),
      { operator: Closed({ data: OrNull(Ref('company')) }) },
    ),
  ),
  included: Type.Optional(
    Type.Array(
      Resource('company', Closed({ name: Type.String(), external_source_mapping: Closed({ evse_operator_ids: Type.Array(Type.String()) }) })),
      { description: 'With include=operator: the operators with their eMI3 operator ids' },
    ),
  ),
});

const ChargePointClass = Lit('total', 'ac', 'dc', 'hpc');
export const CountryStatisticsDocument = Closed({
  data: Type.Array(
    Resource(
      'country_statistics',
      Closed({
        country: Type.String({ pattern: '^[A-Z]{2}$', description: 'XX: all countries' }),
        year: Type.Integer(),
        month: Type.Integer({ minimum: 1, maximum: 12 }),
        emp_count: Type.Integer({ minimum: 0 }),
        cpo_count: Type.Integer({ minimum: 0 }),
        charge_points: Type.Array(Closed({ type: ChargePointClass, count: Type.Integer({ minimum: 0 }) })),
        top_cpos_by_charge_points: Type.Array(Closed({ type: ChargePointClass, cpo_counts: Type.Array(Closed({ cpo_id: Id, count: Type.Integer({ minimum: 0 }) })) })),
      }),
    ),
  ),
  meta: OverallCount,
  links: PageLinks,
});

export const TileJson = Closed({
  tilejson: Type.String(),
  name: Type.String(),
  scheme: Type.Literal('xyz'),
  tiles: Type.Array(Type.String()),
  minzoom: Type.Integer({ minimum: 0 }),
  maxzoom: Type.Integer({ minimum: 0 }),
  bounds: Type.Array(Type.Number(), { minItems: 4, maxItems: 4 }),
  center: Type.Array(Type.Number(), { minItems: 2, maxItems: 3 }),
  attribution: Type.String(),
  vector_layers: Type.Array(
    Closed({ id: Type.String(), minzoom: Type.Integer(), maxzoom: Type.Integer(), description: Type.String(), fields: Type.Record(Type.String(), Type.String()) }),
  ),
});

export type StationListDocument = Static<typeof StationListDocument>;
export type StationDocument = Static<typeof StationDocument>;
export type ClusterListDocument = Static<typeof ClusterListDocument>;
