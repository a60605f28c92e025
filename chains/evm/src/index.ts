export { createEvmAdapter, evmChainIdOf, isEvmAddress } from './adapter.js';
export { deriveEvmAddress, receiveChainOf, EVM_COIN_TYPE } from './derive.js';
export { parseAccountXpub, base58checkDecode, base58checkEncode } from './xpub.js';
export { recoverSigner } from './recoverable-signature.js';
