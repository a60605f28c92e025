import { defineChain } from '@gw/kernel';
import { createBtcAdapter } from './adapter.js';
import { btcDefinition } from './definition.js';

export { btcDefinition } from './definition.js';
export { createBtcAdapter } from './adapter.js';
export { deriveBtcAddress, parseBtcAccountKey } from './derive.js';
export { BtcWatcher } from './watcher.js';

export const btcChain = defineChain({ definition: btcDefinition, createAdapter: createBtcAdapter });
export default btcChain;
