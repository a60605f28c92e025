export * from './test-seed-wallet.js';
export * from './esplora-replay.js';
