import { defineErrors } from '@gw/kernel';

/**
 * Errors of the invoices plugin (spec section 7). `overlay_matching_mode_required_exact` belongs to
 * the address pool's catalogue and is thrown from here; `wallet_not_bound` comes from wallets.
 */
export const invoicesErrors = defineErrors('invoices', {
  invoice_not_found: { status: 404, message: 'No such invoice in this project.' },
  invoice_not_cancellable: { status: 409, message: 'Only pending or detected invoices can be cancelled.' },
  invalid_state_transition: { status: 409, message: 'The invoice status does not allow this change.' },
  external_id_conflict: { status: 409, message: 'This external_id is already used by an invoice created with different parameters.' },
  coin_not_enabled: { status: 422, message: 'The coin is not enabled for this project.' },
  amount_out_of_range: { status: 422, message: 'The amount is outside the range this coin can be invoiced in.' },
});
