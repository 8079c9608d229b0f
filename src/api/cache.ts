/**
 * Validators of cacheable answers (D95): what an answer depends on besides its URL, language and
 * encoding. Station data and vehicles come from the snapshot; company names, tariffs and station
 * prices from the live catalog (its generation counts every company and tariff write). Answers with
 * live EVSE availability change with every status update and with time (D135), so they are not
 * cacheable.
 */
import { GROUP_BIT } from '../auth/groups.js';
import type { AppContext } from './context.js';
import type { ApiRequest } from './types.js';

/** Snapshot version and catalog generation. */
export function snapshotAndCatalog(ctx: AppContext): (req: ApiRequest) => string {
  return () => `${ctx.snapshot.meta.snapshotVersion}.${ctx.tariffs.generation}`;
}

/** As snapshotAndCatalog, except for keys that see live availability (not cacheable). */
export function stationAnswer(ctx: AppContext): (req: ApiRequest) => string | null {
  const v = snapshotAndCatalog(ctx);
  return (req) => ((req.groups & GROUP_BIT.ReadStationsWithAvailability) !== 0 ? null : v(req));
}
