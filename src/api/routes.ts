import type { AppContext } from './context.js';
import { companiesRoutes } from './companies/companies.handler.js';
import { healthRoutes } from './health/health.handler.js';
import { tariffsRoutes } from './tariffs/tariffs.handler.js';
import type { RouteDef } from './types.js';
import { vehiclesRoutes } from './vehicles/vehicles.handler.js';
import { feedbackRoutes } from './feedback/feedback.handler.js';
import { devicesRoutes } from './devices/devices.handler.js';
import { stationsRoutes } from './stations/stations.handler.js';
import { statisticsRoutes } from './statistics/statistics.handler.js';
import { pricesRoutes } from './prices/prices.handler.js';
import { tariffDetailsRoutes } from './tariff-details/tariff-details.handler.js';
import { adminRoutes } from './admin/admin.handler.js';
import { availabilityRoutes } from './availability/availability.handler.js';
import { areaPricesRoutes } from './area-prices/area-prices.handler.js';
import { metricsRoutes } from './metrics/metrics.handler.js';
import { cdrCostRoutes } from './cdr-cost/cdr-cost.js';
import { openApiRoutes } from './openapi/openapi.js';
import { SERVICE_VERSION } from '../version.js';
import { stationAvailability } from './evse-availability.js';
import { MapView } from './tiles/map-view.js';
import { clusterBuilder, tilesRoutes } from './tiles/tiles.handler.js';
import { clustersRoutes } from './tiles/clusters.handler.js';
import { mapPageRoutes } from './tiles/map-page.js';
import { PriceProfiles, priceProfileRoutes } from './tiles/price-profiles.js';
import { priceTilesRoutes } from './tiles/price-tiles.handler.js';
import { StationPageWriter } from './station-page.js';
import { accountRoutes } from './accounts/accounts.handler.js';
import { tripsRoutes } from './trips/trips.handler.js';

/** The one route table: every endpoint of the service, by feature, and its OpenAPI description (D121). */
export function buildRoutes(ctx: AppContext): RouteDef[] {
  const routes = featureRoutes(ctx);
  return [...routes, ...openApiRoutes(routes, SERVICE_VERSION)];
}

function featureRoutes(ctx: AppContext): RouteDef[] {
  // One availability view and one map view (cluster sets, tile cache) per station index.
  const availability = stationAvailability(ctx);
  const map = new MapView(ctx.stations, clusterBuilder(), ctx.config.tileCacheMb * 1024 * 1024);
  const pages = new StationPageWriter(ctx.stations, ctx.companies, ctx.config.disabledExtBCountries, ctx.snapshot.meta.snapshotVersion);
  const profiles = new PriceProfiles(ctx.live, ctx.config.priceProfileTtlH * 3_600_000, (e) => ctx.logger.warn({ err: e }, 'price profile use not recorded'), ctx.config.priceProfilesMax);
  return [...healthRoutes(ctx), ...companiesRoutes(ctx), ...tariffsRoutes(ctx), ...vehiclesRoutes(ctx), ...feedbackRoutes(ctx), ...devicesRoutes(ctx), ...stationsRoutes(ctx, availability), ...clustersRoutes(ctx, map, availability, pages), ...tilesRoutes(ctx, map, availability), ...priceProfileRoutes(ctx, profiles), ...priceTilesRoutes(ctx, map, profiles), ...mapPageRoutes(), ...statisticsRoutes(ctx), ...pricesRoutes(ctx), ...tariffDetailsRoutes(ctx), ...adminRoutes(ctx), ...availabilityRoutes(ctx), ...areaPricesRoutes(ctx), ...cdrCostRoutes(ctx), ...tripsRoutes(ctx), ...metricsRoutes(ctx), ...accountRoutes(ctx)];
}
