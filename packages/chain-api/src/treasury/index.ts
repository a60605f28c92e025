export * from './chain-treasury.js';
export * from './plan-file.js';
export * from './treasury-chain-errors.js';
export * from './account-treasury.js';
export * from './account-plan-file.js';
export * from './eip3009-typed-data.js';
export * from './utxo-transaction.js';
export * from './payout-request.js';
