import { html } from '@gw/kernel';
import { page, type PageResponse } from '@gw/plugin-dashboard/contract';

/** What the application receives at its redirect URL, as BTCPay Server posts it. */
export interface HandOver {
  /** The application's name, for the page. */
  readonly application: string;
  readonly redirect: string;
  readonly apiKey: string;
  /** The permissions granted, store-bound ones as `policy:<storeId>`. */
  readonly permissions: readonly string[];
  /** The approving user (BTCPay's `userId`). */
  readonly userId: string;
}

/**
 * The page after an approval with a redirect: a form that POSTs `apiKey`, `permissions[]` (once
 * per permission) and `userId` to the application's redirect URL, url-encoded, as BTCPay does. The
 * person sends it with a visible button (no script needed); the page's `form-action` allows the
 * redirect's origin. The form carries nothing of the dashboard (no CSRF token), and the key is not
 * otherwise shown.
 */
export function handOverPage(handOver: HandOver): PageResponse {
  const host = new URL(handOver.redirect).host;
  return {
    ...page(
      `Hand the key to ${handOver.application}`,
      html`<h1>Approved: hand the key to ${handOver.application}</h1>
<p>A key was created for <strong>${handOver.application}</strong>. Continue to send it to <code>${handOver.redirect}</code>; it is not shown here and cannot be shown again.</p>
<form method="post" action="${handOver.redirect}">
<input type="hidden" name="apiKey" value="${handOver.apiKey}">
${handOver.permissions.map((p) => html`<input type="hidden" name="permissions[]" value="${p}">`)}
<input type="hidden" name="userId" value="${handOver.userId}">
<button type="submit">Continue to ${host}</button>
</form>
<p class="note">If the application does not receive it, revoke the key on the <a href="/dashboard/btcpay-keys">BTCPay keys</a> page and start again from the application.</p>`,
      201,
    ),
    formAction: [handOver.redirect],
  };
}

/** The page after a denial: nothing was created; the way back to the application, when it gave one. */
export function deniedPage(application: string, redirect: string | null): PageResponse {
  return page(
    'Request denied',
    html`<h1>Request denied</h1>
<p>No key was created for <strong>${application}</strong>.</p>
${redirect ? html`<p><a href="${redirect}">Back to ${application}</a> (<code>${new URL(redirect).host}</code>), without a key.</p>` : html`<p><a href="/dashboard/btcpay-keys">Back to the BTCPay keys</a></p>`}`,
  );
}
