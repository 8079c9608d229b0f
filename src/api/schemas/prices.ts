/** Price answers: charge prices, previews (bulk, area, route), tariff details, cdr_cost, price profiles. */
import { Closed, Lit, Country, Currency, DateTime, Id, Nullable, Resource, Timestamp, ToMany, ToOne, ToOneOrNull, Type, type Static } from './common.js';
import { IncludedCompany, StationInList } from './stations.js';
import { Branding, Segment } from './tariffs.js';
import { StationFeatures } from './geojson.js';

const Money = Type.Number({ description: 'In the answer\'s currency' });

const ChargePointPrice = Closed({
  plug: Type.String(),
  power: Type.Number({ minimum: 0, description: 'kW' }),
  price: Nullable('number', { description: 'null: no price could be calculated (only with show_price_unavailable)' }),
  price_distribution: Closed(
    { session: Type.Optional(Type.Number()), kwh: Type.Optional(Type.Number()), minute: Type.Optional(Type.Number()), parking_minute: Type.Optional(Type.Number()) },
    { description: 'Share of each dimension in the price, as a fraction' },
  ),
  blocking_fee_start: Nullable('integer', { description: 'Minutes from the start' }),
  no_price_reason: Nullable('string'),
  is_average_price: Type.Boolean(),
});

export const ChargePrice = Resource(
  'charge_price',
  Closed({
    provider: Type.String(),
    tariff_name: Nullable('string'),
    url: Nullable('string'),
    monthly_min_sales: Type.Number({ minimum: 0 }),
    total_monthly_fee: Type.Number({ minimum: 0 }),
    flat_rate: Type.Boolean(),
    direct_payment: Type.Boolean(),
    is_card_payment: Type.Boolean(),
    provider_customer_tariff: Type.Boolean(),
    is_roaming: Type.Boolean(),
    is_promoted: Type.Boolean(),
    currency: Currency,
    tags: Type.Array(Closed({ kind: Type.String(), text: Type.String(), url: Nullable('string') })),
    system_tags: Type.Array(Type.String()),
    start_time: Type.Integer({ minimum: 0, maximum: 1439, description: 'Minutes of the day' }),
    branding: Branding,
    charge_point_prices: Type.Array(ChargePointPrice),
  }),
  { tariff: ToOne('tariff') },
  { links: Type.Optional(Closed({ open_app_at_station: Type.String() })) },
);
export const ChargePricesDocument = Closed({
  data: Type.Array(ChargePrice),
  meta: Closed({
    charge_points: Type.Array(Closed({ plug: Type.String(), power: Type.Number(), duration: Type.Number({ description: 'Minutes' }), energy: Type.Number({ description: 'kWh' }) })),
  }),
});

const preview = {
  energy: Type.Number({ minimum: 0, description: 'kWh' }),
  duration: Type.Number({ minimum: 0, description: 'Minutes' }),
  price: Type.Number({ minimum: 0, description: 'The cheapest of the given tariffs' }),
  currency: Currency,
};
const station = { charging_station: ToOne('charging_station') };
export const Preview = Resource('charge_price_preview', Closed(preview), station);
export const BulkDocument = Closed({ data: Type.Array(Preview) });

const ChargePointRef = Closed({ plug: Type.String(), power: Type.Number({ minimum: 0 }) });
const searchMeta = Closed({
  stations_considered: Type.Integer({ minimum: 0 }),
  stations_priced: Type.Integer({ minimum: 0 }),
  more_available: Type.Boolean(),
});
const areaPreview = { ...preview, distance: Nullable('number', { minimum: 0, description: 'Metres from the centre; null for a box area' }), charge_point: ChargePointRef };
const routePreview = {
  ...preview,
  distance: Type.Number({ minimum: 0, description: 'Metres along the route from its start' }),
  detour: Type.Number({ minimum: 0, description: 'Metres off the route' }),
  charge_point: ChargePointRef,
};
export const AreaPreview = Resource('charge_price_preview', Closed(areaPreview), station);
export const RoutePreview = Resource('charge_price_preview', Closed(routePreview), station);
export const AreaDocument = Closed({ data: Type.Array(AreaPreview), included: Type.Array(Type.Union([StationInList, IncludedCompany])), meta: searchMeta });
export const RouteDocument = Closed({ data: Type.Array(RoutePreview), included: Type.Array(Type.Union([StationInList, IncludedCompany])), meta: searchMeta });

