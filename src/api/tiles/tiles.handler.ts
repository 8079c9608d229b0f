/**
 * `GET /v1/tiles/stations/{z}/{x}/{y}.mvt` (D190, D192) and `GET /v1/tiles/stations.json`
 * (TileJSON, D193): the map's station and cluster tiles, from the station index and its cluster
 * sets (map-view.ts), served from the tile cache once built.
 */
import { GROUP_BIT, type Group } from '../../auth/groups.js';
import { stationAnswer } from '../cache.js';
import { schemeOf } from '../client-address.js';
import type { AppContext } from '../context.js';
import type { AvailabilityView } from '../evse-availability.js';
import { badParameter } from '../jsonapi/errors.js';
import { defineQuery } from '../jsonapi/query.js';
import { defineQueryRoute } from '../contract.js';
import { EmpOperatorMasks, compileRefinement } from '../refinements.js';
import { REFINEMENTS, refinementKey, type RefinementQuery } from '../refinements.js';
import type { Answers, ApiRequest, ApiResponse, PathParam, RouteDef } from '../types.js';
import { ClusterBuilder } from './cluster-builder.js';
import type { MapView } from './map-view.js';
import { MAX_ZOOM, STATION_ZOOM, clusterTile, stationTile } from './tile-writer.js';
import type { Refinement } from '../../domain/stations/index.js';
import { MAX_CLUSTER_ZOOM } from '../../domain/stations/clusters.js';

export const MVT_TYPE = 'application/vnd.mapbox-vector-tile';
export const STATION_GROUPS: readonly Group[] = ['ReadStations', 'ReadStationsWithAvailability'];
const WITH_AVAILABILITY = GROUP_BIT.ReadStationsWithAvailability;

let builder: ClusterBuilder | null = null;
/** The process's one cluster builder (one worker thread, D191). */
export function clusterBuilder(): ClusterBuilder {
  builder ??= new ClusterBuilder();
  return builder;
}

/**
 * z, x and y of a tile path as the API description states them (`{z}/{x}/{y}.mvt`, whole numbers
 * within the zoom's range, D273); the router hands the last segment with its `.mvt`.
 */
export const TILE_PARAMS: Readonly<Record<'z' | 'x' | 'y', PathParam>> = {
  z: { schema: { type: 'integer', minimum: 0, maximum: MAX_ZOOM, description: 'Zoom' } },
  x: { schema: { type: 'integer', minimum: 0, description: 'Column, below 2^z' } },
  y: { schema: { type: 'integer', minimum: 0, description: 'Row, below 2^z' }, suffix: '.mvt' },
};

/** A vector tile's bytes (a binary string: `format` for the generators, `contentMediaType` as OpenAPI 3.1 writes it). */
const TILE_BODY = { type: 'string', format: 'binary', contentMediaType: MVT_TYPE, description: 'Mapbox Vector Tile 2.1 (protocol buffers)' };

/** The answers of a tile path: the tile, or 204 without a body where it holds no feature. */
export const TILE_ANSWERS: Answers = { status: 200, mediaType: MVT_TYPE, response: () => TILE_BODY, alsoEmpty: { '204': 'A tile without a feature: no body' } };

export interface TileAddress {
  z: number;
  x: number;
  y: number;
}

/** The parsed query of the map routes. */
export type MapQuery = { refinements: RefinementQuery };

/** z, x and y of a tile path (400 naming the one that is wrong). */
export function tileAddress(params: Readonly<Record<string, string>>): TileAddress {
  const num = (name: string, raw: string, max: number): number => {
    if (!/^\d{1,8}$/.test(raw)) throw badParameter(name, `${name} must be a whole number`);
    const n = Number(raw);
    if (n > max) throw badParameter(name, `${name} must be at most ${max}`);
    return n;
  };
  const z = num('z', params.z, MAX_ZOOM);
  const x = num('x', params.x, 2 ** z - 1);
  const m = /^(.*)\.mvt$/.exec(params.y);
  if (m === null) throw badParameter('y', 'a tile path ends in {y}.mvt');
  const y = num('y', m[1], 2 ** z - 1);
  return { z, x, y };
}

/** Parsed refinements, their canonical key (D191) and their compiled form (null for none). */
export interface MapFilter {
  query: RefinementQuery;
  key: string;
  refinement: Refinement | null;
}

/** The query of the map routes: the refinements of D26. */
export const MAP_QUERY = defineQuery({ refinements: REFINEMENTS });

export function mapFilter(ctx: AppContext, masks: EmpOperatorMasks, query: RefinementQuery): MapFilter {
  let key = refinementKey(query);
  // Which operators an EMP list admits changes with company writes (D66).
  if (query.supportedEmps !== undefined) key += `@${ctx.companies.generation}`;
  return { query, key, refinement: key === '' ? null : compileRefinement(ctx.stations, masks, query) };
}

