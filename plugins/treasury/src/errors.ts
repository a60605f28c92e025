import { defineErrors, TREASURY_CHAIN_ERROR_SPECS } from '@gw/kernel';
import { INSUFFICIENT_SCOPE } from '@gw/plugin-tenancy/contract';

/**
 * Errors of the treasury plugin (issue 35). It owns the chain treasuries' errors too
 * (`TREASURY_CHAIN_ERROR_SPECS`, thrown by chain packages from `@gw/chain-api`), so the API
 * answer and docs/errors.md carry them.
 */
export const treasuryErrors = defineErrors('treasury', {
  ...TREASURY_CHAIN_ERROR_SPECS,
  treasury_plan_not_found: { status: 404, message: 'No treasury plan with that id.' },
  treasury_unavailable: {
    status: 422,
    message: 'The chain or network is not enabled, not watched, or its adapter has no treasury: nothing can be planned on it.',
  },
  treasury_nothing_to_move: { status: 422, message: 'No output matched the selection, or every one is worth less than spending it costs.' },
  treasury_outputs_planned: { status: 409, message: 'An output is already in another open plan; nothing was planned.' },
  treasury_output_spent: { status: 422, message: 'An output of the selection is already spent.' },
  treasury_output_unconfirmed: { status: 422, message: 'An output of the selection is not confirmed yet.' },
  treasury_output_unknown: { status: 404, message: 'No received output with that transaction and index on this network.' },
  treasury_fee_above_ceiling: { status: 422, message: 'The fee rate is above the operator’s ceiling for this chain and network.' },
  treasury_previous_transaction_missing: {
    status: 503,
    message: 'The provider does not have a transaction that made one of the outputs; the plan needs it (PSBT nonWitnessUtxo).',
    retryAfter: 30,
  },
  treasury_fee_rate_unavailable: { status: 503, message: 'No fee rate: the provider gave no estimate and none is configured.' },
  treasury_plan_not_signable: { status: 409, message: 'The plan does not take a signed transaction in its status.' },
  treasury_plan_already_signed: { status: 409, message: 'The plan already has a different signed transaction.' },
  treasury_plan_not_broadcastable: { status: 409, message: 'Only a signed plan can be broadcast.' },
  treasury_plan_not_bumpable: { status: 409, message: 'Only a broadcast, unconfirmed sweep can be bumped.' },
  treasury_plan_not_cancellable: { status: 409, message: 'Only a plan that was not broadcast can be cancelled.' },
  treasury_bump_fee_too_low: { status: 422, message: 'A replacement must pay more than the transaction it replaces (BIP 125).' },
  treasury_not_accelerable: { status: 422, message: 'Only an unconfirmed payment to a pool address can be accelerated.' },
  treasury_signed_other_plan: { status: 422, message: 'The signed file belongs to another plan, chain or network.' },
  treasury_hot_wallet_refused: {
    status: 422,
    message: 'The hot gas wallet signs only a planned top-up or sweep submission of a plan, from the configured gas address; this is not one.',
  },
  treasury_hot_wallet_cap_exceeded: {
    status: 422,
    message: 'Signing this would take the hot gas wallet over its cap per transaction or per day; nothing was signed.',
  },
  insufficient_scope: INSUFFICIENT_SCOPE,
});
