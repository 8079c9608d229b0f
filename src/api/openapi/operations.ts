/**
 * The prose of each operation of the OpenAPI description (D121): its summary, tag, description and
 * example request. The contract is on the route (RouteDef: path parameters, the query of
 * `defineQueryRoute`, the body's schema, the answers); only parameters no parser reads (accepted and
 * ignored for the original client) are listed here. Example answers are captured from the running
 * service by `npm run openapi:examples` (examples.generated.ts).
 */
import { profileId } from '../tiles/price-profiles.js';
import { DEFAULT_CHARGE_PRICE_OPTIONS } from '../../domain/pricing/index.js';
import { TRIP_OPERATIONS } from './trip-operations.js';

import type { QueryParam } from '../jsonapi/query.js';

/**
 * The prose of an operation and its example request. Its contract is on the route (path, query,
 * body and answers: `RouteDef`, in the feature's route file).
 */
export interface OperationDoc {
  summary: string;
  tag: string;
  description?: string;
  query?: readonly QueryParam[];
  /**
   * The example request: a concrete path with its query, and the body. `stateful`: the request
   * needs state no example run has (an account confirmed by mail, a refresh token): it is
   * described, not sent by `npm run openapi:examples`; test/http/accounts.test.ts checks its answers.
   */
  example: { path: string; body?: unknown; headers?: Record<string, string>; stateful?: true };
}

// ---- Example inputs: ids of the default catalog and snapshot (also in the test snapshot) ----

const STATION_ID = '006552ff-0c7f-5334-896a-eb1f5346b444';
const OPERATOR_ID = 'ac96f6c4-8933-5e71-b606-46d3d63b8777';
const TARIFF_ID = '18663f49-0af6-550d-9681-4af1727bdf22';
const EMP_ID = '5bb4ebcc-4dc7-5caa-b5b6-46accf7b9554';
const VEHICLE_ID = '01936832-c987-da0e-cbb3-9f6793becdfe';
/** The example company and tariff the write examples create and delete. */
export const EXAMPLE_COMPANY_ID = '7d6f1e2a-3b4c-4d5e-8f60-718293a4b5c6';
export const EXAMPLE_TARIFF_ID = '8e7f2a3b-4c5d-4e6f-9071-8293a4b5c6d7';

const tariffs = { data: [{ type: 'tariff', id: TARIFF_ID }] };
const vehicle = { data: { type: 'car', id: VEHICLE_ID } };
/** The id of the example price profile (D196: derived from its normalised form). */
const PROFILE_ID = profileId({
  tariffs: [TARIFF_ID],
  vehicle: VEHICLE_ID,
  battery_range: [10, 80],
  energy: null,
  duration: null,
  currency: 'EUR',
  start_time: DEFAULT_CHARGE_PRICE_OPTIONS.start_time,
  start_date: null,
  allow_unbalanced_load: DEFAULT_CHARGE_PRICE_OPTIONS.allow_unbalanced_load,
  include_direct_payment: false,
  charge_points_power_lte: null,
});

const page = (size: string): QueryParam[] => [
  { name: 'page[size]', schema: { type: 'integer', minimum: 1 }, description: `Items per page (${size})` },
  { name: 'page[number]', schema: { type: 'integer', minimum: 1 }, description: 'Page, from 1' },
];


// ---- Accounts (D200–D213): the original web client's protocol; errors in its shape (D201) ----

const USER_SUB = '6f1c2b9e-8a4d-4c3e-9b7a-2d5e8f0a1b3c';
const BEARER = { Authorization: 'Bearer <access token from POST /v1/authenticate>' };
const SETTINGS_BODY = { data: { type: 'user_settings', id: USER_SUB, attributes: { version: 2 }, relationships: { vehicle: { data: { id: 'a1b2c3d4-0000-4000-8000-000000000001', type: 'car' } }, tariffs: { data: [{ id: 'tariff-1', type: 'tariff' }] } } } };
const PAGE_TOKEN = 'x'.repeat(43);

