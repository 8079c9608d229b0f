/**
 * Per-thread reusable buffers of the price tasks (one set per thread: the main thread's inline
 * work and each pricing worker).
 */
import { BulkScratch, PlanScratch, PriceResults } from '../domain/pricing/index.js';

export const scratch = { plan: new PlanScratch(), results: new PriceResults(), bulk: new BulkScratch() };
