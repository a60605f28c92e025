import { defineChain } from '@gw/kernel';
import { createAdaAdapter } from './adapter.js';
import { adaDefinition } from './definition.js';

export { adaDefinition } from './definition.js';
export { createAdaAdapter, sigStructure, type AdaDataSignature } from './adapter.js';
export { deriveAdaAddress, parseAdaAccountKey } from './derive.js';
export { decodeCbor, encodeCbor } from './cbor.js';
export { AdaWatcher } from './watcher.js';
export { normaliseAdaAddress } from './address.js';

export const adaChain = defineChain({ definition: adaDefinition, createAdapter: createAdaAdapter });
export default adaChain;
