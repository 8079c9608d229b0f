/**
 * `GET /v1/tiles/prices/{profile_id}/{z}/{x}/{y}.mvt` (D197, D198): the station and cluster tiles
 * with a price profile's cheapest prices, priced with the bulk calculation on the pool as the
 * tile's stations are first needed, then served from the tile cache.
 */
import type { AppContext } from '../context.js';
import { ApiError } from '../jsonapi/errors.js';
import { EmpOperatorMasks, type RefinementQuery } from '../refinements.js';
import { priceStations } from '../station-pricing.js';
import type { ApiRequest, ApiResponse, RouteDef } from '../types.js';
import type { MapView } from './map-view.js';
import { PriceTables, type PriceTable } from './price-tables.js';
import { profileOf, profileTask, type Narrowing, type PriceProfile, type PriceProfiles } from './price-profiles.js';
import { MVT_TYPE, TILE_PARAMS, mapFilter, tileAddress, type MapFilter } from './tiles.handler.js';
import { STATION_ZOOM, clusterMembers, priceClusterTile, priceStationTile, tileStations } from './tile-writer.js';

/** The charge points a price tile prices, from its refinements (D197, as D113). */
function narrowingOf(q: RefinementQuery): Narrowing {
  return {
    plugs: q.plugs === undefined ? null : [...new Set(q.plugs.map((p) => p.toLowerCase()))].sort(),
    powerGte: q.powerGte ?? null,
    powerLte: q.powerLte ?? null,
  };
}

const inProgress = (): ApiError => new ApiError('SERVICE_UNAVAILABLE', 'price tile in progress, retry', { headers: { 'Retry-After': '1' } });

export function priceTilesRoutes(ctx: AppContext, view: MapView, profiles: PriceProfiles): RouteDef[] {
  const masks = new EmpOperatorMasks(ctx.stations, ctx.companies);
  const tables = new PriceTables();

  const taskOf = (profile: PriceProfile, n: Narrowing): ReturnType<typeof profileTask> => {
    // A vehicle of the profile that a new snapshot no longer has: the profile cannot be priced here.
    if (profile.vehicle !== null && ctx.vehicles.get(profile.vehicle) === undefined) {
      throw new ApiError('NOT_FOUND', 'the price profile’s vehicle is not in this snapshot', { source: { parameter: 'profile_id' } });
    }
    return profileTask(ctx, profile, n);
  };

  const render = async (id: string, profile: PriceProfile, z: number, x: number, y: number, f: MapFilter, generation: number): Promise<Uint8Array | null> => {
    const n = narrowingOf(f.query);
    const base = taskOf(profile, n);
    const table: PriceTable = tables.get(`${id}|${JSON.stringify(n)}|${generation}`, ctx.stations.size, profile.currency);
    const work = (indices: number[], found: Parameters<typeof priceStations>[3]): Promise<void> => priceStations(ctx, base, indices, found);
    if (z >= STATION_ZOOM) {
      const stations = tileStations(ctx.stations, z, x, y, f.refinement);
      if (!(await table.fill(stations.map((s) => s[0]), work))) throw inProgress();
      return priceStationTile(ctx.stations, table, stations, z, y);
    }
    const clusters = await view.clusters(f.key, f.refinement);
    if (!(await table.fill(clusterMembers(clusters, z, x, y), work))) throw inProgress();
    return priceClusterTile(clusters, ctx.stations, table, z, x, y);
  };

  const tile = async (req: ApiRequest): Promise<ApiResponse> => {
    const { z, x, y } = tileAddress(req.params);
    const f = mapFilter(ctx, masks, req.query);
    const { profile, id } = await profileOf(profiles, req.params.profile_id);
    const generation = ctx.tariffs.generation;
    const key = `p|${id}|${z}/${x}/${y}|${f.key}|${generation}`;
    let t = view.tiles.get(key);
    if (t === undefined) t = view.tiles.put(key, await render(id, profile, z, x, y, f, generation));
    return t.body === null ? { status: 204 } : { status: 200, body: t.body, headers: { 'Content-Type': MVT_TYPE }, compressed: t };
  };

  // The ETag (D197) only for a profile this replica knows to be alive: an expired one is answered 404, never 304.
  const cache = (req: ApiRequest): string | null =>
    profiles.cached(req.params.profile_id) === undefined ? null : `${ctx.snapshot.meta.snapshotVersion}.${ctx.tariffs.generation}`;
  return [
    { method: 'GET', path: '/v1/tiles/prices/:profile_id/:z/:x/:y', params: TILE_PARAMS, groups: ['ReadCosts'], body: false, priceWork: true, fresh: true, notJsonApi: true, handler: tile, cache },
  ];
}
