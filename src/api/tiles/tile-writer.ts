/**
 * Vector tiles of stations and clusters (D190): the features of one XYZ tile, encoded as a Mapbox
 * Vector Tile 2.1 by @maplibre/vt-pbf. A tile is built once and then served from the tile cache
 * (D192) as bytes.
 */
import { fromGeojsonVt } from '@maplibre/vt-pbf';
import KDBush from 'kdbush';
import type { CompanyRegistry } from '../../domain/companies/registry.js';
import { TRI_FALSE, TRI_TRUE, fragmentName } from '../../domain/stations/columns.js';
import { MAX_CLUSTER_ZOOM, NO_EXPANSION, clusterBuffers, lngX, latY, xLng, yLat, type ClusterSet } from '../../domain/stations/clusters.js';
import type { Refinement, StationIndex } from '../../domain/stations/index.js';
import type { AvailabilityLookup } from '../evse-availability.js';

export const EXTENT = 4096;
export const BUFFER = 256;
export const MAX_ZOOM = 20;
/** The first zoom of the `stations` layer. */
export const STATION_ZOOM = MAX_CLUSTER_ZOOM + 1;

type Tags = Record<string, string | number | boolean>;
interface Feature {
  id: number;
  type: 1;
  geometry: Array<[number, number]>;
  tags: Tags;
}

/** A cluster set with its trees opened (kdbush views over the transferred buffers). */
export class ClusterTiles {
  readonly trees: KDBush[];
  /** The bytes of its arrays. */
  readonly bytes: number;
  constructor(readonly set: ClusterSet) {
    this.trees = set.levels.map((l) => KDBush.from(l.tree));
    this.bytes = clusterBuffers(set).reduce((n, b) => n + b.byteLength, 0);
  }
}

/** The tile's box in Web Mercator units, widened by the buffer, and its wrapped copies (x offsets). */
function tileRanges(z: number, x: number, y: number): { top: number; bottom: number; spans: Array<[number, number, number]> } {
  const z2 = 2 ** z;
  const p = BUFFER / EXTENT;
  const spans: Array<[number, number, number]> = [[(x - p) / z2, (x + 1 + p) / z2, x]];
  // Points across the antimeridian: near x = 1 drawn left of tile 0, near x = 0 right of the last.
  if (x === 0) spans.push([1 - p / z2, 1, z2]);
  if (x === z2 - 1) spans.push([0, p / z2, -1]);
  return { top: (y - p) / z2, bottom: (y + 1 + p) / z2, spans };
}

const at = (v: number, z2: number, t: number): number => Math.round(EXTENT * (v * z2 - t));

/** Clusters (position in zoom z's level) of tile z/x/y with the x offset they are drawn at. */
export function tileClusters(ct: ClusterTiles, z: number, x: number, y: number): Array<[number, number]> {
  const { top, bottom, spans } = tileRanges(z, x, y);
  const out: Array<[number, number]> = [];
  for (const [west, east, tx] of spans) for (const k of ct.trees[z].range(west, top, east, bottom)) out.push([k, tx]);
  return out;
}

/** The `clusters` layer of tile z/x/y (z ≤ MAX_CLUSTER_ZOOM), or null when it has no feature. */
export function clusterTile(ct: ClusterTiles, index: StationIndex, z: number, x: number, y: number): Uint8Array | null {
  const plugs = index.c.dict.plugs;
  const l = ct.set.levels[z];
  const P = ct.set.plugTypes;
  const features: Feature[] = [];
  for (const [k, tx] of tileClusters(ct, z, x, y)) {
    const tags: Tags = { count: l.count[k], max_power: l.maxPower[k] };
    for (let p = 0; p < P; p++) if (l.plugCounts[k * P + p] > 0) tags[`count_${plugs[p]}`] = l.plugCounts[k * P + p];
    if (l.expansion[k] !== NO_EXPANSION) tags.expansion_zoom = l.expansion[k];
    if (l.station[k] !== -1) tags.station_id = index.idAt(l.station[k]);
    features.push(clusterPoint(ct, z, k, tx, y, tags));
  }
  return features.length === 0 ? null : encode('clusters', features);
}

function clusterPoint(ct: ClusterTiles, z: number, k: number, tx: number, y: number, tags: Tags): Feature {
  const l = ct.set.levels[z];
  const z2 = 2 ** z;
  return { id: k, type: 1, geometry: [[at(l.x[k], z2, tx), at(l.y[k], z2, y)]], tags };
}

/** The stations of tile z/x/y's clusters (their ranges of the cluster order, D198). */
export function clusterMembers(ct: ClusterTiles, z: number, x: number, y: number): number[] {
  const l = ct.set.levels[z];
  const out: number[] = [];
  for (const [k] of tileClusters(ct, z, x, y)) {
    const end = l.start[k] + l.count[k];
    for (let q = l.start[k]; q < end; q++) out.push(ct.set.order[q]);
  }
  return out;
}

/** What a price tile reads of a station's prices (D197). */
export interface PriceLookup {
  currency: string;
  /** Whether station i has a price. */
  has(i: number): boolean;
  price(i: number): number;
  /** The station's cheapest pair besides its price: tariff id, energy, duration, plug, power. */
  pair(i: number): { tariffId: string; energy: number; duration: number; plug: string; power: number };
}

