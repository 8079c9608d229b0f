/**
 * Administration (group Admin):
 *   POST /admin/snapshot   swap the station snapshot without a restart (D133): the file at
 *                          `data.attributes.path` (a file in SNAPSHOT_DIR), or SNAPSHOT when absent. 200 with the new
 *                          snapshot; 400 when the file is refused (the old one keeps serving);
 *                          404 when it does not exist; 409 while another swap runs.
 */
import type { SnapshotDocument } from '../schemas/service.js';
import fs from 'node:fs';
import path from 'node:path';
import { Envelope, Type, type Static } from '../jsonapi/schemas.js';
import type { AppContext } from '../context.js';
import { ApiError, badPointer } from '../jsonapi/errors.js';
import { validatorOf } from '../jsonapi/validate.js';
import { defineRoute } from '../contract.js';
import { json, type ApiRequest, type ApiResponse, type RouteDef } from '../types.js';
import { SwapError, type ClusterAnswer, type SnapshotControl, type SwapResult } from '../snapshot-control.js';
import type { SwapSource } from '../../storage/snapshot-swaps.js';

export { SwapError, type ClusterControl, type SnapshotControl, type SwapFailure, type SwapResult } from '../snapshot-control.js';

const { Optional } = Type;
const path4096 = { minLength: 1, maxLength: 4096 };

/** The reload's attributes: a file of SNAPSHOT_DIR, or a URL with its digest (D220), and the scope. */
const ReloadAttributes = Type.Object(
  {
    path: Optional(Type.String(path4096)),
    url: Optional(Type.String({ ...path4096, pattern: '^https?://' })),
    sha256: Optional(Type.String({ pattern: '^[0-9a-f]{64}$' })),
    scope: Optional(Type.Unsafe<'cluster' | 'replica'>({ type: 'string', enum: ['cluster', 'replica'] })),
  },
  {
    additionalProperties: false,
    // `url` and `sha256` together (draft 2020-12's dependentRequired, in the draft-07 words the validators compile).
    allOf: [
      { if: { required: ['url'] }, then: { required: ['sha256'] } },
      { if: { required: ['sha256'] }, then: { required: ['url'] } },
    ],
    not: { required: ['path', 'url'] },
  },
);
type ReloadAttributes = Static<typeof ReloadAttributes>;

export const SnapshotReloadBody = Envelope({
  type: Optional(Type.Unsafe<'snapshot_reload'>({ type: 'string', enum: ['snapshot_reload'] })),
  attributes: Optional(ReloadAttributes),
});
export type SnapshotReloadBody = Static<typeof SnapshotReloadBody>;
export const validateSnapshotReload = validatorOf(SnapshotReloadBody);


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

/** Whether `url` starts with one of `prefixes` (an empty list allows none; D220). */
export const urlAllowed = (prefixes: readonly string[], url: string): boolean => prefixes.some((p) => url.startsWith(p));

/** The file to load: downloaded from `url` (D220), or `path` inside SNAPSHOT_DIR (D133), or undefined for SNAPSHOT. */
async function fileToLoad(ctx: AppContext, control: SnapshotControl, a: ReloadAttributes): Promise<string | undefined> {
  if (a.url !== undefined) {
    if (!urlAllowed(ctx.config.snapshotUrlPrefixes, a.url)) {
      throw new ApiError('BAD_REQUEST', 'url is not allowed', {
        source: { pointer: '/data/attributes/url' },
        detail: ctx.config.snapshotUrlPrefixes.length === 0 ? 'snapshot URLs are off (the setting SNAPSHOT_URL_PREFIXES)' : 'the URL starts with none of SNAPSHOT_URL_PREFIXES',
      });
    }
    return control.download(a.url, a.sha256!);
  }
  if (a.path === undefined) return undefined;
  if (a.path.includes('\0')) throw badPointer('/data/attributes/path', 'path must not contain NUL');
  return insideSnapshotDir(snapshotDirOf(ctx, control), a.path);
}

/** SNAPSHOT_DIR, else the directory of the snapshot loaded at start (DATA_DIR for a default snapshot built there, D123). */
const snapshotDirOf = (ctx: AppContext, control: SnapshotControl): string => ctx.config.snapshotDir ?? path.dirname(control.defaultFile);

/** What the other replicas load (D220): the same URL, or the file's name relative to SNAPSHOT_DIR. */
function sourceOf(ctx: AppContext, control: SnapshotControl, a: ReloadAttributes, r: SwapResult): SwapSource {
  if (a.url !== undefined) return { url: a.url, sha256: a.sha256! };
  let dir = snapshotDirOf(ctx, control);
  try {
    dir = fs.realpathSync(dir);
  } catch {
    // As given: the file was found, so the directory exists; a race with its removal names it as configured.
  }
  return { file: path.relative(dir, r.file) };
}

function swapFailure(e: SwapError): ApiError {
  if (e.kind === 'busy') return new ApiError('VERSION_CONFLICT', 'a snapshot swap is already running');
  if (e.kind === 'missing') return new ApiError('NOT_FOUND', 'snapshot file not found', { detail: e.message });
  if (e.kind === 'unreachable') return new ApiError('SERVICE_UNAVAILABLE', 'snapshot download failed', { detail: e.message });
  return new ApiError('BAD_REQUEST', 'snapshot refused; the current snapshot keeps serving', { detail: e.message });
}

function swapAnswer(r: SwapResult, cluster: ClusterAnswer | null): ApiResponse {
  const meta = cluster === null ? undefined : 'error' in cluster ? { cluster: cluster.error } : { replicas: cluster.replicas };
  return json<SnapshotDocument>(200, {
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
    ...(meta === undefined ? {} : { meta }),
  });
}

export function adminRoutes(ctx: AppContext): RouteDef[] {
  const control = ctx.snapshots;
  if (control === undefined) return [];
  const reload = async (req: ApiRequest<SnapshotReloadBody>): Promise<ApiResponse> => {
    const a = req.body.data.attributes ?? {};
    try {
      const r = await control.reload(await fileToLoad(ctx, control, a));
      const cluster = control.cluster === null || a.scope === 'replica' ? null : await control.cluster.announce(r, sourceOf(ctx, control, a, r));
      return swapAnswer(r, cluster);
    } catch (e) {
      if (!(e instanceof SwapError)) throw e;
      throw swapFailure(e);
    }
  };
  // An operator's swap is never refused for load (D176).
  // Nulls are checked as sent (D8's dropping never applied here: `"path": null` is refused).
  return [defineRoute({ method: 'POST', path: '/admin/snapshot', answers: { status: 200, response: (s) => s.SnapshotDocument }, groups: ['Admin'], input: validateSnapshotReload, keepNulls: true, admission: 'probe', handler: reload })];
}
