/**
 * The error reasons a verification or settlement is refused with (`invalidReason`, `errorReason`,
 * the 402's `error`): the strings `@x402/evm` emits (kept identical to the Go SDK, which the
 * official clients and servers see), and the spec's generic codes where the reference has none.
 */
export const X402_REASONS = {
  /** `accepted.scheme` or the requirement's scheme is not `exact`. */
  scheme: 'invalid_exact_evm_scheme',
  /** The payload's network is not the requirement's. */
  networkMismatch: 'invalid_exact_evm_network_mismatch',
  /** A network this gateway does not settle on (spec code). */
  network: 'invalid_network',
  /** Unreadable payload or wrong x402Version (spec codes). */
  payload: 'invalid_payload',
  version: 'invalid_x402_version',
  /** The requirement is not one this gateway offered, or its offer expired (spec code). */
  requirements: 'invalid_payment_requirements',
  /** The signature does not recover to `from` (also: another asset, since the domain names the token). */
  signature: 'invalid_exact_evm_signature',
  /** `authorization.to` is not the requirement's `payTo`. */
  recipient: 'invalid_exact_evm_recipient_mismatch',
  /** `validBefore` has passed, or is within 6 s. */
  validBefore: 'invalid_exact_evm_payload_authorization_valid_before',
  /** `validAfter` lies in the future. */
  validAfter: 'invalid_exact_evm_payload_authorization_valid_after',
  /** `authorization.value` is not the requirement's amount. */
  value: 'invalid_exact_evm_payload_authorization_value_mismatch',
  /** The nonce was used on chain, or by a settlement this gateway recorded. */
  nonceUsed: 'invalid_exact_evm_nonce_already_used',
  /** The payer holds less than the amount. */
  balance: 'invalid_exact_evm_insufficient_balance',
  /** The submission would revert for another reason (`invalidMessage`: the node's reason). */
  simulation: 'invalid_exact_evm_transaction_simulation_failed',
  /** The mined settlement failed. */
  transactionFailed: 'invalid_exact_evm_transaction_failed',
  /** Sent, but not mined within the wait: `transaction` names it. */
  pending: 'settlement_pending',
  /** A refusal of the gateway's own (the gas wallet's cap, no gas payer): nothing was sent (spec code). */
  settle: 'unexpected_settle_error',
  verify: 'unexpected_verify_error',
} as const;

export type X402Reason = (typeof X402_REASONS)[keyof typeof X402_REASONS];
