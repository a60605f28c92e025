import { defineChain } from '@gw/chain-api';
import { createAdaAdapter } from './adapter.js';
import { adaDefinition } from './definition.js';

export { adaDefinition } from './definition.js';
export { createAdaAdapter } from './adapter.js';
export { parseDataSignature, sigStructure, type AdaDataSignature, type ParsedDataSignature } from './cip30-data-signature.js';
export { deriveAdaAddress, parseAdaAccountKey, paymentKeyPath } from './derive.js';
export { AdaWatcher } from './watcher.js';
export { AdaTreasury, INPUT_WITH_WITNESS_BYTES } from './treasury/ada-treasury.js';
export { TTL_MARGIN_SLOTS } from './treasury/build-transaction.js';
export type { LedgerSnapshot } from './treasury/ledger-snapshot.js';
export { normaliseAdaAddress } from './address.js';

export const adaChain = defineChain({ definition: adaDefinition, createAdapter: createAdaAdapter });
export default adaChain;
