import { createBip84Adapter } from '@gw/chain-btc';
import { defineChain } from '@gw/kernel';
import { ltcDefinition, ltcRegtestDefinition } from './definition.js';
import { litecoinParams } from './params.js';

export { ltcDefinition, ltcRegtestDefinition } from './definition.js';
export { litecoinParams } from './params.js';

/** ltc: Litecoin through the BTC adapter driven by Litecoin's parameters. Off unless `chains.enabled` lists it. */
export const ltcChain = defineChain({ definition: ltcDefinition, createAdapter: createBip84Adapter(litecoinParams), enabledByDefault: false });

/** ltc with regtest as the default testnet (`rltc1…`), for litecoind `-regtest` nodes and tests. */
export const ltcRegtestChain = defineChain({ definition: ltcRegtestDefinition, createAdapter: createBip84Adapter(litecoinParams), enabledByDefault: false });

export default ltcChain;