/** The price tile's `clusters` layer (D197): each cluster with the cheapest of its stations. */
export function priceClusterTile(ct: ClusterTiles, index: StationIndex, prices: PriceLookup, z: number, x: number, y: number): Uint8Array | null {
  const l = ct.set.levels[z];
  const order = ct.set.order;
  const features: Feature[] = [];
  for (const [k, tx] of tileClusters(ct, z, x, y)) {
    const tags: Tags = { count: l.count[k] };
    if (l.expansion[k] !== NO_EXPANSION) tags.expansion_zoom = l.expansion[k];
    if (l.station[k] !== -1) tags.station_id = index.idAt(l.station[k]);
    let priced = 0;
    let best = -1;
    const end = l.start[k] + l.count[k];
    for (let q = l.start[k]; q < end; q++) {
      const i = order[q];
      if (!prices.has(i)) continue;
      priced++;
      if (best < 0 || prices.price(i) < prices.price(best) || (prices.price(i) === prices.price(best) && i < best)) best = i;
    }
    tags.priced_count = priced;
    if (best >= 0) {
      tags.price = prices.price(best);
      tags.currency = prices.currency;
      tags.tariff_id = prices.pair(best).tariffId;
      tags.price_station_id = index.idAt(best);
    }
    features.push(clusterPoint(ct, z, k, tx, y, tags));
  }
  return features.length === 0 ? null : encode('clusters', features);
}

/** The price tile's `stations` layer (D197): each station with its cheapest pair when it has one. */
export function priceStationTile(index: StationIndex, prices: PriceLookup, stations: Array<[number, number]>, z: number, y: number): Uint8Array | null {
  const z2 = 2 ** z;
  const features: Feature[] = [];
  for (const [i, tx] of stations) {
    const tags: Tags = { id: index.idAt(i) };
    if (prices.has(i)) {
      const p = prices.pair(i);
      tags.price = prices.price(i);
      tags.currency = prices.currency;
      tags.tariff_id = p.tariffId;
      tags.energy = p.energy;
      tags.duration = p.duration;
      tags.plug = p.plug;
      tags.power = p.power;
    }
    features.push({ id: i, type: 1, geometry: [[at(lngX(index.lonAt(i)), z2, tx), at(latY(index.latAt(i)), z2, y)]], tags });
  }
  return features.length === 0 ? null : encode('stations', features);
}

/** What a station feature says besides its position (D190). */
export interface StationTileContext {
  index: StationIndex;
  companies: CompanyRegistry;
  /** Live availability for keys that see it, else null. */
  availability: AvailabilityLookup | null;
}

/** Station indices of tile z/x/y passing `r`, ascending, with the x offset they are drawn at. */
export function tileStations(index: StationIndex, z: number, x: number, y: number, r: Refinement | null): Array<[number, number]> {
  const { top, bottom, spans } = tileRanges(z, x, y);
  const north = yLat(top);
  const south = yLat(bottom);
  const out: Array<[number, number]> = [];
  for (const [west, east, tx] of spans) {
    const hits = index.kd.range(xLng(Math.max(0, west)), south, xLng(Math.min(1, east)), north);
    for (const i of hits) if (r === null || index.matches(i, r)) out.push([i, tx]);
  }
  return out.sort((a, b) => a[0] - b[0]);
}

/** The `stations` layer of tile z/x/y (z ≥ STATION_ZOOM), or null when it has no feature. */
export function stationTile(t: StationTileContext, z: number, x: number, y: number, r: Refinement | null): Uint8Array | null {
  const z2 = 2 ** z;
  const features: Feature[] = [];
  for (const [i, tx] of tileStations(t.index, z, x, y, r)) {
    features.push({ id: i, type: 1, geometry: [[at(lngX(t.index.lonAt(i)), z2, tx), at(latY(t.index.latAt(i)), z2, y)]], tags: stationTags(t, i) });
  }
  return features.length === 0 ? null : encode('stations', features);
}

function stationTags(t: StationTileContext, i: number): Tags {
  const c = t.index.c;
  const tags: Tags = { id: t.index.idAt(i), name: fragmentName(c, i) };
  const op = t.index.operatorOf(i);
  const company = op === null ? undefined : t.companies.get(op);
  if (company !== undefined) {
    tags.operator_id = company.id;
    tags.operator_name = company.name;
  }
  let maxPower = 0;
  let count = 0;
  const plugs: string[] = [];
  for (let k = c.cpStart[i]; k < c.cpStart[i + 1]; k++) {
    if (c.cpPower[k] > maxPower) maxPower = c.cpPower[k];
    count += c.cpCount[k];
    const plug = c.dict.plugs[c.cpPlug[k]];
    if (!plugs.includes(plug)) plugs.push(plug);
  }
  tags.max_power = maxPower;
  tags.plugs = plugs.join(',');
  tags.charge_point_count = count;
  const free = (c.flags[i] >> 2) & 3;
  if (free === TRI_TRUE || free === TRI_FALSE) tags.free_charging = free === TRI_TRUE;
  const avail = t.availability?.get(i);
  if (avail !== undefined) {
    let sum = -1;
    for (let k = 0; k < avail.length; k++) if (avail[k] >= 0) sum = Math.max(sum, 0) + avail[k];
    if (sum >= 0) tags.available_count = sum;
  }
  return tags;
}

function encode(layer: string, features: Feature[]): Uint8Array {
  return fromGeojsonVt({ [layer]: { features } }, { version: 2, extent: EXTENT });
}
