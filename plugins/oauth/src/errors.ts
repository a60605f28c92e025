import { defineErrors } from '@gw/kernel';

/**
 * Errors of the OAuth plugin. The token, registration and revocation endpoints answer in the RFC
 * 6749 / 7591 shape (`error`, `error_description`, plus `error_code` and `request_id` like every
 * other error); the codes are catalogued here so docs/errors.md lists them.
 */
export const oauthErrors = defineErrors('oauth', {
  invalid_request: { status: 400, message: 'The OAuth request is missing a parameter, repeats one or has a malformed value.' },
  invalid_client: { status: 401, message: 'Unknown client, or its authentication failed.' },
  invalid_grant: {
    status: 400,
    message: 'The authorization code or refresh token is invalid, expired, revoked, already used, or was issued to another client or redirect URI.',
  },
  unauthorized_client: { status: 400, message: 'The client is not registered for this grant type.' },
  unsupported_grant_type: { status: 400, message: 'grant_type must be authorization_code or refresh_token.' },
  unsupported_response_type: { status: 400, message: 'response_type must be code.' },
  invalid_scope: { status: 400, message: 'OAuth grants only projects:read, invoices:read, transactions:read and webhooks:read.' },
  invalid_target: { status: 400, message: 'The resource parameter is missing, not the canonical MCP resource, or differs from the authorization request.' },
  invalid_redirect_uri: {
    status: 400,
    message: 'Redirect URIs must be loopback http (127.0.0.1, localhost, [::1]) or https, without fragment, and match a registered one exactly.',
  },
  invalid_client_metadata: { status: 400, message: 'The client metadata is invalid.' },
  invalid_token: { status: 401, message: 'The access token is unknown, revoked, expired, or its lineage was revoked.' },
  oauth_app_not_found: { status: 404, message: 'The user has no consent or tokens for this client.' },
  server_error: { status: 500, message: "An unexpected error occurred at an OAuth endpoint (RFC 6749 shape of the kernel's internal_error)." },
  temporarily_unavailable: { status: 503, message: "The gateway is shutting down or not ready (RFC 6749 shape of the kernel's service_unavailable)." },
});
