/**
 * `@gw/testing`: the helpers that tests of several packages share (private, never shipped). It
 * depends on the kernel, the chain modules and the operator CLI engine only, so any plugin, app or
 * end-to-end test may take it as a devDependency without a package cycle; helpers that need a
 * plugin stay in that plugin, behind its `./testing` export.
 */
export * from './chains.js';
export * from './reference-chain.js';
export * from './projects.js';
export * from './users.js';
export * from './signers.js';
export * from './receiver.js';
export * from './webhooks.js';
export * from './processes.js';
export * from './anvil.js';
export * from './bcoin.js';
export * from './litecoind.js';
export * from './rpc-proxy.js';
export * from './rpc-lies.js';
export * from './fault-proxy.js';
export * from './response-body.js';
export * from './spec-pathname-client.js';
export * from './browser.js';
export * from './cli.js';
export * from './loopback.js';
export * from './teardown.js';
export * from './status-observer.js';
export * from './api-invoices.js';
export * from './solidity.js';
export * from './evm-treasury-chain.js';
export * from './eip3009-signatures.js';
export * from './provider-replay/index.js';
