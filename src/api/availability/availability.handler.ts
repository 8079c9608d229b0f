/**
 * Live availability feeds (group WriteAvailability, D134–D136):
 *   PUT   /ocpi/2.2.1/locations/:country_code/:party_id/:location_id/:evse_uid   OCPI EVSE object
 *   PATCH /ocpi/2.2.1/locations/:country_code/:party_id/:location_id/:evse_uid   `{"status": …}`
 *   POST  /v1/availability   many EVSE statuses in one body
 * Statuses go to memory (not the snapshot) and show as `available_count` of the groups listing
 * the EVSE; on a PostgreSQL live store they are stored and announced to every replica first
 * (D216), so an update is answered once every replica can hear it. An EVSE is found by its eMI3
 * id in the current snapshot: the PUT body's `evse_id`, else the id an earlier PUT gave this uid,
 * else the uid itself.
 */
import { envelope } from '../jsonapi/schemas.js';
import { EVSE_STATUSES, stateOfStatus, type EvseStatus, type LiveAvailability } from '../../domain/stations/live-availability.js';
import type { AppContext } from '../context.js';
import { ApiError, badPointer, notFound } from '../jsonapi/errors.js';
import { compile } from '../jsonapi/validate.js';
import { evseIndexOf } from '../evse-availability.js';
import { json, type Answers, type ApiRequest, type ApiResponse, type RouteDef } from '../types.js';
import type { AvailabilityDocument, OcpiResponse } from '../schemas/service.js';

/** Statuses per bulk body at most. */
export const MAX_BULK_STATUSES = 10_000;

const DATE_TIME = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|[+-]\\d{2}:\\d{2})?$';

export const validateEvse = compile<{ uid?: string; evse_id?: string; status: EvseStatus; last_updated?: string }>({
  type: 'object',
  required: ['status'],
  properties: {
    uid: { type: 'string', minLength: 1, maxLength: 36 },
    evse_id: { type: 'string', minLength: 1, maxLength: 48 },
    status: { type: 'string', enum: EVSE_STATUSES },
    last_updated: { type: 'string', pattern: DATE_TIME },
    // Any value, as before it was named: stated so that typed clients may send a whole OCPI EVSE object.
    connectors: { description: 'OCPI Connector objects: not read' },
  },
});

export const validateAvailabilityBulk = compile<{ data: { attributes: { statuses: Array<{ evse_id: string; status: EvseStatus; last_updated?: string }> } } }>(envelope({
  required: ['attributes'],
  properties: {
    type: { type: 'string', enum: ['evse_statuses'] },
    attributes: {
      type: 'object',
      required: ['statuses'],
      additionalProperties: false,
      properties: {
        statuses: {
          type: 'array',
          minItems: 1,
          maxItems: MAX_BULK_STATUSES,
          items: {
            type: 'object',
            required: ['evse_id', 'status'],
            additionalProperties: false,
            properties: {
              evse_id: { type: 'string', minLength: 1, maxLength: 48 },
              status: { type: 'string', enum: EVSE_STATUSES },
              last_updated: { type: 'string', pattern: DATE_TIME },
            },
          },
        },
      },
    },
  },
}));

/** When a status was true: its `last_updated`, never later than now. */
function timeOf(lastUpdated: string | undefined, now: number, pointer: string): number {
  if (lastUpdated === undefined) return now;
  const t = Date.parse(/(Z|[+-]\d{2}:\d{2})$/.test(lastUpdated) ? lastUpdated : `${lastUpdated}Z`);
  if (!Number.isFinite(t)) throw badPointer(pointer, `${pointer} is not a valid date-time`);
  return Math.min(t, now);
}

const ocpiOk = (): ApiResponse => json<OcpiResponse>(200, { data: null, status_code: 1000, status_message: 'Success', timestamp: new Date().toISOString() });

export { EvseUids } from '../../domain/stations/live-availability.js';

