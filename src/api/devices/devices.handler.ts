/**
 * `POST /v1/crm/devices` (group WriteCrmDevices, spec endpoint 5, D4, D10, D11, D44): registers or
 * updates a push-notification device by its client-generated UUID v4. Check order: key and group
 * (front end), then the optional bearer token (403 `token invalid` / `TOKEN_EXPIRED`), then the
 * body (400). A valid token links the device to the token's subject; a registration without a
 * token leaves the device unlinked (the user is logged out on that device).
 */
import { bearerToken } from '../../auth/token.js';
import { DeviceStore } from '../../storage/devices.js';
import type { AppContext } from '../context.js';
import { ApiError } from '../jsonapi/errors.js';
import { dropNulls } from '../jsonapi/validate.js';
import { json, type ApiRequest, type ApiResponse, type RouteDef } from '../types.js';
import type { DeviceDocument } from '../schemas/service.js';
import { deviceBodySchema, validateDevice } from './devices.schema.js';

const dedupe = (xs: readonly string[]): string[] => [...new Set(xs)];

export function devicesRoutes(ctx: AppContext): RouteDef[] {
  const store = new DeviceStore(ctx.live);

  const register = async (req: ApiRequest): Promise<ApiResponse> => {
    let userId: string | null = null;
    const token = bearerToken(req.headers.authorization);
    if (token === null) throw new ApiError('FORBIDDEN', 'token invalid');
    if (token !== '') {
      const v = await ctx.tokens.verify(token);
      if (!v.ok) throw new ApiError(v.code, v.title);
      userId = v.sub;
    }
    const d = validateDevice(dropNulls(req.body)).data;
    const a = d.attributes;
    await store.upsert({
      id: d.id.toLowerCase(),
      fcm_token: a.fcmToken,
      country: a.country.toUpperCase(),
      language: a.language.toLowerCase(),
      app_version: a.app_version,
      os_version: a.os_version,
      user_products: dedupe(a.user_products),
      disabled_notifications: dedupe(a.disabled_notifications),
      user_id: userId,
    });
    return json<DeviceDocument>(200, { data: { id: d.id, type: 'crm_device' } });
  };

  return [{ method: 'POST', path: '/v1/crm/devices', answers: { status: 200, response: (s) => s.DeviceDocument, bearer: 'optional' }, groups: ['WriteCrmDevices'], body: true, bodySchema: deviceBodySchema, handler: register }];
}
