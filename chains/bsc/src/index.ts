import { createEvmAdapter } from '@gw/chain-evm';
import { defineChain } from '@gw/chain-api';
import { bscDefinition } from './definition.js';

export { bscDefinition } from './definition.js';

/** bsc: definition only; behaviour comes from the shared EVM adapter. */
export const bscChain = defineChain({ definition: bscDefinition, createAdapter: createEvmAdapter });
export default bscChain;
