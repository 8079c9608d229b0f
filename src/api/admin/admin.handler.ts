/**
 * Administration (group Admin):
 *   POST /admin/snapshot   swap the station snapshot without a restart (D133): the file at
 *                          `data.attributes.path` (a file in SNAPSHOT_DIR), or SNAPSHOT when absent. 200 with the new
 *                          snapshot; 400 when the file is refused (the old one keeps serving);
 *                          404 when it does not exist; 409 while another swap runs.
 */
import fs from 'node:fs';
import path from 'node:path';
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

/**
 * The file `given` names, relative to SNAPSHOT_DIR or absolute, as its real path, when it lies
 * inside SNAPSHOT_DIR with every symbolic link followed (of its directories and of the file
 * itself); 400 otherwise, whether or not it exists, and for a link that leads nowhere (D133).
 */
export function insideSnapshotDir(dir: string, given: string): string {
  const refuse = (): ApiError =>
    new ApiError('BAD_REQUEST', 'path must name a file in SNAPSHOT_DIR', {
      source: { pointer: '/data/attributes/path' },
      detail: `snapshots are loaded from ${dir} (the setting SNAPSHOT_DIR) only`,
    });
  const file = path.resolve(dir, given);
  if (!within(dir, file)) throw refuse();
  let real = realPrefix(file);
  let st: fs.Stats | null = null;
  try {
    st = fs.lstatSync(real);
  } catch {
    st = null;
  }
  if (st?.isSymbolicLink() === true) {
    try {
      real = fs.realpathSync(real);
    } catch {
      throw refuse();
    }
  }
  let base = path.resolve(dir);
  try {
    base = fs.realpathSync(base);
  } catch {
    // A SNAPSHOT_DIR that does not exist holds no file: nothing inside it is found (404).
  }
  if (!within(base, real)) throw refuse();
  return real;
}

/** Whether `p` lies below `base` (not `base` itself, not through `..`). */
function within(base: string, p: string): boolean {
  const rel = path.relative(base, p);
  return rel.length > 0 && rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
}

/** `p` with the symbolic links of its deepest existing directory followed; the rest as given. */
function realPrefix(p: string): string {
  let head = path.dirname(p);
  const rest = [path.basename(p)];
  for (;;) {
    try {
      return path.join(fs.realpathSync(head), ...rest);
    } catch {
      const up = path.dirname(head);
      if (up === head) return p;
      rest.unshift(path.basename(head));
      head = up;
    }
  }
}

export function adminRoutes(ctx: AppContext): RouteDef[] {
  const control = ctx.snapshots;
  if (control === undefined) return [];
  const reload = async (req: ApiRequest): Promise<ApiResponse> => {
    const given = validateSnapshotReload(req.body).data.attributes?.path;
    if (given !== undefined && given.includes('\0')) throw badPointer('/data/attributes/path', 'path must not contain NUL');
    // SNAPSHOT_DIR, else the directory of the snapshot loaded at start (DATA_DIR for a default snapshot built there, D123).
    const dir = ctx.config.snapshotDir ?? path.dirname(control.defaultFile);
    const file = given === undefined ? undefined : insideSnapshotDir(dir, given);
    try {
      const r = await control.reload(file);
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
