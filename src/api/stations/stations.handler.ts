/**
 * `GET /v1/charging_stations` (search, D25–D29) and `GET /v1/charging_stations/{id}` (single read,
 * D30, D22, D3). Both answered on the main thread from the in-memory station index.
 */
import { linksMember, pageLinks } from '../jsonapi/links.js';
import { stationAnswer } from '../cache.js';
import { GROUP_BIT } from '../../auth/groups.js';
import { pickLanguage } from '../../domain/language.js';
import type { AppContext } from '../context.js';
import { forbidden, notFound } from '../jsonapi/errors.js';
import { bool } from '../jsonapi/query.js';
import { json, type ApiRequest, type ApiResponse, type RouteDef } from '../types.js';
import type { AvailabilityView } from '../evse-availability.js';
import { SingleStationWriter, StationPageWriter, singleStationDocument } from '../station-page.js';
import { parseSearch } from './stations.query.js';
import { EmpOperatorMasks, compileRefinement } from '../refinements.js';

const WITH_AVAILABILITY = GROUP_BIT.ReadStationsWithAvailability;

export function stationsRoutes(ctx: AppContext, availability: AvailabilityView): RouteDef[] {
  const index = ctx.stations;
  const writer = new StationPageWriter(index, ctx.companies, ctx.config.disabledExtBCountries, ctx.snapshot.meta.snapshotVersion);
  const singleWriter = new SingleStationWriter(index, ctx.companies);
  const empMasks = new EmpOperatorMasks(index, ctx.companies);

  const search = (req: ApiRequest): ApiResponse => {
    const q = parseSearch(req.query);
    const refinement = compileRefinement(index, empMasks, q);
    const r = index.search(q.primary, refinement, q.page.offset, q.page.size);
    const body = writer.page({
      indices: r.indices,
      moreAvailable: r.moreAvailable,
      availability: (req.groups & WITH_AVAILABILITY) !== 0 ? availability.current() : null,
      companyFields: q.companyFields,
      supportedEmpsFilter: q.supportedEmps,
      links: linksMember(pageLinks(req.path, req.query, q.page, r.moreAvailable)),
    });
    return { status: 200, body };
  };

  const single = (req: ApiRequest): ApiResponse => {
    const withAvail = bool(req.query, 'availability') === true;
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
    if (singleWriter.canWrite(i)) return { status: 200, body: singleWriter.write(i, avail) };
    const station = ctx.snapshot.station(index.idAt(i));
    if (station === null) throw notFound(`charging station ${raw}`);
    return json(200, singleStationDocument(station, pickLanguage(req.headers.acceptLanguage), avail, ctx.companies));
  };

  const cache = stationAnswer(ctx, availability);
  return [
    { method: 'GET', path: '/v1/charging_stations', groups: ['ReadStations', 'ReadStationsWithAvailability'], body: false, handler: search, cache },
    {
      method: 'GET',
      path: '/v1/charging_stations/:id',
      groups: ['ReadStations', 'ReadStationsWithAvailability'],
      body: false,
      handler: single,
      cache,
    },
  ];
}
