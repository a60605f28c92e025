import { defineErrors } from '@gw/kernel';

/**
 * Errors of the btcpay plugin (issue 39). Every error under the plugin's path prefix is rendered in
 * BTCPay's Greenfield shape by `error-format.ts` (`{ code, message }` with BTCPay's own kebab-case
 * code, or the `[{ path, message }]` list of a 422), whatever catalogue it comes from; the codes here
 * are the gateway's names for them (docs/errors.md), each mapped to BTCPay's code there.
 */
export const btcpayErrors = defineErrors('btcpay', {
  btcpay_unauthenticated: { status: 401, message: 'Authentication is required for accessing this endpoint.' },
  btcpay_missing_permission: { status: 403, message: 'Insufficient API permissions for this call: the key lacks the permission it needs.' },
  btcpay_store_not_found: { status: 404, message: 'The store was not found.' },
  btcpay_invoice_not_found: { status: 404, message: 'The invoice was not found.' },
  btcpay_webhook_not_found: { status: 404, message: 'The webhook was not found.' },
  btcpay_pull_payment_not_found: { status: 404, message: 'The pull payment was not found.' },
  btcpay_payment_method_not_found: { status: 404, message: 'The payment method was not found, or is not one this gateway supports.' },
  btcpay_api_key_not_found: { status: 404, message: 'The API key was not found.' },
  btcpay_validation_failed: { status: 422, message: 'The request is invalid.' },
  btcpay_invalid_state: { status: 422, message: 'The request is not possible in the current state of the resource.' },
  btcpay_not_supported: { status: 400, message: 'This gateway does not support this feature of the Greenfield API.' },
  btcpay_non_refundable: { status: 400, message: 'Cannot refund this invoice: it is not settled, or it received nothing that can be refunded.' },
  btcpay_payout_not_found: { status: 404, message: 'The payout was not found.' },
  btcpay_webhook_delivery_not_found: { status: 404, message: 'The webhook delivery was not found.' },
  btcpay_authorize_request_invalid: { status: 400, message: 'The API-key authorization request is invalid (a permission, the redirect or a parameter).' },
  btcpay_authorize_choice_invalid: { status: 400, message: 'The approval cannot be granted as chosen (the project or the permissions).' },
});
