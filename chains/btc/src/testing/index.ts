export * from './test-seed-wallet.js';
