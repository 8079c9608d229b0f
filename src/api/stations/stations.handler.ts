/**
 * `GET /v1/charging_stations` (search, D25–D29) and `GET /v1/charging_stations/{id}` (single read,
 * D30, D22, D3). Both answered on the main thread from the in-memory station index.
 */
import { linkHeader, linksMember, pageLinks, type PageLinks } from '../jsonapi/links.js';
import { CSV_COLUMNS, FeatureWriter } from '../station-features.js';
import { CsvWriter } from './station-csv.js';
import { stationAnswer } from '../cache.js';
import { PageCache, queryKey } from '../body-cache.js';
import { GROUP_BIT } from '../../auth/groups.js';
import { pickLanguage } from '../../domain/language.js';
import type { AppContext } from '../context.js';
import { forbidden, notFound } from '../jsonapi/errors.js';
import { Q, defineQuery } from '../jsonapi/query.js';
import { defineQueryRoute } from '../contract.js';
import { CONTENT_TYPE, json, type ApiRequest, type ApiResponse, type RouteDef } from '../types.js';
import type { AvailabilityLookup, AvailabilityView } from '../evse-availability.js';
import { StationPageWriter } from '../station-page.js';
import { SingleStationWriter, singleStationDocument } from './station-read.js';
import { SEARCH, type SearchQuery } from './stations.query.js';
import { EmpOperatorMasks, compileRefinement } from '../refinements.js';

const WITH_AVAILABILITY = GROUP_BIT.ReadStationsWithAvailability;
const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/** The single read's query (D3). */
export const READ_QUERY = defineQuery({
  availability: Q.bool('availability', '`available_count` of each charge point (null = unknown); keys of group ReadStationsWithAvailability only (403 for others, D3)'),
});

/** Lookups of kept single reads (D296), over every route table. */
export const READ_CACHE_COUNTS = { hit: 0, miss: 0 };

/**
 * D296: single reads without live counts kept whole per station while the catalog generation
 * holds: at most 4,096 stations and 8 MiB (bodies and compressed copies), least recently used out.
 */
export function readCache(): PageCache {
  return new PageCache(READ_CACHE_COUNTS, 4096, 8 * 1024 * 1024, 64 * 1024, 64, true);
}

/**
 * D296: the read of station i without live counts, kept or written and kept. The document
 * depends on the station, the snapshot (each route table has its own `reads`) and the company
 * names (the catalog `generation`).
 */
function keptRead(reads: PageCache, writer: SingleStationWriter, i: number, generation: number): ApiResponse {
  const key = String(i);
  const stamp = String(generation);
  const hit = reads.get(key, stamp);
  if (hit !== undefined) return { status: 200, body: hit.body, compressed: hit };
  const body = writer.write(i, undefined);
  const kept = reads.set(key, stamp, body, NO_HEADERS);
  return kept === null ? { status: 200, body } : { status: 200, body: kept.body, compressed: kept };
}

/**
 * `pages`: the kept GeoJSON and CSV pages of this route table (D262; a snapshot swap starts a new
 * one); `reads`: its kept single reads (D296).
 */