/** The account operations: served unless accounts are off or no token can be signed (D200, D203). */
export const ACCOUNT_OPERATIONS: readonly string[] = [
  'POST /v1/authenticate', 'POST /v1/users', 'POST /v1/trigger_reset_password', 'GET /account/confirm', 'GET /account/reset', 'GET /account/reset.js',
  'POST /account/reset', 'GET /v1/users/:sub/settings', 'PUT /v1/users/:sub/settings', 'POST /v1/users/:sub/products', 'DELETE /v1/users/:sub',
];

const ACCOUNT_DOCS: Record<string, OperationDoc> = {
  'POST /v1/authenticate': {
    summary: 'Log in with email and password, or refresh a token pair (D203, D204, D207)',
    description: '`email_authentication` or `refresh_token_authentication`. Answers a short-lived access token (JWT: `sub`, `email`, `username`, `exp`) and an opaque refresh token; a refresh token is used once: presented again within `REFRESH_GRACE_S` of its rotation it answers a fresh pair of the same family (D241), later it revokes its family. 401 for a wrong pair or an unusable refresh token, and with `message` `email_unconfirmed` for the right password of an unconfirmed address (D243); 429 beyond the guessing limits.',
    tag: 'Accounts',
    example: { path: '/v1/authenticate', body: { data: { type: 'email_authentication', attributes: { email: 'driver@example.org', password: 'a long passphrase' } } }, stateful: true },
  },
  'POST /v1/users': {
    summary: 'Sign up (D206): 204 for a new and a taken address alike; a confirmation mail',
    tag: 'Accounts',
    example: { path: '/v1/users', body: { data: { type: 'user', attributes: { email: 'new.driver@example.org', password: 'a long passphrase', username: 'driver', language: 'en' } } } },
  },
  'POST /v1/trigger_reset_password': {
    summary: 'Ask for a password reset mail (D209): 204 whether or not the address has an account',
    tag: 'Accounts',
    example: { path: '/v1/trigger_reset_password', body: { data: { type: 'trigger_reset_password', attributes: { email: 'driver@example.org' } } } },
  },
  'GET /account/confirm': {
    summary: 'The confirmation link of a signup mail: confirms the address, shows a page (D209)',
    tag: 'Accounts',
    example: { path: `/account/confirm?token=${PAGE_TOKEN}`, stateful: true },
  },
  'GET /account/reset': {
    summary: 'The reset link of a mail: a page that sets a new password (D209); an unusable link shows the invalid-link page (D243)',
    tag: 'Accounts',
    example: { path: `/account/reset?token=${PAGE_TOKEN}`, stateful: true },
  },
  'GET /account/reset.js': {
    summary: 'The script of the reset page',
    tag: 'Accounts',
    example: { path: '/account/reset.js' },
  },
  'POST /account/reset': {
    summary: 'Set a new password with the token of a reset mail (D209); revokes every refresh token',
    tag: 'Accounts',
    example: { path: '/account/reset', body: { data: { type: 'password_reset', attributes: { token: PAGE_TOKEN, password: 'another long passphrase' } } }, stateful: true },
  },
  'GET /v1/users/:sub/settings': {
    summary: 'The user’s vehicle, tariffs and products (D211); 404 while none are stored',
    tag: 'Accounts',
    example: { path: `/v1/users/${USER_SUB}/settings`, headers: BEARER, stateful: true },
  },
  'PUT /v1/users/:sub/settings': {
    summary: 'Store the user’s settings (D211, D242): a version at or below the stored one is merged into the stored settings as the change it made from its base version',
    description: 'The JSON:API form, or the wrapped form of the client’s first login (`data.attributes.data`, no `data.type`).',
    tag: 'Accounts',
    example: { path: `/v1/users/${USER_SUB}/settings`, headers: BEARER, body: SETTINGS_BODY, stateful: true },
  },
  'POST /v1/users/:sub/products': {
    summary: 'Activate a product source: a membership the operator imported, or a code (D212, D239)',
    description: '`source` is `{type: "emc_membership", member_number, card_number}`, `{type: "carbonify_thg", email, country, quota_year}` or `{type: "code", code}`. 404 `PRODUCT_SOURCE_NOT_FOUND` when no stored source matches (an unknown type or fields that fit none included), 409 `PRODUCT_SOURCE_ALREADY_USED`.',
    tag: 'Accounts',
    example: { path: `/v1/users/${USER_SUB}/products`, headers: BEARER, body: { data: { type: 'user_products', attributes: { source: { type: 'emc_membership', member_number: 'M-104233', card_number: '4711 0000 1234 5678' } } } }, stateful: true },
  },
  'DELETE /v1/users/:sub': {
    summary: 'Delete the account with its settings, tokens and products (D213); also under the auth prefix (D240)',
    tag: 'Accounts',
    example: { path: `/v1/users/${USER_SUB}`, headers: BEARER, stateful: true },
  },
};

