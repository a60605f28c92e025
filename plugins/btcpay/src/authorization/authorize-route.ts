import { html, isAppError, pageHeaders, withDeps, type AppError, type RouteDefinition, type RouteResult } from '@gw/kernel';
import { safeReturnPath, signInReturningTo } from '@gw/plugin-dashboard/contract';
import { btcpayErrors } from '../errors.js';
import { authorizeQuery, parseAuthorizeRequest } from './authorize-request.js';

/** The dashboard page where a signed-in person approves or denies an authorization request. */
export const APPROVAL_PATH = '/dashboard/btcpay-keys/authorize';

/**
 * `GET {prefix}/api-keys/authorize`, where BTCPay's client library (`ApiKey::getAuthorizeUrl`)
 * sends the operator's browser. The request is checked here, so a malformed one is answered at
 * once (a 400 page naming the problem, before any sign-in); a good one leads through the
 * dashboard's sign-in (at once when signed in) to the approval page, carrying the request in its
 * one canonical form. Nothing is stored: the approval page reads the request again.
 */
export const authorizeRoutes = withDeps(['btcpayConfig', 'kernelConfig'], ({ btcpayConfig, kernelConfig }): RouteDefinition[] => [
  {
    method: 'GET',
    path: `${btcpayConfig.pathPrefix}/api-keys/authorize`,
    summary: 'BTCPay API-key authorization: leads the browser through the dashboard sign-in to the approval page.',
    tags: ['btcpay'],
    hidden: true,
    auth: 'none',
    handler: async ({ ctx, requestId }) => {
      if (kernelConfig.plugins['dashboard']?.['enabled'] === false)
        return problemPage(
          btcpayErrors.btcpay_not_supported({
            message: 'Approving an API key needs the operator dashboard, which is turned off on this gateway (plugins.dashboard.enabled).',
          }),
          requestId,
          404,
        );
      try {
        const request = parseAuthorizeRequest(new URLSearchParams(ctx.querystring));
        const path = `${APPROVAL_PATH}?${authorizeQuery(request)}`;
        if (safeReturnPath(path) !== path) throw btcpayErrors.btcpay_authorize_request_invalid({ message: 'The request is too long to be approved.' });
        return { status: 303, headers: { Location: signInReturningTo(path), 'Cache-Control': 'no-store' }, body: '' };
      } catch (error) {
        if (isAppError(error) && error.status < 500) return problemPage(error, requestId);
        throw error;
      }
    },
  },
]);

/** A page saying why the request cannot be used (a person reads it in the browser the application opened). */
function problemPage(error: AppError, requestId: string, status = error.status): RouteResult {
  const body = html`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>This request for an API key cannot be used</title></head>
<body><main>
<h1>This request for an API key cannot be used</h1>
<p role="alert">${error.message}</p>
<p>No key was created. Tell the application's maker; the request it opened is not one this gateway takes.</p>
<p>Error code <code>${error.code}</code>, request <code>${requestId}</code>.</p>
</main></body>
</html>
`;
  return { status, headers: pageHeaders(), body: body.text };
}
