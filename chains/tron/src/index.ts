import { defineChain } from '@gw/chain-api';
import { createTronAdapter } from './adapter.js';
import { tronDefinition } from './definition.js';

export { tronDefinition } from './definition.js';
export { createTronAdapter, tronMessageHash } from './adapter.js';
export { deriveTronAddress, isTronAddress, tronAddressFromHex } from './derive.js';
export { TronWatcher, TRC20_TRANSFER_TOPIC } from './watcher.js';
export { TronTreasury, type TronTreasuryOptions } from './treasury/tron-treasury.js';

export const tronChain = defineChain({ definition: tronDefinition, createAdapter: createTronAdapter });
export default tronChain;
