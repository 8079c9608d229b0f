/**
 * Tariff details `POST /v1/tariff_details` (endpoint 2, group ViewPriceBenchmark, D31–D35): the
 * unit prices (`restricted_segments`) of the tariffs usable at a CPO or at stations. The main
 * thread validates the station configuration (D31) and resolves the filter defaults (D32); the
 * listing itself runs as a price task.
 */
import type { AppContext } from '../context.js';
import { badPointer } from '../jsonapi/errors.js';
import type { ApiRequest, ApiResponse, RouteDef } from '../types.js';
import type { TariffDetailsFilter } from '../../pool/protocol.js';
import { validateTariffDetails, type TariffDetailsBody } from './tariff-details.schema.js';
import { defineRoute } from '../contract.js';

const S = '/data/attributes/station';

export function tariffDetailsRoutes(ctx: AppContext): RouteDef[] {
  async function handler(req: ApiRequest<TariffDetailsBody>): Promise<ApiResponse> {
    const body = req.body;
    const a = body.data.attributes;
    const s = a.station;
    const tariffs = body.data.relationships?.tariffs?.data.map((t) => t.id) ?? null;
    const cpoForm = s.country !== undefined || s.operator !== undefined;
    if (s.id !== undefined && cpoForm) {
      throw badPointer(S, 'give either station.id or station.country with station.operator, not both');
    }
    if (s.id === undefined && !cpoForm) {
      throw badPointer(S, 'station.id, or station.country with station.operator, is required');
    }
    if (cpoForm && s.country === undefined) throw badPointer(`${S}/country`, `${S}/country is required with station.operator`);
    if (cpoForm && s.operator === undefined) throw badPointer(`${S}/operator`, `${S}/operator is required with station.country`);
    const many = s.id !== undefined && s.id.length > 1;
    if (many && (tariffs === null || tariffs.length === 0)) {
      throw badPointer('/data/relationships/tariffs', 'a list of tariffs is required with more than one station id');
    }
    // D31: with more than one station id the filter object is ignored (defaults apply).
    const f = many ? {} : (a.filter ?? {});
    const filter: TariffDetailsFilter = {
      brand_restricted_tariffs: f.brand_restricted_tariffs ?? true,
      foreign_tariffs: f.foreign_tariffs ?? true,
      provider_customer_tariffs: f.provider_customer_tariffs ?? false,
      tariffs_without_prices: f.tariffs_without_prices ?? false,
      average_prices: f.average_prices ?? false,
      dimensions: f.dimensions ?? ['minute', 'kwh', 'session'],
    };
    const plan = ctx.prices.plan({ task: 'tariffDetails', stations: s.id?.length ?? 1, candidates: tariffs?.length ?? candidatesOf(s) });
    const r = await ctx.prices.run(plan, {
      query: s.id !== undefined ? { kind: 'stations', ids: s.id } : { kind: 'cpo', country: s.country!, operatorId: s.operator!.id },
      chargePoint: s.charge_point === undefined ? null : { plug: s.charge_point.plug, power: s.charge_point.power },
      filter,
      tariffs,
    });
    return r;
  }
  /** Candidate tariffs at the request's CPO (CPO form) or first station's operator, for the plan. */
  function candidatesOf(s: { id?: string[]; operator?: { id: string } }): number {
    if (s.operator !== undefined) return ctx.prices.candidatesAt(s.operator.id);
    const i = s.id === undefined || s.id.length === 0 ? -1 : ctx.stations.find(s.id[0]);
    const op = i < 0 ? null : ctx.stations.operatorOf(i);
    return op === null ? 0 : ctx.prices.candidatesAt(op);
  }

  return [defineRoute({ method: 'POST', path: '/v1/tariff_details', answers: { status: 200, response: (s) => s.TariffDetailsDocument }, groups: ['ViewPriceBenchmark'], input: validateTariffDetails, priceWork: true, fresh: true, handler })];
}
