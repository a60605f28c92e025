/** The Solana tests' local ledger and payment helpers, for the gateway's end-to-end tests (`@gw/chain-sol/testing`). */
export * from './litesvm-rpc.js';
export * from './payments.js';
