/**
 * A user's own resources behind a bearer access token (D210–D213): settings (GET, PUT in two
 * shapes, versions that never lose newer settings), product activation, account deletion.
 */
import type { SettingsDocument } from '../schemas/service.js';
import { sourceHash, sourceIdentity } from '../../auth/product-sources.js';
import { bearerToken } from '../../auth/token.js';
import type { StoredSettings } from '../../storage/accounts.js';
import type { AppContext } from '../context.js';
import { ApiError, badPointer } from '../jsonapi/errors.js';
import { json, noContent, type Answers, type ApiRequest, type ApiResponse, type RouteDef } from '../types.js';
import { limit, type AccountService } from './account-service.js';
import { productsSchema, SETTINGS_BODY, settingsSchema, wrappedSettingsSchema, type Ref } from './accounts.schema.js';

const invalid = (): ApiError => new ApiError('FORBIDDEN', 'token invalid');

/**
 * The subject of the request's bearer token, when it is the `{sub}` of the path (D210) and the
 * token is one this service issued to that user's current generation (D244).
 */
async function subject(ctx: AppContext, req: ApiRequest): Promise<string> {
  const token = bearerToken(req.headers.authorization);
  if (token === '') throw new ApiError('FORBIDDEN', 'token missing');
  if (token === null) throw invalid();
  const v = await ctx.tokens.verify(token);
  if (!v.ok) throw new ApiError(v.code, v.title);
  if (v.sub !== req.params.sub || v.gen === undefined) throw invalid();
  return v.sub;
}

export function settingsDocument(userId: string, s: StoredSettings): SettingsDocument {
  return {
    data: {
      id: userId,
      type: 'user_settings',
      attributes: { version: s.version },
      relationships: {
        vehicle: { data: { id: s.vehicle_id, type: 'car' } },
        tariffs: { data: s.tariff_ids.map((id) => ({ id, type: 'tariff' })) },
      },
    },
    meta: { products: s.products },
  };
}

interface SettingsInput {
  version: number;
  vehicle: Ref;
  tariffs: Ref[];
}

/** Either shape of D211: the wrapped form of a first login has no `data.type`. */
function settingsInput(body: unknown, userId: string): SettingsInput {
  const data = (body as { data?: { type?: unknown } } | undefined)?.data;
  if (data !== null && typeof data === 'object' && data.type === undefined) {
    const w = wrappedSettingsSchema(body).data.attributes.data;
    return { version: w.version, vehicle: w.vehicle, tariffs: w.tariffs ?? [] };
  }
  const d = settingsSchema(body).data;
  if (d.id !== userId) throw badPointer('/data/id', 'data.id must be the user id of the path');
  return { version: d.attributes.version, vehicle: d.relationships.vehicle.data, tariffs: d.relationships.tariffs?.data ?? [] };
}

/** The user routes (D210–D213); with an auth prefix (D240), deletion is also served under it, where the client sends it. */
export function userRoutes(ctx: AppContext, svc: AccountService, prefix: string): RouteDef[] {
  const store = svc.store;
  const limits = svc.deps.limits;

  const getSettings = async (req: ApiRequest): Promise<ApiResponse> => {
    const sub = await subject(ctx, req);
    const r = await store.settings(sub);
    if (!r.user) throw invalid();
    if (r.settings === undefined) throw new ApiError('NOT_FOUND', 'settings not found');
    return json(200, settingsDocument(sub, r.settings));
  };

  const putSettings = async (req: ApiRequest): Promise<ApiResponse> => {
    const sub = await subject(ctx, req);
    const s = settingsInput(req.body, sub);
    const tariffs = [...new Set(s.tariffs.map((t) => t.id))];
    const stored = await store.putSettings(sub, s.version, s.vehicle.id, tariffs);
    if (stored === undefined) throw invalid();
    return json(200, settingsDocument(sub, stored.settings));
  };

  const activate = async (req: ApiRequest): Promise<ApiResponse> => {
    const sub = await subject(ctx, req);
    limit(await limits.activationsPerUser.check(sub));
    limit(await limits.activationsPerClient.take(svc.client(req)));
    await limits.activationsPerUser.count(sub);
    // D239: a source that fits no known shape is one no operator stored.
    const id = sourceIdentity(productsSchema(req.body).data.attributes.source);
    if (id === null) throw new ApiError('PRODUCT_SOURCE_NOT_FOUND', 'product source not found');
    const r = await store.activate(sub, id.type, sourceHash(id.type, id.identity, await svc.sourceKey()));
    if (r === undefined) throw invalid();
    if (!r.ok && r.reason === 'not_found') throw new ApiError('PRODUCT_SOURCE_NOT_FOUND', 'product source not found');
    if (!r.ok) throw new ApiError('PRODUCT_SOURCE_ALREADY_USED', 'product source already used');
    return json(201, { data: { type: 'user_products', attributes: { products: r.products } } });
  };

  const remove = async (req: ApiRequest): Promise<ApiResponse> => {
    const sub = await subject(ctx, req);
    if (!(await store.deleteUser(sub))) throw invalid();
    return noContent();
  };

  const g = ['UserAccounts'] as const;
  const removed: Answers = { status: 204, bearer: 'required' };
  return [
    { method: 'GET', path: '/v1/users/:sub/settings', answers: { status: 200, response: (s) => s.SettingsDocument, bearer: 'required' }, groups: g, body: false, clientErrors: true, handler: getSettings },
    { method: 'PUT', path: '/v1/users/:sub/settings', answers: { status: 200, response: (s) => s.SettingsDocument, bearer: 'required' }, groups: g, body: true, bodySchema: SETTINGS_BODY, clientErrors: true, handler: putSettings },
    { method: 'POST', path: '/v1/users/:sub/products', answers: { status: 201, response: (s) => s.ProductsDocument, errors: ['409'], bearer: 'required' }, groups: g, body: true, bodySchema: productsSchema, clientErrors: true, handler: activate },
    { method: 'DELETE', path: '/v1/users/:sub', answers: removed, groups: g, body: false, clientErrors: true, handler: remove },
    ...(prefix === '' ? [] : [{ method: 'DELETE', path: `${prefix}/v1/users/:sub`, docPath: '/v1/users/:sub', answers: removed, groups: g, body: false, clientErrors: true, handler: remove } as const]),
  ];
}
