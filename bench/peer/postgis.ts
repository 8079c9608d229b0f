/**
 * The PostGIS peer: station search as a typical team builds it on PostgreSQL — fastify, the `pg`
 * pool, the stations in a table with a geography point under a GiST index and each station's
 * JSON:API resource stored as jsonb. A radius search is one query (PAGE_SQL): ST_DWithin on the
 * sphere, as the service measures, nearest first by the index (`<->`), LIMIT the page + 1.
 * (Ordering by distance and id in one ORDER BY defeats the nearest-first index scan: 4.5× fewer
 * queries/s on this machine.) The page is the rows' text joined into the document (no parse and re-serialize: that
 * favours the peer). No API-key check, no request log (both favour it too). Used by
 * bench/postgis.ts; answers are checked equal to the service's (same ids in the same order)
 * before anything is measured. Compression (@fastify/compress) as the service does it: br, else
 * gzip, at the service's levels, for answers of at least 1 KiB.
 *
 *   node dist/bench/peer/postgis.js --snapshot <file> --database-url postgres://… [--port 0]
 *
 * Loads the snapshot's stations into the database (replacing the table), then prints
 * `listening <port>`.
 *
 * Map tiles (bench/tiles.ts) the way pg_tileserv and Martin serve them: one query per tile,
 * `ST_AsMVT` over `ST_AsMVTGeom` of the points under the tile envelope (with the service's buffer)
 * found by a GiST index on a Web Mercator column; from zoom 14 every station with the service's
 * attributes, below that grid clusters (`ST_SnapToGrid` with cells of 40 px of a 512 px tile, the
 * service's cluster radius), each with its count and max power at the cells' centroid.
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import zlib from 'node:zlib';
import compress from '@fastify/compress';
import Fastify from 'fastify';
import pg from 'pg';
import { Snapshot } from '../../src/storage/snapshot.js';
import { BR_QUALITY, GZIP_LEVEL } from '../../src/http/compress.js';

type Query = Record<string, string | undefined>;

/**
 * One page of a radius search: the GiST index's nearest-first scan (`<->`, on the sphere) stops
 * after the page; the page is then ordered by distance and id, the service's tie-break (stations
 * at the same spot). $1 longitude, $2 latitude, $3 radius (m), $4 page size + 1.
 */
export const PAGE_SQL = `SELECT doc FROM (
  SELECT doc::text AS doc, id, geog <-> ST_SetSRID(ST_MakePoint($1, $2), 4326)::geography AS d
  FROM stations
  WHERE ST_DWithin(geog, ST_SetSRID(ST_MakePoint($1, $2), 4326)::geography, $3, false)
  ORDER BY geog <-> ST_SetSRID(ST_MakePoint($1, $2), 4326)::geography
  LIMIT $4) page
ORDER BY d, id`;

/** Replaces the `stations` table with the snapshot's stations; returns how many were loaded. */
export async function loadStations(pool: pg.Pool, snapshotFile: string): Promise<number> {
  const snap = Snapshot.open(snapshotFile);
  try {
    await pool.query('CREATE EXTENSION IF NOT EXISTS postgis');
    await pool.query('DROP TABLE IF EXISTS stations');
    await pool.query(
      'CREATE TABLE stations (id text PRIMARY KEY, geog geography(Point, 4326) NOT NULL, doc jsonb NOT NULL, geom geometry(Point, 3857) NOT NULL, ' +
        'name text NOT NULL, operator_id text, max_power float8 NOT NULL, plugs text NOT NULL, charge_point_count int NOT NULL)',
    );
    let batch: { id: string; lon: number; lat: number; doc: string; name: string; op: string | null; power: number; plugs: string; count: number }[] = [];
    let n = 0;
    const flush = async (): Promise<void> => {
      if (batch.length === 0) return;
      await pool.query(
        `INSERT INTO stations
         SELECT id, ST_SetSRID(ST_MakePoint(lon, lat), 4326)::geography, doc::jsonb, ST_Transform(ST_SetSRID(ST_MakePoint(lon, lat), 4326), 3857), name, op, power, plugs, n
         FROM unnest($1::text[], $2::float8[], $3::float8[], $4::text[], $5::text[], $6::text[], $7::float8[], $8::text[], $9::int[]) AS t(id, lon, lat, doc, name, op, power, plugs, n)`,
        [
          batch.map((b) => b.id),
          batch.map((b) => b.lon),
          batch.map((b) => b.lat),
          batch.map((b) => b.doc),
          batch.map((b) => b.name),
          batch.map((b) => b.op),
          batch.map((b) => b.power),
          batch.map((b) => b.plugs),
          batch.map((b) => b.count),
        ],
      );
      n += batch.length;
      batch = [];
    };
    for (const s of snap.stations()) {
      const { id, operator_id, ...attributes } = s;
      const doc = JSON.stringify({ id, type: 'charging_station', attributes, relationships: { operator: { data: operator_id === null ? null : { type: 'company', id: operator_id } } } });
      const plugs = [...new Set(s.charge_points.map((c) => c.plug))].join(',');
      const power = Math.max(0, ...s.charge_points.map((c) => c.power));
      const count = s.charge_points.reduce((n, c) => n + c.count, 0);
      batch.push({ id, lon: s.longitude, lat: s.latitude, doc, name: s.name, op: operator_id, power, plugs, count });
      if (batch.length === 2000) await flush();
    }
    await flush();
    await pool.query('CREATE INDEX stations_geog ON stations USING gist (geog)');
    await pool.query('CREATE INDEX stations_geom ON stations USING gist (geom)');
    await pool.query('ANALYZE stations');
    return n;
  } finally {
    snap.close();
  }
}

