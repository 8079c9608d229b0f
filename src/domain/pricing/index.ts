/**
 * Pricing engine: pure domain code (no I/O). Entry points:
 * - `PricingCatalog` (catalog.ts): incremental tariff/company/station-price store with compiled blocks.
 * - `computeChargePrices` + `metaChargePoints` (request.ts) and the charge price writer (src/api/prices): endpoint 3
 *   (its object twin for tests: test/oracles/charge-price-entries.ts).
 * - `bulkPreview` (request.ts): endpoint 8.
 * - `tariffDetails` (details.ts): endpoint 2 listing (D33–D34).
 * - `planTariff` + `evaluateInto` (evaluate.ts): the compiled hot path.
 * - `referencePrice` (reference.ts): the slow reference evaluator.
 * - `ocpiToComponents` (ocpi.ts): OCPI tariff import.
 */
export * from './model.js';
export * from './catalog.js';
export * from './charging.js';
export * from './currency.js';
export * from './evaluate.js';
export * from './request.js';
export * from './details.js';
export * from './reference.js';
export * from './i18n.js';
export * from './ocpi.js';
