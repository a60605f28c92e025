import { defineErrors, IDEMPOTENCY_KEY_REUSED } from '@gw/kernel';
import { RATE_QUOTE_UNAVAILABLE } from '@gw/plugin-rates/contract';

/**
 * Errors of the sessions plugin (issue 38: checkout sessions and payment links). `amount_out_of_range`
 * has the invoices' meaning (a link's limits, or the bounds of an invoice); `coin_not_enabled` and
 * `wallet_not_bound` of a pick come from the invoices and wallets catalogues.
 */
export const sessionsErrors = defineErrors('sessions', {
  checkout_session_not_found: { status: 404, message: 'No such checkout session in this project.' },
  payment_link_not_found: { status: 404, message: 'No such payment link in this project.' },
  checkout_session_closed: { status: 409, message: 'The checkout session is no longer open: it is completed or expired.' },
  checkout_session_payment_in_progress: {
    status: 409,
    message: 'A payment to the current invoice of the checkout session has been seen: the coin can no longer be switched, nor the session ended.',
  },
  coin_not_allowed: { status: 422, message: 'The coin is not one the payer may pick for this checkout session or payment link.' },
  payment_link_inactive: { status: 409, message: 'The payment link has been deactivated.' },
  payment_link_used_up: { status: 409, message: 'The payment link has been paid as many times as it allows.' },
  amount_out_of_range: { status: 422, message: 'The amount is outside the range allowed.' },
  idempotency_key_reused: IDEMPOTENCY_KEY_REUSED,
  rate_quote_unavailable: RATE_QUOTE_UNAVAILABLE,
});
