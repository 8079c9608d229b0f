/**
 * The task table of price work: what the pool runs inline (src/app.ts hands it to the pool) and
 * what the pricing workers run (workers/pricing.worker.ts imports it). The documents themselves
 * live with their features: src/api/prices (charge prices, bulk previews), src/api/tariff-details,
 * src/api/area-prices (station prices), src/api/cdr-cost (OCPI CDR costs), src/api/trips (trip plans).
 */
import type { BulkTask, CdrCostTask, ChargePricesTask, StationPricesMessage, TariffDetailsTask, TaskDocument, TaskEnv, TaskInputs, TaskName, TripPlanTask } from '../pool/protocol.js';
import { runStationPricesMessage } from './area-prices/station-prices.task.js';
import { runBulk, runChargePrices } from './prices/prices.tasks.js';
import { runTariffDetails } from './tariff-details/tariff-details.task.js';
import { runCdrCost } from './cdr-cost/cdr-cost.js';
import { runTripPlan } from './trips/trips.task.js';

export { runChargePricesPart } from './prices/prices.tasks.js';
export { mergeChargePriceParts, recycleDocument } from './prices/charge-prices.writer.js';

export function runTask(env: TaskEnv, name: TaskName, input: TaskInputs[TaskName]): TaskDocument {
  switch (name) {
    case 'chargePrices':
      return runChargePrices(env, input as ChargePricesTask);
    case 'bulk':
      return runBulk(env, input as BulkTask);
    case 'tariffDetails':
      return runTariffDetails(env, input as TariffDetailsTask);
    case 'stationPrices':
      return runStationPricesMessage(env, input as StationPricesMessage);
    case 'cdrCost':
      return runCdrCost(input as CdrCostTask);
    case 'tripPlan':
      return runTripPlan(env, input as TripPlanTask);
  }
}
