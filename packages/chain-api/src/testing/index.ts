export * from './chain-conformance.js';
export * from './watched-set.js';
