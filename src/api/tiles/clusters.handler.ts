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
import { Q, defineQuery, type QueryInput } from '../jsonapi/query.js';
import { defineQueryRoute } from '../contract.js';
import type { StationPageWriter } from '../station-page.js';
import { EmpOperatorMasks } from '../refinements.js';
import { BBOX, PAGE_DEFAULT, PAGE_MAX, REFINEMENTS } from '../refinements.js';
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

const lat = (name: string, description: string) => Q.required(Q.number(name, description, -90, 90));
const lon = (name: string, description: string) => Q.required(Q.number(name, description, -180, 180));

/** The box (each side required), then the rule between its sides. */
const BOX = Q.group(
  { south: lat(BBOX[0], 'Box: lower latitude'), north: lat(BBOX[1], 'Box: upper latitude'), west: lon(BBOX[2], 'Box: lower longitude'), east: lon(BBOX[3], 'Box: upper longitude') },
  (b): Box => {
    if (b.south > b.north) throw badParameter(BBOX[0], 'filter[latitude.gte] must not be greater than filter[latitude.lte]');
    if (b.west > b.east) throw badParameter(BBOX[2], 'filter[longitude.gte] must not be greater than filter[longitude.lte]');
    return b;
  },
);

/** The clusters' query: the box, the zoom, the refinements of D26 and the page. */
export const CLUSTERS_QUERY = defineQuery({
  box: BOX,
  zoom: Q.required(Q.integer('zoom', 'Map zoom', 0, MAX_ZOOM)),
  refinements: REFINEMENTS,
  page: Q.page(PAGE_DEFAULT, PAGE_MAX, `default ${PAGE_DEFAULT}, at most ${PAGE_MAX}`),
});

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

  const handler = async (req: ApiRequest, { box, zoom, refinements, page: pg }: QueryInput<typeof CLUSTERS_QUERY>): Promise<ApiResponse> => {
    const f = mapFilter(ctx, masks, refinements);
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

  return [defineQueryRoute({ method: 'GET', path: '/v1/charging_stations/clusters', answers: { status: 200, response: (s) => s.ClusterListDocument }, groups: STATION_GROUPS, query: CLUSTERS_QUERY, handler, cache: stationAnswer(ctx, availability) })];
}
