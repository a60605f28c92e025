import { defineErrors } from '../errors/define-errors.js';

/**
 * The errors a chain's treasury throws while building or verifying a transaction. Their owner is
 * the treasury plugin: its catalogue lists these same entries (so `docs/errors.md` and the API
 * answer carry them), and chain packages throw them from here without depending on the plugin.
 */
export const TREASURY_CHAIN_ERROR_SPECS = {
  treasury_dust_output: { status: 422, message: 'An output of the plan is below the chain’s dust limit.' },
  treasury_insufficient_value: { status: 422, message: 'The chosen outputs do not cover the amounts and the fee.' },
  treasury_input_holds_tokens: {
    status: 422,
    message: 'An input of the plan also holds native tokens, which the plan cannot carry: spend it from a wallet that shows tokens.',
  },
  treasury_wrong_network: { status: 422, message: 'The destination is not an address of this chain and network.' },
  treasury_signed_mismatch: {
    status: 422,
    message: 'The signed transaction is not the plan: an input, output, amount or the fee differs. Nothing was broadcast.',
  },
  treasury_signed_incomplete: { status: 422, message: 'The signed transaction lacks a valid signature for an input. Nothing was broadcast.' },
  treasury_signed_unreadable: { status: 400, message: 'The signed file could not be read as a signed transaction of this chain.' },
  treasury_broadcast_rejected: { status: 422, message: 'The provider refused the transaction.' },
  treasury_nonce_stale: {
    status: 409,
    message: 'An account of the plan sent another transaction since the plan was built: its nonce is stale. Nothing was broadcast; make a new plan.',
  },
  treasury_method_unavailable: { status: 422, message: 'The sweep method cannot move this coin on this network.' },
  treasury_operator_account_missing: {
    status: 422,
    message: 'The method needs an operator account (gas, funding or staking address) that is not configured for this network.',
  },
  treasury_providers_unsupported: {
    status: 422,
    message: 'None of the network’s providers speaks an API the treasury of this chain reads: configure one that does.',
  },
} as const;

export const treasuryChainErrors = defineErrors('treasury', TREASURY_CHAIN_ERROR_SPECS);