export function stationsRoutes(ctx: AppContext, availability: AvailabilityView, pages = new PageCache(), reads = readCache()): RouteDef[] {
  const index = ctx.stations;
  const writer = new StationPageWriter(index, ctx.companies, ctx.config.disabledExtBCountries, ctx.snapshot.meta.snapshotVersion);
  const singleWriter = new SingleStationWriter(index, ctx.companies, ctx.snapshot.meta.snapshotVersion);
  const empMasks = new EmpOperatorMasks(index, ctx.companies);
  const cache = stationAnswer(ctx, availability);
  const keptFeatureAnswer = featureAnswers(ctx, availability, empMasks, cache, pages);

  const search = (req: ApiRequest, q: SearchQuery): ApiResponse => {
    if (req.format === 'geojson' || req.format === 'csv') return keptFeatureAnswer(req, q);
    const refinement = compileRefinement(index, empMasks, q);
    const r = index.search(q.primary, refinement, q.page.offset, q.page.size);
    const avail = (req.groups & WITH_AVAILABILITY) !== 0 ? availability.current() : null;
    const links = pageLinks(req.path, req.query, q.page, r.moreAvailable);
    const body = writer.page({
      indices: r.indices,
      moreAvailable: r.moreAvailable,
      availability: avail,
      companyFields: q.companyFields,
      supportedEmpsFilter: q.supportedEmps,
      links: linksMember(links),
    });
    return { status: 200, body };
  };

  const single = (req: ApiRequest, q: { availability: boolean | undefined }): ApiResponse => {
    const withAvail = q.availability === true;
    if (withAvail && (req.groups & WITH_AVAILABILITY) === 0) {
      throw forbidden('action read_stations_with_availability not allowed');
    }
    const raw = req.params.id;
    let i = index.find(raw);
    if (i === -1) {
      const sid = ctx.snapshot.stationIdByEvse(raw);
      if (sid !== null) i = index.find(sid);
    }
    if (i === -1) throw notFound(`charging station ${raw}`);
    const avail = withAvail ? (availability.current().get(i) ?? null) : undefined;
    // Common case: from the in-memory fragment. Stations with a parking description or facility
    // details (rare; not held in memory) take the snapshot row.
    if (singleWriter.canWrite(i)) {
      if (avail !== undefined) return { status: 200, body: singleWriter.write(i, avail) };
      return keptRead(reads, singleWriter, i, ctx.tariffs.generation);
    }
    const station = ctx.snapshot.station(index.idAt(i));
    if (station === null) throw notFound(`charging station ${raw}`);
    return json(200, singleStationDocument(station, pickLanguage(req.headers.acceptLanguage), avail, ctx.companies, ctx.snapshot.meta.snapshotVersion));
  };

  return [
    defineQueryRoute({
      method: 'GET',
      path: '/v1/charging_stations',
      groups: ['ReadStations', 'ReadStationsWithAvailability'],
      formats: ['geojson', 'csv'],
      answers: {
        status: 200,
        response: (s) => s.StationListDocument,
        otherMediaTypes: (s) => ({
          'application/geo+json': s.StationSearchFeatures,
          'text/csv': { type: 'string', description: `D238: a header row (${CSV_COLUMNS.join(', ')}), a row per station, CRLF; lists as JSON text; \`Link\`, \`X-More-Available\` and \`X-Snapshot-Version\` headers instead of links and meta` },
        }),
      },
      query: SEARCH,
      handler: search,
      cache,
    }),
    defineQueryRoute({
      method: 'GET',
      path: '/v1/charging_stations/:id',
      groups: ['ReadStations', 'ReadStationsWithAvailability'],
      answers: { status: 200, response: (s) => s.StationDocument, language: true },
      query: READ_QUERY,
      handler: single,
      cache,
    }),
  ];
}

/** Station search as GeoJSON (D237) and CSV (D238), each page kept while its validator holds (D262). */
function featureAnswers(
  ctx: AppContext,
  availability: AvailabilityView,
  empMasks: EmpOperatorMasks,
  cache: (req: ApiRequest) => string,
  pages: PageCache,
): (req: ApiRequest, q: SearchQuery) => ApiResponse {
  const index = ctx.stations;
  const features = new FeatureWriter(index, ctx.companies);
  const csv = new CsvWriter();
  const snapshotVersion = ctx.snapshot.meta.snapshotVersion;
  const metaRest = `"disabled_ext_b_countries":${JSON.stringify(ctx.config.disabledExtBCountries)},"snapshot_version":${JSON.stringify(snapshotVersion)}}`;

  /** D262: a GeoJSON or CSV page from the cache while its validator holds, else written and kept. */
  const keptFeatureAnswer = (req: ApiRequest, q: SearchQuery): ApiResponse => {
    const format = req.format as 'geojson' | 'csv';
    const withAvail = (req.groups & WITH_AVAILABILITY) !== 0;
    const key = `${format}\u0002${withAvail ? 1 : 0}\u0002${queryKey(req.query)}`;
    const stamp = cache(req);
    const hit = pages.get(key, stamp);
    if (hit !== undefined) return { status: 200, body: hit.body, headers: { ...hit.headers }, compressed: hit };
    const refinement = compileRefinement(index, empMasks, q);
    const r = index.search(q.primary, refinement, q.page.offset, q.page.size);
    const links = pageLinks(req.path, req.query, q.page, r.moreAvailable);
    const out = featureAnswer(format, r.indices, r.moreAvailable, withAvail ? availability.current() : null, links);
    const kept = pages.set(key, stamp, out.body as Buffer, out.headers!);
    return kept === null ? out : { status: 200, body: kept.body, headers: { ...kept.headers }, compressed: kept };
  };

  /** D237, D238: the page as GeoJSON (meta and links as foreign members) or CSV (them as headers). */
  const featureAnswer = (format: 'geojson' | 'csv', indices: readonly number[], more: boolean, avail: AvailabilityLookup | null, links: PageLinks): ApiResponse => {
    const meta = `{"more_available":${more},${metaRest}`;
    const body = features.collection({ indices, availability: avail, members: `,"meta":${meta}${linksMember(links)}` });
    if (format === 'geojson') return { status: 200, body, headers: { 'Content-Type': CONTENT_TYPE.geojson } };
    const link = linkHeader(links);
    const headers: Record<string, string> = { 'Content-Type': CONTENT_TYPE.csv, ...(link.length > 0 ? { Link: link } : {}), 'X-More-Available': String(more), 'X-Snapshot-Version': snapshotVersion };
    return { status: 200, body: csv.write(body), headers };
  };

  return keptFeatureAnswer;
}
