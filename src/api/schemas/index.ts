/** The answer schemas of every operation (D234). */
export * from './common.js';
export * from './stations.js';
export * from './tariffs.js';
export * from './prices.js';
export * from './service.js';
export * from './geojson.js';
export * from './trips.js';