export function tilesRoutes(ctx: AppContext, view: MapView, availability: AvailabilityView): RouteDef[] {
  const masks = new EmpOperatorMasks(ctx.stations, ctx.companies);

  const render = async (z: number, x: number, y: number, f: MapFilter, withAvail: boolean): Promise<Uint8Array | null> => {
    if (z >= STATION_ZOOM) {
      const t = { index: ctx.stations, companies: ctx.companies, availability: withAvail ? availability.current() : null };
      return stationTile(t, z, x, y, f.refinement);
    }
    return clusterTile(await view.clusters(f.key, f.refinement), ctx.stations, z, x, y);
  };

  const tile = async (req: ApiRequest, q: MapQuery, { z, x, y }: TileAddress): Promise<ApiResponse> => {
    const f = mapFilter(ctx, masks, q.refinements);
    const headers = { 'Content-Type': MVT_TYPE };
    // Live counts change with every status update: those tiles are built for each request, never kept (D192); the route's ETag covers them.
    if ((req.groups & WITH_AVAILABILITY) !== 0 && z >= STATION_ZOOM) {
      const bytes = await render(z, x, y, f, true);
      return bytes === null ? { status: 204 } : { status: 200, body: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), headers };
    }
    const key = `${z}/${x}/${y}|${f.key}|${ctx.tariffs.generation}`;
    let t = view.tiles.get(key);
    if (t === undefined) t = view.tiles.put(key, await render(z, x, y, f, false));
    return t.body === null ? { status: 204 } : { status: 200, body: t.body, headers, compressed: t };
  };

  const tileJson = (req: ApiRequest): ApiResponse => {
    const host = req.headers.host.length > 0 ? req.headers.host : `127.0.0.1:${ctx.config.port}`;
    const scheme = schemeOf(req.headers.forwardedProto);
    const qs = [...req.query].map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
    const b = stationBounds(ctx);
    const doc = {
      tilejson: '3.0.0',
      name: 'charging stations',
      scheme: 'xyz',
      tiles: [`${scheme}://${host}/v1/tiles/stations/{z}/{x}/{y}.mvt${qs.length > 0 ? `?${qs}` : ''}`],
      minzoom: 0,
      maxzoom: MAX_ZOOM,
      bounds: b.slice(0, 4),
      center: [b[4], b[5], 5],
      attribution: ctx.snapshot.meta.attribution,
      vector_layers: VECTOR_LAYERS,
    };
    return { status: 200, body: JSON.stringify(doc) };
  };

  const cache = stationAnswer(ctx, availability);
  const tileCache = (req: ApiRequest): string | null => (Number(req.params.z) >= STATION_ZOOM ? cache(req) : `${ctx.snapshot.meta.snapshotVersion}.${ctx.tariffs.generation}`);
  return [
    defineQueryRoute({ method: 'GET', path: '/v1/tiles/stations/:z/:x/:y', answers: TILE_ANSWERS, params: TILE_PARAMS, pathInput: tileAddress, query: MAP_QUERY, groups: STATION_GROUPS, notJsonApi: true, handler: tile, cache: tileCache }),
    // The refinements are checked (400 naming the parameter) and passed on to the tiles' address as sent.
    defineQueryRoute({ method: 'GET', path: '/v1/tiles/stations.json', answers: { status: 200, response: (s) => s.TileJson }, query: MAP_QUERY, groups: STATION_GROUPS, notJsonApi: true, handler: tileJson, cache: (req) => `${ctx.snapshot.meta.snapshotVersion}|${req.headers.host}|${req.headers.forwardedProto}` }),
  ];
}

const VECTOR_LAYERS = [
  {
    id: 'clusters',
    minzoom: 0,
    maxzoom: MAX_CLUSTER_ZOOM,
    description: 'Station clusters (D190); a cluster of one has station_id',
    fields: { count: 'Number', max_power: 'Number', expansion_zoom: 'Number', station_id: 'String', 'count_<plug>': 'Number' },
  },
  {
    id: 'stations',
    minzoom: STATION_ZOOM,
    maxzoom: MAX_ZOOM,
    description: 'Charging stations (D190)',
    fields: { id: 'String', name: 'String', operator_id: 'String', operator_name: 'String', max_power: 'Number', plugs: 'String', charge_point_count: 'Number', free_charging: 'Boolean', available_count: 'Number' },
  },
];

/** West, south, east, north and the mean position (where a map opens) of an index's stations. */
type Extent = [number, number, number, number, number, number];
const extentOf = new WeakMap<object, Extent>();

/** The snapshot's stations' extent, computed once per station index. */
function stationBounds(ctx: AppContext): Extent {
  let b = extentOf.get(ctx.stations);
  if (b === undefined) {
    const n = ctx.stations.size;
    let [w, s, e, north, lon, lat] = [180, 90, -180, -90, 0, 0];
    for (let i = 0; i < n; i++) {
      const x = ctx.stations.lonAt(i);
      const y = ctx.stations.latAt(i);
      if (x < w) w = x;
      if (x > e) e = x;
      if (y < s) s = y;
      if (y > north) north = y;
      lon += x;
      lat += y;
    }
    b = [w, s, e, north, n === 0 ? 0 : lon / n, n === 0 ? 0 : lat / n];
    extentOf.set(ctx.stations, b);
  }
  return b;
}
