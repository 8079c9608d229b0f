/**
 * `GET /v1/charging_stations/clusters` (D194): the clusters of a zoom in a bounding box as JSON:API,
 * for clients without a vector-tile renderer; a cluster of one, and every station from zoom 14, in
 * the list shape of station search (D28), written by the same page writer.
 */
import { linksMember, pageLinks } from '../jsonapi/links.js';
import { GROUP_BIT } from '../../auth/groups.js';
import { latY, lngX, xLng, yLat } from '../../domain/stations/clusters.js';
import type { StationIndex } from '../../domain/stations/index.js';
import { stationAnswer } from '../cache.js';
import type { AppContext } from '../context.js';
import type { AvailabilityView } from '../evse-availability.js';
import { badParameter } from '../jsonapi/errors.js';
import { float, int, page, type Query } from '../jsonapi/query.js';
import type { StationPageWriter } from '../station-page.js';
import { EmpOperatorMasks } from '../refinements.js';
import { BBOX, PAGE_DEFAULT, PAGE_MAX } from '../refinements.js';
import type { ApiRequest, ApiResponse, RouteDef } from '../types.js';
import type { MapView } from './map-view.js';
import { STATION_GROUPS, mapFilter } from './tiles.handler.js';
import { ClusterTiles, MAX_ZOOM, STATION_ZOOM } from './tile-writer.js';

const WITH_AVAILABILITY = GROUP_BIT.ReadStationsWithAvailability;

interface Box {
  south: number;
  north: number;
  west: number;
  east: number;
}

function parseBox(q: Query): Box {
  const v = BBOX.map((name, k) => {
    const x = float(q, name, k < 2 ? -90 : -180, k < 2 ? 90 : 180);
    if (x === undefined) throw badParameter(name, `${name} is required`);
    return x;
  });
  if (v[0] > v[1]) throw badParameter(BBOX[0], 'filter[latitude.gte] must not be greater than filter[latitude.lte]');
  if (v[2] > v[3]) throw badParameter(BBOX[2], 'filter[longitude.gte] must not be greater than filter[longitude.lte]');
  return { south: v[0], north: v[1], west: v[2], east: v[3] };
}

/** Positions of zoom z's clusters whose points lie in the box, ascending. */
function clustersIn(ct: ClusterTiles, z: number, b: Box): number[] {
  return ct.trees[z].range(lngX(b.west), latY(b.north), lngX(b.east), latY(b.south)).sort((a, c) => a - c);
}

function clusterResource(ct: ClusterTiles, index: StationIndex, z: number, k: number): unknown {
  const l = ct.set.levels[z];
  const P = ct.set.plugTypes;
  const plugCounts: Record<string, number> = {};
  for (let p = 0; p < P; p++) if (l.plugCounts[k * P + p] > 0) plugCounts[index.c.dict.plugs[p]] = l.plugCounts[k * P + p];
  return {
    id: `z${z}-${k}`,
    type: 'station_cluster',
    attributes: {
      count: l.count[k],
      latitude: yLat(l.y[k]),
      longitude: xLng(l.x[k]),
      bbox: [l.bbox[4 * k], l.bbox[4 * k + 1], l.bbox[4 * k + 2], l.bbox[4 * k + 3]],
      expansion_zoom: l.expansion[k],
      max_power: l.maxPower[k],
      plug_counts: plugCounts,
    },
  };
}

interface StationPage {
  data: unknown[];
  included: unknown[];
  meta: Record<string, unknown>;
  links: unknown;
}

export function clustersRoutes(ctx: AppContext, view: MapView, availability: AvailabilityView, writer: StationPageWriter): RouteDef[] {
  const index = ctx.stations;
  const masks = new EmpOperatorMasks(index, ctx.companies);

  const handler = async (req: ApiRequest): Promise<ApiResponse> => {
    const box = parseBox(req.query);
    const zoom = int(req.query, 'zoom', 0, MAX_ZOOM);
    if (zoom === undefined) throw badParameter('zoom', 'zoom is required');
    const f = mapFilter(ctx, masks, req.query);
    const pg = page(req.query, PAGE_DEFAULT, PAGE_MAX);
    // The writer's buffer is reused by the next page: copied before anything else runs.
    const pageBytes = (indices: number[], more: boolean): Buffer =>
      Buffer.from(
        writer.page({
          indices,
          moreAvailable: more,
          availability: (req.groups & WITH_AVAILABILITY) !== 0 ? availability.current() : null,
          companyFields: undefined,
          supportedEmpsFilter: f.query.supportedEmps,
          links: linksMember(pageLinks(req.path, req.query, pg, more)),
        }),
      );
    if (zoom >= STATION_ZOOM) {
      const r = index.search({ kind: 'bbox', latGte: box.south, latLte: box.north, lonGte: box.west, lonLte: box.east }, f.refinement ?? index.compile({}), pg.offset, pg.size);
      return { status: 200, body: pageBytes(r.indices, r.moreAvailable) };
    }
    const ct = await view.clusters(f.key, f.refinement);
    const all = clustersIn(ct, zoom, box);
    const items = all.slice(pg.offset, pg.offset + pg.size);
    const level = ct.set.levels[zoom];
    const singles = items.filter((k) => level.station[k] !== -1).map((k) => level.station[k]);
    const doc = JSON.parse(pageBytes(singles, all.length > pg.offset + pg.size).toString()) as StationPage;
    let s = 0;
    doc.data = items.map((k) => (level.station[k] !== -1 ? doc.data[s++] : clusterResource(ct, index, zoom, k)));
    return { status: 200, body: JSON.stringify(doc) };
  };

  return [{ method: 'GET', path: '/v1/charging_stations/clusters', groups: STATION_GROUPS, body: false, handler, cache: stationAnswer(ctx, availability) }];
}
