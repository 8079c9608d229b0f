/**
 * What the map tests share: tile requests decoded with @mapbox/vector-tile, the features inside a
 * tile, the tiles over a box, and bulk previews of many stations (the reference of every price).
 */
import { VectorTile, type VectorTileLayer } from '@mapbox/vector-tile';
import { PbfReader } from 'pbf';
import zlib from 'node:zlib';
import { expect } from 'vitest';
import { latY, lngX } from '../../src/domain/stations/clusters.js';
import { call, type TestApp } from './server.js';

export const EXTENT = 4096;

export interface Tile {
  status: number;
  headers: Record<string, string | undefined>;
  body: Buffer;
  layers: Record<string, VectorTileLayer>;
}

/** GET of a tile path, decompressed and decoded. */
export async function getTile(srv: TestApp, url: string, key: string, headers: Record<string, string> = {}): Promise<Tile> {
  const r = await srv.request({ method: 'GET', url, headers: { 'api-key': key, ...headers } });
  const enc = r.headers['content-encoding'];
  const raw = enc === 'br' ? zlib.brotliDecompressSync(r.body) : enc === 'gzip' ? zlib.gunzipSync(r.body) : r.body;
  const layers = r.status === 200 ? new VectorTile(new PbfReader(raw)).layers : {};
  return { status: r.status, headers: r.headers, body: raw, layers };
}

/** A feature's properties with its feature id (`fid`) and point. */
export type Feature = Record<string, string | number | boolean> & { fid: number; px: number; py: number };

/** Features of a layer whose point lies inside the tile (not in its buffer). */
export function inside(l: VectorTileLayer | undefined): Feature[] {
  const out: Feature[] = [];
  for (let k = 0; l !== undefined && k < l.length; k++) {
    const f = l.feature(k);
    const [[p]] = f.loadGeometry();
    if (p.x >= 0 && p.x < EXTENT && p.y >= 0 && p.y < EXTENT) out.push({ ...(f.properties as Record<string, string | number | boolean>), fid: f.id!, px: p.x, py: p.y });
  }
  return out;
}

/** The tiles of zoom z covering a box (south, west, north, east). */
export function tilesOver(z: number, [s, w, n, e]: [number, number, number, number]): Array<[number, number]> {
  const z2 = 2 ** z;
  const out: Array<[number, number]> = [];
  for (let x = Math.floor(lngX(w) * z2); x <= Math.floor(lngX(e) * z2); x++) for (let y = Math.floor(latY(n) * z2); y <= Math.floor(latY(s) * z2); y++) out.push([x, y]);
  return out;
}

export interface Preview {
  energy: number;
  duration: number;
  price: number;
  currency: string;
}

/** Bulk previews (`POST /v1/charge_prices/bulk`, chunks of 100) of the stations: id → preview attributes. */
export async function bulkPreviews(srv: TestApp, key: string, ids: string[], tariffs: string[], vehicle: string, attributes: Record<string, unknown> = {}): Promise<Map<string, Preview>> {
  const out = new Map<string, Preview>();
  for (let k = 0; k < ids.length; k += 100) {
    const r = await call(srv, 'POST', '/v1/charge_prices/bulk', {
      key,
      body: {
        data: {
          type: 'bulk_price_preview_request',
          attributes: { battery_range: [10, 80], ...attributes },
          relationships: {
            charging_stations: { data: ids.slice(k, k + 100).map((id) => ({ type: 'charging_station', id })) },
            tariffs: { data: tariffs.map((id) => ({ type: 'tariff', id })) },
            vehicle: { data: { type: 'car', id: vehicle } },
          },
        },
      },
    });
    expect(r.status, r.text).toBe(200);
    for (const d of r.json.data as Array<{ id: string; attributes: Preview }>) out.set(d.id, d.attributes);
  }
  return out;
}
