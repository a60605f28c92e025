export { createEvmAdapter, evmChainIdOf, isEvmAddress } from './adapter.js';
export { deriveEvmAddress, receiveChainOf, EVM_COIN_TYPE } from './derive.js';
export { parseAccountXpub, generateAccountXpub } from './xpub.js';
export { recoverSigner } from './recoverable-signature.js';
export { bip44AdapterBase, type Bip44AccountChain } from './bip44-account.js';
export { EvmWatcher, TRANSFER_TOPIC } from './watcher.js';
export { evmChainDefinition, type EvmChainSpec } from './evm-chain-definition.js';
export { publicnodeRpc, tenderlyRpc, llamarpcRpc } from './public-rpc.js';
export { subscribeNewHeads, type HeadSubscriptionOptions } from './heads.js';
export { EvmAccountTreasury, createEvmAccountTreasury } from './treasury/evm-account-treasury.js';
export { EvmAuthorizedTransfers } from './treasury/authorized-transfers.js';
export {
  TOKEN_SWEEPER_CREATION_CODE,
  TOKEN_SWEEPER_ABI,
  tokenSweeperInitCode,
  tokenSweeperDeployment,
  delegationCodeOf,
  tokenSweeperRuntimeCode,
  isTokenSweeperCode,
} from './treasury/token-sweeper.js';
export { sweeperDeploymentStep, sweeperDeploymentPlan, SWEEPER_DEPLOYMENT_GAS } from './treasury/sweeper-deployment.js';
export { MULTICALL3_ABI, MULTICALL3_ADDRESS } from './treasury/multicall3.js';
export { EIP3009_ABI, TRANSFER_WITH_AUTHORIZATION_TYPEHASH } from './treasury/eip3009-probe.js';
export { readHotGasKey } from './hot-key-file.js';