export function availabilityRoutes(ctx: AppContext): RouteDef[] {
  const live: LiveAvailability | undefined = ctx.liveAvailability;
  if (live === undefined) return [];
  const evses = evseIndexOf(ctx.snapshot, ctx.stations);
  const shared = ctx.live.sharedStatuses;
  /** `CC*PPP:uid` → EVSE id from PUT bodies (kept across snapshot swaps, D175; shared by replicas, D222). */
  const uids = live.uids;
  uids.retain((id) => evses.resolve(id) === id);

  const path = (req: ApiRequest): { party: string; uid: string } => {
    const { country_code: cc, party_id: party, location_id: loc, evse_uid: uid } = req.params;
    if (!/^[A-Za-z]{2}$/.test(cc)) throw badRequestParam('country_code', 'country_code must be 2 letters');
    if (!/^[A-Za-z0-9]{3}$/.test(party)) throw badRequestParam('party_id', 'party_id must be 3 letters or digits');
    if (loc.length > 36) throw badRequestParam('location_id', 'location_id must be at most 36 characters');
    if (uid.length > 36) throw badRequestParam('evse_uid', 'evse_uid must be at most 36 characters');
    return { party: `${cc.toUpperCase()}*${party.toUpperCase()}`, uid };
  };

  const ocpiUpdate = (put: boolean) => (req: ApiRequest): ApiResponse | Promise<ApiResponse> => {
    const p = path(req);
    const body = validateEvse(req.body);
    if (put && body.uid !== undefined && body.uid !== p.uid) throw badPointer('/uid', 'uid must match the evse_uid of the path');
    const now = Date.now();
    const at = timeOf(body.last_updated, now, '/last_updated');
    const key = `${p.party}:${p.uid}`;
    const raw = (put ? body.evse_id : undefined) ?? uids.get(key) ?? p.uid;
    const id = evses.resolve(raw);
    if (id === null) {
      live.unknownEvses++;
      throw notFound(`EVSE ${raw} not found`);
    }
    const apply = (): ApiResponse => {
      if (put && body.evse_id !== undefined) uids.set(key, id);
      live.set(id, body.status, at);
      return ocpiOk();
    };
    if (shared === null) return apply();
    return shared.write([{ evse_id: id, state: stateOfStatus(body.status), at, uid: put && body.evse_id !== undefined ? key : null }]).then(apply);
  };

  const bulk = (req: ApiRequest): ApiResponse | Promise<ApiResponse> => {
    const items = validateAvailabilityBulk(req.body).data.attributes.statuses;
    const now = Date.now();
    // Validate every item before applying any: a rejected body changes nothing.
    const times = items.map((s, i) => timeOf(s.last_updated, now, `/data/attributes/statuses/${i}/last_updated`));
    const unknown: string[] = [];
    let unknownCount = 0;
    const known: Array<{ id: string; status: EvseStatus; at: number }> = [];
    items.forEach((s, i) => {
      const id = evses.resolve(s.evse_id);
      if (id !== null) known.push({ id, status: s.status, at: times[i] });
      else {
        unknownCount++;
        live.unknownEvses++;
        if (unknown.length < 20) unknown.push(s.evse_id);
      }
    });
    const apply = (): ApiResponse => {
      let applied = 0;
      for (const k of known) if (live.set(k.id, k.status, k.at)) applied++;
      return json<AvailabilityDocument>(200, { meta: { received: items.length, applied, stale: known.length - applied, unknown: unknownCount, unknown_evse_ids: unknown } });
    };
    if (shared === null || known.length === 0) return apply();
    return shared.write(known.map((k) => ({ evse_id: k.id, state: stateOfStatus(k.status), at: k.at }))).then(apply);
  };

  const ocpiPath = '/ocpi/2.2.1/locations/:country_code/:party_id/:location_id/:evse_uid';
  const ocpiAnswers: Answers = { status: 200, mediaType: 'application/json', response: (s) => s.OcpiResponse };
  return [
    { method: 'PUT', path: ocpiPath, answers: ocpiAnswers, groups: ['WriteAvailability'], body: true, bodySchema: validateEvse, bareBody: true, handler: ocpiUpdate(true) },
    { method: 'PATCH', path: ocpiPath, answers: ocpiAnswers, groups: ['WriteAvailability'], body: true, bodySchema: validateEvse, bareBody: true, handler: ocpiUpdate(false) },
    { method: 'POST', path: '/v1/availability', answers: { status: 200, response: (s) => s.AvailabilityDocument }, groups: ['WriteAvailability'], body: true, bodySchema: validateAvailabilityBulk, handler: bulk },
  ];
}

const badRequestParam = (parameter: string, title: string): ApiError => new ApiError('BAD_REQUEST', title, { source: { parameter } });
