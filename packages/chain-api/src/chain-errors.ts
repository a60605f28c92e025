import { defineErrors } from './errors/define-errors.js';

/**
 * The errors of the ChainAdapter contract. Their owner is the kernel: its `coreErrors` catalogue
 * lists these same entries (so `docs/errors.md` and the API answer stay as they were), and chain
 * packages throw them from here without depending on the kernel.
 */
export const CHAIN_ERROR_SPECS = {
  validation_error: { status: 400, message: 'The request failed validation.' },
  invalid_xpub_format: { status: 400, message: 'The extended public key is malformed or of the wrong depth for this chain.' },
  wallet_kind_mismatch: { status: 422, message: 'The key belongs to a different network kind than the project.' },
  invalid_coin: { status: 400, message: 'Unknown coin.' },
} as const;

export const chainErrors = defineErrors('kernel', CHAIN_ERROR_SPECS);
