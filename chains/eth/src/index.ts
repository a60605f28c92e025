import { createEvmAdapter } from '@gw/chain-evm';
import { defineChain } from '@gw/chain-api';
import { ethDefinition } from './definition.js';

export { ethDefinition } from './definition.js';

/** eth: definition only; behaviour comes from the shared EVM adapter. */
export const ethChain = defineChain({ definition: ethDefinition, createAdapter: createEvmAdapter });
export default ethChain;
