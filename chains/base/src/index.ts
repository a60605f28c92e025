import { createEvmAdapter } from '@gw/chain-evm';
import { defineChain } from '@gw/chain-api';
import { baseDefinition } from './definition.js';

export { baseDefinition } from './definition.js';

/** base: definition only; behaviour comes from the shared EVM adapter. Off unless `chains.enabled` lists it. */
export const baseChain = defineChain({ definition: baseDefinition, createAdapter: createEvmAdapter, enabledByDefault: false });
export default baseChain;
