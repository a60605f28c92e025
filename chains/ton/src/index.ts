import { defineChain } from '@gw/chain-api';
import { createTonAdapter } from './adapter.js';
import { tonDefinition } from './definition.js';

export { tonDefinition } from './definition.js';
export { createTonAdapter, tonSignDataHash, type TonSignDataProof } from './adapter.js';
export { TonWatcher, createTonWatcher } from './watcher.js';
export { decodeIncomingBody, TRANSFER_NOTIFICATION_OP, type IncomingBody } from './message-body.js';
export { TonTreasury, type TonTreasuryOptions } from './treasury/ton-treasury.js';
export { decodeStepData, type TonStepData } from './treasury/ton-step-data.js';
export { deriveTonAddress, formatTonAddress, parseTonPublicKey, tonWalletAddress, TON_MAX_SUBWALLET } from './derive.js';

export const tonChain = defineChain({ definition: tonDefinition, createAdapter: createTonAdapter });
export default tonChain;
