import { defineErrors } from '@gw/kernel';

/**
 * Errors of the address pool. The first four are spec section 7 codes:
 * `overlay_matching_mode_required_exact` is thrown by the caller (invoices) when an allocation came
 * back with `isOverlay` and the requested matching mode is not `exact`.
 */
export const addressPoolErrors = defineErrors('address-pool', {
  pool_exhausted: { status: 503, message: 'No deposit address is available for this chain right now; retry after the delay in Retry-After.', retryAfter: 30 },
  tron_no_activated_addresses_available: {
    status: 422,
    message:
      'The TRON address pool has no activated address: activate its addresses (an activation plan, or TRX sent to them; the watchers mark them once they exist on chain).',
  },
  overlay_matching_mode_required_exact: {
    status: 422,
    message: 'The address pool is saturated and the deposit address is shared; only matching_mode "exact" is accepted.',
  },
  pool_address_not_found: { status: 404, message: 'No such address in the pool of this project and chain.' },
  activation_not_required: { status: 400, message: 'Addresses of this chain need no activation.' },
});
