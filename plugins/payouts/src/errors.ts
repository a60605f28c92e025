import { defineErrors, IDEMPOTENCY_KEY_REUSED } from '@gw/kernel';
import { RATE_QUOTE_UNAVAILABLE } from '@gw/plugin-rates/contract';
import { INSUFFICIENT_SCOPE } from '@gw/plugin-tenancy/contract';

/** Errors of the payouts plugin (issue 37: refunds and payouts). */
export const payoutsErrors = defineErrors('payouts', {
  refund_not_found: { status: 404, message: 'No such refund in this project.' },
  payout_not_found: { status: 404, message: 'No such payout in this project.' },
  refund_not_refundable: { status: 422, message: 'The invoice has received nothing that can be refunded (nothing received, or it still waits for money).' },
  refund_exceeds_received: { status: 422, message: 'The refunds of this invoice would exceed what it received.' },
  claim_not_found: { status: 404, message: 'No refund has this claim link.' },
  claim_already_made: { status: 409, message: 'This refund has already been claimed.' },
  claim_closed: { status: 409, message: 'This refund can no longer be claimed: it has been approved or cancelled.' },
  claim_address_invalid: { status: 422, message: "The address is not a valid address of the refund's coin and network." },
  claim_address_mismatch: { status: 422, message: 'The address and its confirmation differ.' },
  claim_proof_required: { status: 422, message: 'This refund needs a signature of the claim message by the address.' },
  claim_proof_invalid: { status: 422, message: 'The signature does not prove control of the address for the claim message.' },
  payout_address_invalid: { status: 422, message: "An address is not a valid address of its coin's network." },
  payout_reference_conflict: { status: 409, message: 'A payout with this reference exists with a different address, coin or amount.' },
  idempotency_key_reused: IDEMPOTENCY_KEY_REUSED,
  item_not_cancellable: { status: 409, message: 'The item can no longer be cancelled.' },
  item_not_approvable: { status: 409, message: 'The item does not wait for an approval.' },
  approval_forbidden: { status: 403, message: 'Only an administrator (dashboard or operator CLI) can approve refunds and payouts.' },
  approval_already_given: { status: 409, message: 'This administrator has already approved the item.' },
  batch_empty: { status: 422, message: 'No approved item matches the batch.' },
  item_transition_invalid: { status: 409, message: "The item's status does not allow this change." },
  coin_not_enabled: { status: 422, message: 'The coin is not enabled for this project.' },
  rate_quote_unavailable: RATE_QUOTE_UNAVAILABLE,
  insufficient_scope: INSUFFICIENT_SCOPE,
});
