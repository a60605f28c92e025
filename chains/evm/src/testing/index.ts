export * from './abandon-vectors.js';
export * from './evm-chain-conformance.js';
