import { defineErrors } from '@gw/kernel';
import { RATE_QUOTE_UNAVAILABLE } from '@gw/plugin-rates/contract';

/** Errors of the sandbox API (spec 4.5 and section 7). */
export const sandboxErrors = defineErrors('sandbox', {
  sandbox_invoice_not_found: { status: 404, message: 'No such invoice in this sandbox project.' },
  sandbox_invoice_transition_invalid: { status: 422, message: "The invoice's status does not permit this simulation." },
  sandbox_invoice_terminal: { status: 422, message: 'The invoice has no terminal webhook event to deliver again yet.' },
  sandbox_active_invoice_cap_reached: {
    status: 422,
    message: 'The sandbox project has reached its cap of active invoices; reset the sandbox or finish some invoices.',
  },
  sandbox_rate_limit_exceeded: { status: 429, message: 'Sandbox rate limit exceeded; retry after the delay in Retry-After.', retryAfter: 1 },
  rate_quote_unavailable: RATE_QUOTE_UNAVAILABLE,
  sandbox_reset_failed: { status: 500, message: 'The sandbox reset failed; nothing was purged.' },
  sandbox_delete_failed: { status: 500, message: 'The sandbox deletion failed; nothing was deleted.' },
});
