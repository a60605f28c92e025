import { CHAIN_ERROR_SPECS, defineErrors } from '@gw/chain-api';

/**
 * Errors owned by the kernel: generic request failures, REST authentication (spec 5.1 and 7),
 * project-kind guards, subscription, rate limiting, and the chain-key errors of the ChainAdapter
 * contract.
 */
export const coreErrors = defineErrors('kernel', {
  validation_error: CHAIN_ERROR_SPECS.validation_error,
  not_found: { status: 404, message: 'No such route.' },
  method_not_allowed: { status: 405, message: 'Method not allowed on this route.' },
  payload_too_large: { status: 413, message: 'The request body is larger than the configured limit.' },
  unsupported_media_type: { status: 415, message: 'Request bodies must be application/json.' },
  internal_error: { status: 500, message: 'An unexpected error occurred.' },
  service_unavailable: { status: 503, message: 'The service is shutting down or not ready.', retryAfter: 1 },
  chain_provider_unavailable: { status: 503, message: 'No configured provider of the chain answered; retry after the delay in Retry-After.', retryAfter: 30 },
  stored_secret_unreadable: {
    status: 503,
    message:
      "The server cannot open this credential's stored secret (its master key differs from the one the secret was sealed under); the operator must restore the right master key.",
  },

  auth_invalid: { status: 401, message: 'Missing or malformed authentication headers, or unknown credentials.' },
  signature_invalid: { status: 401, message: 'The request signature does not match.' },
  timestamp_out_of_window: { status: 401, message: 'X-Timestamp is more than 300 seconds away from server time.' },
  key_revoked: { status: 403, message: 'This API key has been revoked.' },
  key_suspended: { status: 403, message: 'This API key is suspended.' },
  project_suspended: { status: 403, message: 'This project is suspended.' },
  permission_denied: { status: 403, message: 'The credential is not allowed to access this resource.' },
  subscription_expired: { status: 402, message: 'The operator subscription is not active; write operations are blocked.' },
  production_project_required: { status: 403, message: 'This endpoint serves production and testnet projects only; sandbox projects use /api/v1/sandbox.' },
  sandbox_project_required: { status: 403, message: 'This endpoint serves sandbox projects only.' },
  sandbox_key_against_production_project: { status: 400, message: 'A sandbox secret cannot be used against a production or testnet project.' },
  production_key_against_sandbox_project: { status: 400, message: 'A production or testnet secret cannot be used against a sandbox project.' },

  rate_limit_exceeded: { status: 429, message: 'Rate limit exceeded; retry after the delay in Retry-After.', retryAfter: 1 },

  // The ChainAdapter contract's errors, declared with the contract in @gw/chain-api (chainErrors).
  invalid_xpub_format: CHAIN_ERROR_SPECS.invalid_xpub_format,
  wallet_kind_mismatch: CHAIN_ERROR_SPECS.wallet_kind_mismatch,
  invalid_coin: CHAIN_ERROR_SPECS.invalid_coin,
});
