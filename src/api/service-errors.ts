/**
 * Errors of the layers below the API (the price pool, the live store) mapped to answers of the
 * error catalogue, in one place: the HTTP layer asks this for anything that is not an ApiError.
 */
import { PoolOverloadedError, PoolTaskFailedError } from '../pool/pool.js';
import { isStorageFault } from '../storage/live.js';
import { ApiError, overloadedError } from './jsonapi/errors.js';

/** The answer for `e`, or null for an unexpected error (500, logged with its stack). */
export function serviceError(e: unknown): ApiError | null {
  if (e instanceof PoolOverloadedError) return overloadedError();
  if (e instanceof PoolTaskFailedError) return new ApiError('INTERNAL_SERVER_ERROR', 'price calculation failed');
  if (isStorageFault(e)) return new ApiError('SERVICE_UNAVAILABLE', 'storage unavailable');
  return null;
}
