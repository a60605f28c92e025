export * from './observed-transfer.js';
export * from './chain-watcher.js';
export * from './provider-pool.js';
export * from './public-provider.js';
export * from './answer-shapes.js';
export * from './reconnect.js';
export * from './json-rpc-batch.js';
