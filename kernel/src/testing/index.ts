export * from './test-database.js';
export * from './test-kernel.js';
export * from './offline-config.js';
export * from './signed-fetch.js';
export * from './response-check.js';
export * from './wait-for.js';
export * from './process-group.js';
export * from './free-port.js';
// Chain test helpers live with the chain contract; re-exported so existing imports keep working.
export * from '@gw/chain-api/testing';
export * from './address-samples.js';
export * from './route-matching.js';
