import { createBip84Adapter } from '@gw/chain-btc';
import { defineChain } from '@gw/chain-api';
import { ltcDefinition } from './definition.js';
import { litecoinParams } from './params.js';

export { ltcDefinition } from './definition.js';
export { litecoinParams } from './params.js';

/** ltc: Litecoin through the BTC adapter driven by Litecoin's parameters. Off unless `chains.enabled` lists it. */
export const ltcChain = defineChain({ definition: ltcDefinition, createAdapter: createBip84Adapter(litecoinParams), enabledByDefault: false });

export default ltcChain;