/** A zoom-14-and-deeper tile: every station under the envelope and its buffer. $1 z, $2 x, $3 y. */
export const STATION_TILE_SQL = `WITH b AS (SELECT ST_TileEnvelope($1, $2, $3) AS env, ST_TileEnvelope($1, $2, $3, margin => 256.0 / 4096) AS wide)
SELECT ST_AsMVT(t, 'stations', 4096, 'geom') AS mvt FROM (
  SELECT ST_AsMVTGeom(s.geom, b.env, 4096, 256, true) AS geom, s.id, s.name, s.operator_id, s.max_power, s.plugs, s.charge_point_count
  FROM stations s, b WHERE s.geom && b.wide) t`;

/** A clustered tile: grid cells of $4 metres (Web Mercator) under the envelope and its buffer. */
export const CLUSTER_TILE_SQL = `WITH b AS (SELECT ST_TileEnvelope($1, $2, $3) AS env, ST_TileEnvelope($1, $2, $3, margin => 256.0 / 4096) AS wide),
c AS (SELECT count(*) AS count, max(s.max_power) AS max_power, ST_Centroid(ST_Collect(s.geom)) AS geom
  FROM stations s, b WHERE s.geom && b.wide GROUP BY ST_SnapToGrid(s.geom, $4))
SELECT ST_AsMVT(t, 'clusters', 4096, 'geom') AS mvt FROM (
  SELECT ST_AsMVTGeom(c.geom, b.env, 4096, 256, true) AS geom, c.count, c.max_power FROM c, b) t`;

/** Web Mercator's width of the world in metres. */
const WORLD_M = 2 * Math.PI * 6378137;

export async function startPostgisPeer(snapshotFile: string, databaseUrl: string, port = 0): Promise<{ port: number; stations: number; close(): Promise<void> }> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 16 });
  const stations = await loadStations(pool, snapshotFile);
  const app = Fastify({ logger: false });
  // Compression as a client asks for it (br, else gzip), with the service's levels and threshold,
  // so the compressed scenarios compare like with like.
  await app.register(compress, {
    global: true,
    threshold: 1024,
    encodings: ['br', 'gzip'],
    brotliOptions: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: BR_QUALITY, [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT } },
    zlibOptions: { level: GZIP_LEVEL },
  });
  app.get('/health', async () => ({ status: 'ok', stations }));
  app.get('/v1/charging_stations', async (req, reply) => {
    const q = req.query as Query;
    const size = Number(q['page[size]'] ?? 100);
    const lat = Number(q['filter[latitude]']);
    const lon = Number(q['filter[longitude]']);
    const radius = Number(q['filter[radius]']);
    const r = await pool.query<{ doc: string }>(PAGE_SQL, [lon, lat, radius, size + 1]);
    const rows = r.rows.length > size ? r.rows.slice(0, size) : r.rows;
    reply.type('application/json; charset=utf-8');
    return `{"data":[${rows.map((x) => x.doc).join(',')}],"meta":{"more_available":${r.rows.length > size}}}`;
  });
  app.get('/v1/tiles/stations/:z/:x/:y', async (req, reply) => {
    const p = req.params as { z: string; x: string; y: string };
    const [z, x, y] = [Number(p.z), Number(p.x), Number(p.y.replace(/\.mvt$/, ''))];
    const r = z >= 14 ? await pool.query<{ mvt: Buffer }>(STATION_TILE_SQL, [z, x, y]) : await pool.query<{ mvt: Buffer }>(CLUSTER_TILE_SQL, [z, x, y, (WORLD_M / 2 ** z / 512) * 40]);
    const mvt = r.rows[0].mvt;
    if (mvt.length === 0) return reply.code(204).send();
    return reply.type('application/vnd.mapbox-vector-tile').send(mvt);
  });
  await app.listen({ port, host: '127.0.0.1' });
  const address = app.server.address();
  return {
    port: typeof address === 'object' && address !== null ? address.port : port,
    stations,
    close: async () => {
      await app.close();
      await pool.end();
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { snapshot: { type: 'string' }, 'database-url': { type: 'string' }, port: { type: 'string', default: '0' } } });
  if (values.snapshot === undefined || values['database-url'] === undefined) {
    console.error('usage: node dist/bench/peer/postgis.js --snapshot <file> --database-url <url> [--port 0]');
    process.exit(2);
  }
  const peer = await startPostgisPeer(values.snapshot, values['database-url'], Number(values.port));
  console.log(`listening ${peer.port}`);
  const stop = (): void => void peer.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