const DetailSegment = Closed({
  ...Segment.properties,
  currency: Currency,
  charge_point_powers: Type.Array(Type.Number()),
  charge_point_energy_type: Type.Union([Lit('ac', 'dc'), Type.Null()]),
  car_ac_phase: Nullable('integer'),
  charge_point_power_is_range: Type.Boolean(),
  use_consumed_charging_power: Type.Boolean(),
});
const TariffDetails = Resource(
  'station_tariff_details',
  Closed({
    country: Country,
    updated_at: Timestamp,
    is_roaming: Type.Boolean(),
    tariff_level: Lit('country', 'cpo', 'evse'),
    restricted_segments: Type.Array(DetailSegment),
    no_price_reason: Nullable('string'),
    prices_per_station_available: Type.Boolean(),
  }),
  { emp: ToOne('company'), tariff: ToOne('tariff'), cpo: ToOne('company'), station: Type.Optional(ToOne('charging_station')) },
);
const IncludedTariff = Resource(
  'tariff',
  Closed({
    name: Nullable('string'),
    total_monthly_fee: Type.Number({ minimum: 0 }),
    is_direct_payment: Type.Boolean(),
    is_card_payment: Type.Boolean(),
    is_secondary_tariff: Type.Boolean(),
    provider_customer_only: Type.Boolean(),
    existing_customer_only: Type.Boolean(),
    allowed_customer_countries: Type.Array(Country),
    currency: Currency,
    url: Nullable('string'),
  }),
  { vehicle_brands: ToMany('brand') },
);
export const TariffDetailsDocument = Closed({ data: Type.Array(TariffDetails), included: Type.Array(Type.Union([IncludedCompany, IncludedTariff])) });

const MoneyPair = Closed({ excl_vat: Money, incl_vat: Money });
export const CdrCostAttributes = Closed({
  currency: Currency,
  timezone: Type.String({ description: 'IANA time zone of the local times' }),
  total_cost: MoneyPair,
  total_energy_cost: MoneyPair,
  total_time_cost: MoneyPair,
  total_parking_time_cost: MoneyPair,
  total_fixed_cost: MoneyPair,
  total_reservation_cost: MoneyPair,
  total_energy: Type.Number({ minimum: 0, description: 'kWh as billed' }),
  total_time: Type.Number({ minimum: 0, description: 'Hours as billed' }),
  total_parking_time: Type.Number({ minimum: 0, description: 'Hours as billed' }),
  total_reservation_time: Type.Number({ minimum: 0, description: 'Hours as billed' }),
  price_bound: Type.Union([Lit('min_price', 'max_price'), Type.Null()], { description: 'Which bound set the total, if one did' }),
  charging_periods: Type.Array(
    Closed({
      start_date_time: DateTime,
      tariff_elements: Closed(
        {
          ENERGY: Type.Optional(Type.Integer({ minimum: 0 })),
          TIME: Type.Optional(Type.Integer({ minimum: 0 })),
          PARKING_TIME: Type.Optional(Type.Integer({ minimum: 0 })),
          RESERVATION_TIME: Type.Optional(Type.Integer({ minimum: 0 })),
        },
        { description: 'Dimension → index of the tariff element that priced it' },
      ),
    }),
  ),
});
export const CdrCostDocument = Closed({ data: Closed({ id: Id, type: Type.Literal('cdr_cost'), attributes: CdrCostAttributes }) });

export const PriceProfile = Resource(
  'price_profile',
  Closed({
    battery_range: Type.Union([Type.Array(Type.Number({ minimum: 0, maximum: 100 }), { minItems: 2, maxItems: 2 }), Type.Null()]),
    energy: Nullable('number'),
    duration: Nullable('number'),
    currency: Currency,
    start_time: Type.Integer({ minimum: 0, maximum: 1439 }),
    start_date: Nullable('string', { format: 'date' }),
    allow_unbalanced_load: Type.Boolean(),
    include_direct_payment: Type.Boolean(),
    charge_points_power_lte: Nullable('number'),
    expires_at: DateTime,
  }),
  { tariffs: ToMany('tariff'), vehicle: ToOneOrNull('car') },
  { links: Closed({ tiles: Type.String({ description: 'URL template of the price tiles ({z}/{x}/{y})' }) }) },
);
export const PriceProfileDocument = Closed({ data: PriceProfile });

export type ChargePricesDocument = Static<typeof ChargePricesDocument>;
export type CdrCostDocument = Static<typeof CdrCostDocument>;
export type PriceProfileDocument = Static<typeof PriceProfileDocument>;


/** D237: the area and route searches as GeoJSON, a feature per preview with its station's properties. */
export const AreaFeatures = StationFeatures({ ...areaPreview }, searchMeta);
export const RouteFeatures = StationFeatures({ ...routePreview }, searchMeta);
