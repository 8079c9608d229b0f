/**
 * Validators of cacheable answers (D95): what an answer depends on besides its URL, language and
 * encoding. Station data and vehicles come from the snapshot; company names, tariffs and station
 * prices from the live catalog (its generation counts every company and tariff write). Answers with
 * live EVSE availability also depend on the availability view's version (status updates, the
 * table, and time while statuses can expire: D95, D135).
 */
import { GROUP_BIT } from '../auth/groups.js';
import type { AppContext } from './context.js';
import type { AvailabilityView } from './evse-availability.js';
import type { ApiRequest } from './types.js';

/** Snapshot version and catalog generation. */
export function snapshotAndCatalog(ctx: AppContext): (req: ApiRequest) => string {
  return () => `${ctx.snapshot.meta.snapshotVersion}.${ctx.tariffs.generation}`;
}

/** As snapshotAndCatalog, with the availability's version for keys that see live counts. */
export function stationAnswer(ctx: AppContext, availability: Pick<AvailabilityView, 'tag'>): (req: ApiRequest) => string {
  const v = snapshotAndCatalog(ctx);
  return (req) => ((req.groups & GROUP_BIT.ReadStationsWithAvailability) !== 0 ? `${v(req)}.a${availability.tag()}` : v(req));
}