/** The operations, by `METHOD path` as in the route table. */
export const OPERATIONS: Readonly<Record<string, OperationDoc>> = {
  'GET /health': {
    summary: 'Liveness and the snapshot served',
    tag: 'Operations',
    example: { path: '/health' },
  },
  'GET /ready': {
    summary: 'Readiness: snapshot loaded, pool alive, live store writable (D105)',
    description: 'Answers 503 naming every failing part while not ready.',
    tag: 'Operations',
    example: { path: '/ready' },
  },
  'GET /attribution': {
    summary: 'Licences and attribution of the station and vehicle data',
    tag: 'Operations',
    example: { path: '/attribution' },
  },
  'GET /metrics': {
    summary: 'Prometheus metrics (D120)',
    description: 'No key by default; with METRICS_KEY_REQUIRED=on a key of group ReadMetrics is needed (403 without it), in `Api-Key` or as `Authorization: Bearer <key>` (Prometheus\' `authorization` setting).',
    tag: 'Operations',
    example: { path: '/metrics' },
  },
  'GET /openapi.json': {
    summary: 'This description (OpenAPI 3.1)',
    tag: 'Operations',
    example: { path: '/openapi.json' },
  },
  'GET /docs': {
    summary: 'This description rendered as a page (self-hosted Swagger UI)',
    tag: 'Operations',
    example: { path: '/docs' },
  },
  'GET /docs/:file': {
    summary: 'Scripts and styles of the docs page',
    tag: 'Operations',
    example: { path: '/docs/init.js' },
  },
  'GET /v1/charging_stations': {
    summary: 'Search stations (1): radius, box, ids, refinements',
    tag: 'Stations',
    example: { path: '/v1/charging_stations?filter[latitude]=48.8566&filter[longitude]=2.3522&filter[radius]=1000&page[size]=2' },
  },
  'GET /v1/charging_stations/clusters': {
    summary: 'Station clusters of a zoom in a box (D194)',
    description: 'Below zoom 14 the clusters of D190 whose centres lie in the box (`station_cluster`; a cluster of one as the station); from zoom 14 the stations of the box. Refinements as station search.',
    tag: 'Map',
    example: { path: '/v1/charging_stations/clusters?filter[latitude.gte]=48.7&filter[latitude.lte]=49&filter[longitude.gte]=2.1&filter[longitude.lte]=2.6&zoom=9&page[size]=3' },
  },
  'GET /v1/tiles/stations/:z/:x/:y': {
    summary: 'Vector tile of stations and clusters (D190)',
    description: 'Mapbox Vector Tile 2.1. Layer `clusters` below zoom 14, `stations` from zoom 14; 204 for a tile without a feature. Refinements as station search.',
    tag: 'Map',
    example: { path: '/v1/tiles/stations/9/259/176.mvt' },
  },
  'GET /v1/tiles/stations.json': {
    summary: 'TileJSON 3.0.0 of the station tiles (D193)',
    tag: 'Map',
    example: { path: '/v1/tiles/stations.json?filter[charge_points.power.gte]=50' },
  },
  'POST /v1/price_profiles': {
    summary: 'Register what a map prices with (D196)',
    description: 'Tariffs and Set A (vehicle + battery_range) or Set B (energy + duration), with the options of the bulk preview. The id is derived from the normalised profile: 201 for a new one, 200 (renewed) for a known one. Profiles expire when unused (`PRICE_PROFILE_TTL_H`).',
    tag: 'Map',
    example: { path: '/v1/price_profiles', body: { data: { type: 'price_profile', attributes: { battery_range: [10, 80] }, relationships: { tariffs, vehicle } } } },
  },
  'GET /v1/price_profiles/:id': {
    summary: 'Read a price profile (D196)',
    tag: 'Map',
    example: { path: `/v1/price_profiles/${PROFILE_ID}` },
  },
  'GET /v1/tiles/prices/:profile_id/:z/:x/:y': {
    summary: 'Vector tile of stations and clusters with a profile’s cheapest prices (D197)',
    description: 'The tile of D190, each station with the bulk preview of the profile (`price`, `currency`, `tariff_id`, `energy`, `duration`, `plug`, `power`) and each cluster with its cheapest station (`price`, `tariff_id`, `price_station_id`, `priced_count`). Refinements as station search; plug and power refinements narrow the charge points priced (D113). A tile whose stations are not all priced within `PRICE_TILE_WAIT_MS` answers what is priced with `Price-Tile-Pending` and `Cache-Control: no-store, max-age=1` (D278): ask again after it.',
    tag: 'Map',
    example: { path: `/v1/tiles/prices/${PROFILE_ID}/9/259/176.mvt` },
  },
  'GET /map': {
    summary: 'A map of the stations drawn from the tiles (D195)',
    tag: 'Map',
    example: { path: '/map' },
  },
  'GET /map/:file': {
    summary: 'Scripts, styles and country outlines of the map page',
    tag: 'Map',
    example: { path: '/map/map.js' },
  },
  'GET /v1/charging_stations/:id': {
    summary: 'Read one station (15)',
    tag: 'Stations',
    example: { path: `/v1/charging_stations/${STATION_ID}` },
  },
  'GET /v1/charging_stations/statistics': {
    summary: 'Charge point statistics (9)',
    tag: 'Stations',
    example: { path: '/v1/charging_stations/statistics?filter[country]=FR' },
  },
  'GET /v1/country_statistics': {
    summary: 'Country statistics (11)',
    tag: 'Stations',
    example: { path: '/v1/country_statistics?filter[country]=DE&page[size]=2' },
  },
  'POST /v1/charge_prices': {
    summary: 'Charge prices at a station or network (3)',
    tag: 'Prices',
    example: {
      path: '/v1/charge_prices',
      body: {
        data: {
          type: 'charge_price_request',
          attributes: {
            data_adapter: 'native',
            station: { longitude: 2.319539, latitude: 48.859367, country: 'FR', network: OPERATOR_ID, charge_points: [{ plug: 'type2', power: 7 }] },
            options: { energy: 20, duration: 60, currency: 'EUR' },
          },
        },
      },
    },
  },
  'POST /v1/charge_prices/bulk': {
    summary: 'Bulk price previews of up to 100 stations (8)',
    tag: 'Prices',
    query: [{ name: 'page[prices.size]', schema: { type: 'integer' }, description: 'Accepted and ignored (the original client sends it, D50)', deprecated: true }],
    example: {
      path: '/v1/charge_prices/bulk',
      body: {
        data: {
          type: 'bulk_price_preview_request',
          attributes: { battery_range: [10, 80] },
          relationships: { charging_stations: { data: [{ type: 'charging_station', id: STATION_ID }] }, tariffs, vehicle },
        },
      },
    },
  },
  'POST /v1/charge_prices/area': {
    summary: 'Cheapest or nearest priced stations in a radius or box (D110–D114)',
    tag: 'Prices',
    example: {
      path: '/v1/charge_prices/area',
      body: { data: { type: 'area_price_preview_request', attributes: { battery_range: [10, 80], latitude: 48.8566, longitude: 2.3522, radius: 2000, limit: 2 }, relationships: { tariffs, vehicle } } },
    },
  },
  'POST /v1/charge_prices/route': {
    summary: 'Priced stations along a route, within a corridor (D110–D114)',
    tag: 'Prices',
    example: {
      path: '/v1/charge_prices/route',
      body: {
        data: {
          type: 'route_price_preview_request',
          attributes: { battery_range: [10, 80], route: { coordinates: [[2.3522, 48.8566], [2.2945, 48.8584]] }, corridor: 1000, limit: 2 },
          relationships: { tariffs, vehicle },
        },
      },
    },
  },
  'POST /v1/ocpi/cdr_cost': {
    summary: 'Cost of a charging session under an OCPI 2.2.1 or 2.1.1 Tariff (D140–D146)',
    tag: 'Prices',
    example: {
      path: '/v1/ocpi/cdr_cost',
      body: {
        data: {
          type: 'ocpi_cdr_cost_request',
          attributes: {
            tariff: {
              currency: 'EUR',
              elements: [
                { price_components: [{ type: 'FLAT', price: 0.5, vat: 20, step_size: 1 }] },
                { price_components: [{ type: 'ENERGY', price: 0.25, vat: 10, step_size: 1 }] },
                { price_components: [{ type: 'PARKING_TIME', price: 2, vat: 20, step_size: 900 }] },
              ],
            },
            cdr: {
              start_date_time: '2026-03-02T17:00:00Z',
              end_date_time: '2026-03-02T19:40:00Z',
              charging_periods: [
                { start_date_time: '2026-03-02T17:00:00Z', dimensions: [{ type: 'ENERGY', volume: 20 }, { type: 'TIME', volume: 2 }] },
                { start_date_time: '2026-03-02T19:00:00Z', dimensions: [{ type: 'PARKING_TIME', volume: 0.6667 }] },
              ],
            },
            timezone: 'Europe/Amsterdam',
          },
        },
      },
    },
  },
  'POST /v1/tariff_details': {
    summary: 'Tariff details and price benchmark at stations or a network (2)',
    tag: 'Prices',
    example: { path: '/v1/tariff_details', body: { data: { type: 'tariff_details_request', attributes: { station: { id: [STATION_ID] } } } } },
  },
  'GET /v1/tariffs': {
    summary: 'Tariff metadata (14)',
    tag: 'Tariffs',
    example: { path: `/v1/tariffs?filter[id]=${TARIFF_ID}` },
  },
  'GET /v2/tariffs': {
    summary: 'Raw tariffs of one EMP (13)',
    tag: 'Tariffs',
    example: { path: `/v2/tariffs?filter[emp.id]=${EMP_ID}&page[size]=1` },
  },
  'PUT /v2/tariffs/:id': {
    summary: 'Create or update a raw tariff (12); optimistic version check',
    tag: 'Tariffs',
    example: {
      path: `/v2/tariffs/${EXAMPLE_TARIFF_ID}`,
      body: {
        data: {
          id: EXAMPLE_TARIFF_ID,
          type: 'tariff',
          attributes: { name: 'Example Flex', currency: 'EUR', version: 1, prices: [{ decomposition: [{ dimension: 'kwh', price: 0.45 }] }] },
          relationships: { emp: { data: { type: 'company', id: EXAMPLE_COMPANY_ID } } },
        },
      },
    },
  },
  'DELETE /v2/tariffs/:id': {
    summary: 'Delete a raw tariff',
    tag: 'Tariffs',
    example: { path: `/v2/tariffs/${EXAMPLE_TARIFF_ID}` },
  },
  'GET /v1/companies': {
    summary: 'List companies (10)',
    tag: 'Companies',
    example: { path: `/v1/companies?filter[id]=${OPERATOR_ID}` },
  },
  'PUT /v1/companies/:id': {
    summary: 'Create or update a company (7); optimistic version check',
    tag: 'Companies',
    example: {
      path: `/v1/companies/${EXAMPLE_COMPANY_ID}`,
      body: {
        data: {
          id: EXAMPLE_COMPANY_ID,
          type: 'company',
          attributes: { name: 'Example Mobility', version: 1, is_cpo: false, is_emp: true, external_source_mapping: {} },
          relationships: { supported_emps: { data: [] } },
        },
      },
    },
  },
  'DELETE /v1/companies/:id': {
    summary: 'Delete a company',
    tag: 'Companies',
    example: { path: `/v1/companies/${EXAMPLE_COMPANY_ID}` },
  },
  'GET /v1/vehicles': {
    summary: 'List vehicles (16, deprecated)',
    tag: 'Vehicles',
    query: page('ignored: the deprecated list answers every car').map((q) => ({ ...q, deprecated: true as const })),
    example: { path: '/v1/vehicles' },
  },
  'GET /v2/vehicle_brands': {
    summary: 'List vehicle brands (17)',
    tag: 'Vehicles',
    example: { path: '/v2/vehicle_brands' },
  },
  'GET /v2/vehicles': {
    summary: 'List vehicles (18)',
    tag: 'Vehicles',
    example: { path: '/v2/vehicles?q=530e' },
  },
  'POST /v1/user_feedback': {
    summary: 'User feedback (6)',
    tag: 'Feedback',
    example: { path: '/v1/user_feedback', body: { data: { type: 'missing_vehicle', attributes: { notes: 'Please add it', email: 'driver@example.org', context: 'vehicle list', language: 'en', brand: 'Example', model: 'EV 1' } } } },
  },
  'POST /v1/partner_feedback': {
    summary: 'Partner feedback (4)',
    tag: 'Feedback',
    example: { path: '/v1/partner_feedback', body: { data: { type: 'tariff_update', attributes: { content: 'New prices from 1 January', tariff: 'Flex', cpo: 'Example CPO', emp: 'Example Mobility', language: 'en' } } } },
  },
  'POST /v1/crm/devices': {
    summary: 'Register or update a device (5); needs a bearer token',
    tag: 'Devices',
    example: {
      path: '/v1/crm/devices',
      headers: { Authorization: 'Bearer <token from npm run token>' },
      body: {
        data: {
          id: '3f2b8c1e-6d4a-4e5f-9a7b-1c2d3e4f5a6b',
          type: 'crm_device',
          attributes: { fcmToken: 'fcm:APA91bH-token', country: 'de', language: 'DE', app_version: '5.12.0', os_version: 'Android 14', user_products: ['mobile_premium'], disabled_notifications: ['product_updates'] },
        },
      },
    },
  },
  'POST /admin/snapshot': {
    summary: 'Load a station snapshot without a restart, from SNAPSHOT_DIR or a URL, on every replica of a PostgreSQL store (D133, D220)',
    tag: 'Operations',
    example: { path: '/admin/snapshot', body: { data: { type: 'snapshot_reload', attributes: {} } } },
  },
  'POST /v1/availability': {
    summary: 'EVSE statuses in bulk (D134–D136)',
    tag: 'Availability',
    example: { path: '/v1/availability', body: { data: { type: 'evse_statuses', attributes: { statuses: [{ evse_id: 'DK*FIX*E1', status: 'AVAILABLE' }] } } } },
  },
  'PUT /ocpi/2.2.1/locations/:country_code/:party_id/:location_id/:evse_uid': {
    summary: 'OCPI 2.2.1 EVSE object (receiver interface)',
    tag: 'Availability',
    example: { path: '/ocpi/2.2.1/locations/DK/FIX/LOC1/E1', body: { uid: 'E1', evse_id: 'DK*FIX*E1', status: 'CHARGING', connectors: [] } },
  },
  'PATCH /ocpi/2.2.1/locations/:country_code/:party_id/:location_id/:evse_uid': {
    summary: 'OCPI 2.2.1 EVSE status change (receiver interface)',
    tag: 'Availability',
    example: { path: '/ocpi/2.2.1/locations/DK/FIX/LOC1/E1', body: { status: 'AVAILABLE' } },
  },
  ...ACCOUNT_DOCS,
  ...TRIP_OPERATIONS,
};
