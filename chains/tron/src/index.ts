import { defineChain } from '@gw/kernel';
import { createTronAdapter } from './adapter.js';
import { tronDefinition } from './definition.js';

export { tronDefinition } from './definition.js';
export { createTronAdapter, tronMessageHash } from './adapter.js';
export { deriveTronAddress, isTronAddress, tronAddressFromHex } from './derive.js';

export const tronChain = defineChain({ definition: tronDefinition, createAdapter: createTronAdapter });
export default tronChain;
