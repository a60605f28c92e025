import { createEvmAdapter } from '@gw/chain-evm';
import { defineChain } from '@gw/chain-api';
import { polygonDefinition } from './definition.js';

export { polygonDefinition } from './definition.js';

/** polygon: definition only; behaviour comes from the shared EVM adapter. */
export const polygonChain = defineChain({ definition: polygonDefinition, createAdapter: createEvmAdapter });
export default polygonChain;
