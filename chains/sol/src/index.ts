import { defineChain } from '@gw/chain-api';
import { createSolAdapter } from './adapter.js';
import { solDefinition } from './definition.js';

export { solDefinition } from './definition.js';
export { createSolAdapter } from './adapter.js';
export { SolWatcher } from './watcher.js';
export { SolTreasury } from './treasury/sol-treasury.js';
export type { SolStepData } from './treasury/step-data.js';
export { isSolAddress } from './address.js';
export { parseSignature, verifyMessageSignature } from './ownership.js';
export { solanaPayUri } from './payment-uri.js';
export { parseTransfers, SYSTEM_PROGRAM, TOKEN_PROGRAM, TOKEN_2022_PROGRAM, type ParsedTransfer, type RpcTransaction } from './transfers.js';

/** sol: Solana (SOL, USDC, USDT), one recipient address and a Solana Pay reference per invoice. Off unless `chains.enabled` lists it. */
export const solChain = defineChain({ definition: solDefinition, createAdapter: createSolAdapter, enabledByDefault: false });

export default solChain;
