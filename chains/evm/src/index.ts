export { createEvmAdapter, evmChainIdOf, isEvmAddress } from './adapter.js';
export { deriveEvmAddress, receiveChainOf, EVM_COIN_TYPE } from './derive.js';
export { parseAccountXpub, generateAccountXpub } from './xpub.js';
export { recoverSigner } from './recoverable-signature.js';
export { bip44AdapterBase, type Bip44AccountChain } from './bip44-account.js';
export { EvmWatcher, TRANSFER_TOPIC } from './watcher.js';
export { evmChainDefinition, type EvmChainSpec } from './evm-chain-definition.js';
export { subscribeNewHeads, type HeadSubscriptionOptions } from './heads.js';
