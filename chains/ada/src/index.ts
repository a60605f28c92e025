import { defineChain } from '@gw/chain-api';
import { createAdaAdapter } from './adapter.js';
import { adaDefinition } from './definition.js';

export { adaDefinition } from './definition.js';
export { createAdaAdapter } from './adapter.js';
export { parseDataSignature, sigStructure, type AdaDataSignature, type ParsedDataSignature } from './cip30-data-signature.js';
export { deriveAdaAddress, parseAdaAccountKey } from './derive.js';
export { AdaWatcher } from './watcher.js';
export { normaliseAdaAddress } from './address.js';

export const adaChain = defineChain({ definition: adaDefinition, createAdapter: createAdaAdapter });
export default adaChain;
