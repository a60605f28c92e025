export * from './replay-server.js';
export * from './recorded-scan.js';
export * from './esplora-replay.js';
export * from './evm-rpc-replay.js';
export * from './tron-replay.js';
export * from './toncenter-replay.js';
export * from './public-provider-replay.js';
export * from './replayed-provider.js';
