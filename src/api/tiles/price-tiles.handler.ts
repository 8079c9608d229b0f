/**
 * `GET /v1/tiles/prices/{profile_id}/{z}/{x}/{y}.mvt` (D197, D198): the station and cluster tiles
 * with a price profile's cheapest prices, priced with the bulk calculation on the pool as the
 * tile's stations are first needed, then served from the tile cache. A tile waits for its prices
 * at most PRICE_TILE_WAIT_MS and then answers what is priced, saying how many are pending
 * (D278); the final tile is cached.
 */
import type { AppContext } from '../context.js';
import { ApiError } from '../jsonapi/errors.js';
import { EmpOperatorMasks, type RefinementQuery } from '../refinements.js';
import { priceStations } from '../station-pricing.js';
import { PoolOverloadedError } from '../../pool/pool.js';
import type { ApiRequest, ApiResponse, RouteDef } from '../types.js';
import type { MapView } from './map-view.js';
import { PriceTables, type GenerationPrices } from './price-tables.js';
import { profileOf, profileTask, type Narrowing, type PriceProfile, type PriceProfiles } from './price-profiles.js';
import { MAP_QUERY, MVT_TYPE, TILE_ANSWERS, TILE_PARAMS, mapFilter, tileAddress, type MapFilter, type MapQuery, type TileAddress } from './tiles.handler.js';
import { defineQueryRoute } from '../contract.js';
import { STATION_ZOOM, clusterMembers, priceClusterTile, priceStationTile, tileStations } from './tile-writer.js';

/** The charge points a price tile prices, from its refinements (D197, as D113). */
function narrowingOf(q: RefinementQuery): Narrowing {
  return {
    plugs: q.plugs === undefined ? null : [...new Set(q.plugs.map((p) => p.toLowerCase()))].sort(),
    powerGte: q.powerGte ?? null,
    powerLte: q.powerLte ?? null,
  };
}

/** D278: a tile answered before all its stations' current prices are known is asked for again after this. */
export const PENDING_CACHE_CONTROL = 'no-store, max-age=1';

/** A tile's bytes and how many of its stations' current prices are not known yet (D278). */
interface Rendered {
  body: Uint8Array | null;
  pending: number;
}

/**
 * Waits for `fill` at most `ms`: true when it finished. A refusal of the pool (503) within the wait
 * ends it early (the stations are left to the next request); any other failure is the request's.
 */
async function waitFor(fill: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((r) => {
    timer = setTimeout(() => r(false), ms);
  });
  try {
    return await Promise.race([fill.then(() => true), late]);
  } catch (e) {
    if (e instanceof PoolOverloadedError || (e instanceof ApiError && e.status === 503)) return false;
    throw e;
  } finally {
    clearTimeout(timer);
  }
}

export function priceTilesRoutes(ctx: AppContext, view: MapView, profiles: PriceProfiles): RouteDef[] {
  const masks = new EmpOperatorMasks(ctx.stations, ctx.companies);
  const tables = new PriceTables(ctx.config.priceTablesMb * 1024 * 1024);
  const waitMs = ctx.config.priceTileWaitMs;

  const taskOf = (profile: PriceProfile, n: Narrowing): ReturnType<typeof profileTask> => {
    // A vehicle of the profile that a new snapshot no longer has: the profile cannot be priced here.
    if (profile.vehicle !== null && ctx.vehicles.get(profile.vehicle) === undefined) {
      throw new ApiError('NOT_FOUND', 'the price profile’s vehicle is not in this snapshot', { source: { parameter: 'profile_id' } });
    }
    return profileTask(ctx, profile, n);
  };

  const render = async (id: string, profile: PriceProfile, z: number, x: number, y: number, f: MapFilter, generation: number): Promise<Rendered> => {
    const n = narrowingOf(f.query);
    const base = taskOf(profile, n);
    const prices: GenerationPrices = tables.get(`${id}|${JSON.stringify(n)}`, generation, ctx.stations.size, profile.currency);
    const work = (indices: number[], found: Parameters<typeof priceStations>[3]): Promise<void> => priceStations(ctx, base, indices, found);
    const priced = async (members: number[]): Promise<number> => {
      const fill = prices.current.fill(members, work);
      // The runs go on after the answer (D278); a failed one leaves its stations to the next request.
      fill.catch(() => undefined);
      return (await waitFor(fill, waitMs)) ? 0 : prices.pending(members);
    };
    if (z >= STATION_ZOOM) {
      const stations = tileStations(ctx.stations, z, x, y, f.refinement);
      const pending = await priced(stations.map((s) => s[0]));
      return { body: priceStationTile(ctx.stations, prices, stations, z, y), pending };
    }
    const clusters = await view.clusters(f.key, f.refinement);
    const pending = await priced(clusterMembers(clusters, z, x, y));
    return { body: priceClusterTile(clusters, ctx.stations, prices, z, x, y), pending };
  };

  const tile = async (req: ApiRequest, q: MapQuery, { z, x, y }: TileAddress): Promise<ApiResponse> => {
    const f = mapFilter(ctx, masks, q.refinements);
    const { profile, id } = await profileOf(profiles, req.params.profile_id);
    const generation = ctx.tariffs.generation;
    const key = `p|${id}|${z}/${x}/${y}|${f.key}|${generation}`;
    let t = view.tiles.get(key);
    if (t === undefined) {
      const r = await render(id, profile, z, x, y, f, generation);
      if (r.pending > 0 && r.body !== null) {
        // Not final (D278): no ETag, not cached, asked for again when its max-age ends.
        const headers = { 'Content-Type': MVT_TYPE, 'Price-Tile-Pending': String(r.pending), 'Cache-Control': PENDING_CACHE_CONTROL };
        return { status: 200, body: Buffer.from(r.body.buffer, r.body.byteOffset, r.body.byteLength), headers, final: false };
      }
      t = view.tiles.put(key, r.body);
    }
    return t.body === null ? { status: 204 } : { status: 200, body: t.body, headers: { 'Content-Type': MVT_TYPE }, compressed: t };
  };

  // The ETag (D197) only for a profile this replica knows to be alive: an expired one is answered 404, never 304.
  const cache = (req: ApiRequest): string | null =>
    profiles.cached(req.params.profile_id) === undefined ? null : `${ctx.snapshot.meta.snapshotVersion}.${ctx.tariffs.generation}`;
  return [
    defineQueryRoute({ method: 'GET', path: '/v1/tiles/prices/:profile_id/:z/:x/:y', answers: TILE_ANSWERS, params: TILE_PARAMS, pathInput: tileAddress, query: MAP_QUERY, groups: ['ReadCosts'], priceWork: true, answersWhenSaturated: true, fresh: true, notJsonApi: true, partialAnswers: true, handler: tile, cache }),
  ];
}
