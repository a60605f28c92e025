export * from './chain-conformance.js';
export * from './watched-set.js';
export * from './loopback.js';
export * from './replay-server.js';
