/**
 * Administration (group Admin):
 *   POST /admin/snapshot   swap the station snapshot without a restart (D133): the file at
 *                          `data.attributes.path`, or SNAPSHOT when absent. 200 with the new
 *                          snapshot; 400 when the file is refused (the old one keeps serving);
 *                          404 when it does not exist; 409 while another swap runs.
 */
import { envelope } from '../jsonapi/schemas.js';
import type { AppContext } from '../context.js';
import { ApiError, badPointer } from '../jsonapi/errors.js';
import { compile } from '../jsonapi/validate.js';
import { json, type ApiRequest, type ApiResponse, type RouteDef } from '../types.js';
import { SwapError } from './snapshot-control.js';

export { SwapError, type SnapshotControl, type SwapFailure, type SwapResult } from './snapshot-control.js';

export const validateSnapshotReload = compile<{ data: { type?: string; attributes?: { path?: string } } }>(envelope({
  properties: {
    type: { type: 'string', enum: ['snapshot_reload'] },
    attributes: {
      type: 'object',
      additionalProperties: false,
      properties: { path: { type: 'string', minLength: 1, maxLength: 4096 } },
    },
  },
}));

export function adminRoutes(ctx: AppContext): RouteDef[] {
  const control = ctx.snapshots;
  if (control === undefined) return [];
  const reload = async (req: ApiRequest): Promise<ApiResponse> => {
    const path = validateSnapshotReload(req.body).data.attributes?.path;
    if (path !== undefined && path.includes('\0')) throw badPointer('/data/attributes/path', 'path must not contain NUL');
    try {
      const r = await control.reload(path);
      return json(200, {
        data: {
          type: 'snapshots',
          id: r.version,
          attributes: {
            version: r.version,
            built_at: r.builtAt,
            file: r.file,
            stations: r.stations,
            generation: r.generation,
            load_ms: Math.round(r.loadMs),
            swap_ms: Math.round(r.swapMs * 100) / 100,
          },
        },
      });
    } catch (e) {
      if (!(e instanceof SwapError)) throw e;
      if (e.kind === 'busy') throw new ApiError('VERSION_CONFLICT', 'a snapshot swap is already running');
      if (e.kind === 'missing') throw new ApiError('NOT_FOUND', 'snapshot file not found', { detail: e.message });
      throw new ApiError('BAD_REQUEST', 'snapshot refused; the current snapshot keeps serving', { detail: e.message });
    }
  };
  // An operator's swap is never refused for load (D176).
  return [{ method: 'POST', path: '/admin/snapshot', groups: ['Admin'], body: true, admission: 'probe', handler: reload }];
}
