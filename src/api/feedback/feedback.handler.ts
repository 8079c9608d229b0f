/**
 * Feedback (group WriteUserFeedback):
 *   POST /v1/user_feedback     five types, their attributes, limits and segments (spec 6, D45); 204
 *   POST /v1/partner_feedback  type tariff_update (spec 4, D43); 204
 * Each accepted body is stored in one transaction of the live store before the 204; a rejected body
 * (400) stores nothing.
 */
import { FeedbackStore, type UserFeedbackInput } from '../../storage/feedback.js';
import type { AppContext } from '../context.js';
import { noContent, type ApiRequest, type ApiResponse, type RouteDef } from '../types.js';
import { defineRoute } from '../contract.js';
import {
  ATTRIBUTES_OF,
  validatePartnerFeedback,
  type PartnerFeedbackBody,
  type UserFeedbackBody,
  validateUserFeedback,
} from './feedback.schema.js';

/**
 * D45: the `poi_id` query value of a deprecated `poi_link`, when its `poi_source` is `native` or
 * missing; null otherwise. The query may sit in the URL or in its fragment (`…/#/map?poi_id=…`);
 * the link need not be an absolute URL.
 */
export function stationIdFromPoiLink(link: string): string | null {
  let poiId: string | null = null;
  let source: string | null = null;
  const q = link.indexOf('?');
  if (q === -1) return null;
  // Every `?…` part (URL query and a query inside the fragment); later values win.
  for (const part of link.slice(q + 1).split(/[?#]/)) {
    const params = new URLSearchParams(part);
    const id = params.get('poi_id');
    if (id !== null) poiId = id;
    const s = params.get('poi_source');
    if (s !== null) source = s;
  }
  if (poiId === null || poiId.trim().length === 0) return null;
  if (source !== null && source.trim().toLowerCase() !== 'native' && source.trim() !== '') return null;
  return poiId.trim();
}

export function feedbackRoutes(ctx: AppContext): RouteDef[] {
  const store = new FeedbackStore(ctx.live);

  const userFeedback = async (req: ApiRequest<UserFeedbackBody>): Promise<ApiResponse> => {
    const { type, attributes: a } = req.body.data;
    // Members the type's schema does not name are ignored (D8), so only its own are stored (D45).
    const sent: Readonly<Record<string, unknown>> = a;
    const attributes: Record<string, unknown> = {};
    for (const k of ATTRIBUTES_OF[type]) if (sent[k] !== undefined) attributes[k] = sent[k];
    attributes.priority ??= 'normal';
    attributes.user_products ??= [];
    let stationId: string | null = null;
    if (typeof sent.charging_station_id === 'string' && sent.charging_station_id.length > 0) {
      stationId = sent.charging_station_id;
    } else if (typeof sent.poi_link === 'string' && 'poi_link' in attributes) {
      stationId = stationIdFromPoiLink(sent.poi_link);
    }
    const rec: UserFeedbackInput = {
      type,
      priority: a.priority ?? 'normal',
      language: a.language,
      email: a.email,
      notes: a.notes,
      context: a.context,
      charging_station_id: stationId,
      attributes,
    };
    await store.addUserFeedback(rec);
    return noContent();
  };

  const partnerFeedback = async (req: ApiRequest<PartnerFeedbackBody>): Promise<ApiResponse> => {
    const { type, attributes: a } = req.body.data;
    await store.addPartnerFeedback({ type, content: a.content, tariff: a.tariff, cpo: a.cpo, emp: a.emp, language: a.language });
    return noContent();
  };

  return [
    defineRoute({ method: 'POST', path: '/v1/user_feedback', answers: { status: 204 }, groups: ['WriteUserFeedback'], input: validateUserFeedback, handler: userFeedback }),
    defineRoute({ method: 'POST', path: '/v1/partner_feedback', answers: { status: 204 }, groups: ['WriteUserFeedback'], input: validatePartnerFeedback, handler: partnerFeedback }),
  ];
}
