import { defineChain } from '@gw/kernel';
import { createBtcAdapter } from './adapter.js';
import { btcDefinition } from './definition.js';

export { btcDefinition } from './definition.js';
export { createBip84Adapter, createBtcAdapter } from './adapter.js';
export { bitcoinParams, BIP32_VERSIONS, type Bip84Params } from './bip84-params.js';
export { verifyBip137 } from './bip137.js';
export { deriveBip84Address, deriveBtcAddress, parseBip84AccountKey, parseBtcAccountKey } from './derive.js';
export { BtcWatcher } from './watcher.js';

export const btcChain = defineChain({ definition: btcDefinition, createAdapter: createBtcAdapter });
export default btcChain;
