import { defineChain } from '@gw/chain-api';
import { createBtcAdapter } from './adapter.js';
import { btcDefinition } from './definition.js';

export { btcDefinition } from './definition.js';
export { createBip84Adapter, createBtcAdapter } from './adapter.js';
export { bitcoinParams, type Bip84Params } from './bip84-params.js';
export { BtcWatcher } from './watcher.js';
export { BtcTreasury } from './treasury/btc-treasury.js';
export { RBF_SEQUENCE } from './treasury/build-plan.js';
export { P2WPKH_INPUT_VBYTES, dustThreshold, estimateVsize } from './treasury/transaction-size.js';

export const btcChain = defineChain({ definition: btcDefinition, createAdapter: createBtcAdapter });
export default btcChain;
