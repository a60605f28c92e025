import { html, ULID_PATTERN, type SafeHtml } from '@gw/kernel';
import {
  actionButton,
  badge,
  type DashboardRequest,
  definePage,
  type FilterField,
  filteredList,
  metadataBlock,
  page,
  type PageServices,
  redirect,
  table,
  when,
} from '@gw/plugin-dashboard/contract';
import { SESSION_STATUSES, type LineItem, type SessionStatus, type SessionView } from '../contract.js';

/** What the page reads (ADR 0011). */
export const CHECKOUT_SESSIONS_PAGE_DEPS = ['sessionsCheckout'] as const;
type Services = PageServices<typeof CHECKOUT_SESSIONS_PAGE_DEPS>;

/** The page of a project's checkout sessions. */
export const sessionsBase = (projectId: string) => `/dashboard/projects/${projectId}/checkout-sessions`;
const base = (req: DashboardRequest<Services>) => sessionsBase(req.project!.id);
const invoiceHref = (req: DashboardRequest<Services>, invoiceId: string) => `/dashboard/projects/${req.project!.id}/invoices/${invoiceId}`;

/** The filters of GET /api/v1/checkout-sessions. */
const SESSION_FILTERS: readonly FilterField[] = [
  { name: 'status', label: 'Status', choices: SESSION_STATUSES },
  { name: 'payment_link_id', label: 'Payment link', pattern: ULID_PATTERN, max: 26, placeholder: '01J…' },
  { name: 'external_id', label: 'External id', max: 128 },
];

/** A session's status: paid (`good`), waiting for the payer (`waiting`), or over unpaid (`ended`). */
export function sessionBadge(status: SessionStatus): SafeHtml {
  return badge(status, status === 'completed' ? 'good' : status === 'open' ? 'waiting' : 'ended');
}

/** The order lines of a session or payment link, one a line, priced in its currency; `—` for none. */
export function lineItemsText(items: readonly LineItem[], currency: string): SafeHtml | string {
  return items.length === 0 ? '—' : html`${items.map((l) => html`${l.quantity} × ${l.name} at ${l.unit_amount} ${currency}<br>`)}`;
}

function sessionFacts(req: DashboardRequest<Services>, s: SessionView): SafeHtml {
  return html`<dl class="facts">
<dt>Price</dt><dd>${s.price_amount} ${s.price_currency}</dd>
<dt>Coins offered</dt><dd>${s.allowed_coins.join(', ')}</dd>
<dt>Coin picked</dt><dd>${s.coin ?? 'none yet'}</dd>
<dt>Description</dt><dd>${s.description ?? '—'}</dd>
<dt>Line items</dt><dd>${lineItemsText(s.line_items, s.price_currency)}</dd>
<dt>External id</dt><dd>${s.external_id ?? '—'}</dd>
<dt>Payer’s e-mail</dt><dd>${s.customer_email ?? '—'}</dd>
<dt>Payment link</dt><dd>${s.payment_link_id ? html`<a href="/dashboard/projects/${req.project!.id}/payment-links/${s.payment_link_id}"><code>${s.payment_link_id}</code></a>` : '— (created over the API)'}</dd>
<dt>Payer’s page</dt><dd><a href="${s.url}"><code class="wrap">${s.url}</code></a></dd>
<dt>Receipt</dt><dd>${s.receipt_url ? html`<a href="${s.receipt_url}"><code class="wrap">${s.receipt_url}</code></a>` : '—'}</dd>
<dt>Return URL</dt><dd>${s.return_url ? html`<code class="wrap">${s.return_url}</code>` : '—'}</dd>
<dt>Cancel URL</dt><dd>${s.cancel_url ? html`<code class="wrap">${s.cancel_url}</code>` : '—'}</dd>
<dt>Created</dt><dd>${when(s.created_at_iso)}</dd>
<dt>Expires</dt><dd>${when(s.expires_at_iso)}</dd>
<dt>Completed</dt><dd>${when(s.completed_at_iso)}</dd>
</dl>`;
}

/**
 * Checkout sessions of a project (issue 38): the list by status, payment link and external id; a
 * session's page with its invoices (one per coin the payer picked, late payments marked), each
 * linking to the invoice's page; "Expire" for an open session (administrators).
 */
export const checkoutSessionsPage = definePage<Services>({
  nav: { label: 'Checkout sessions', scope: 'project', path: '/checkout-sessions', order: 21.5 },
  cli: ['checkout-session list'],
  summary: 'Checkout sessions of the project by status, payment link or external id (newest first, cursor-paginated).',
  render: async (req) => {
    const listing = filteredList(req, base(req), SESSION_FILTERS);
    const { filters } = listing;
    const sessions = await req.services.sessionsCheckout.list({
      projectId: req.project!.id,
      ...listing.page,
      ...(filters['status'] ? { status: filters['status'] as SessionStatus } : {}),
      ...(filters['payment_link_id'] ? { paymentLinkId: filters['payment_link_id'] } : {}),
      ...(filters['external_id'] ? { externalId: filters['external_id'] } : {}),
    });
    return page(
      `Checkout sessions of ${req.project!.name}`,
      html`<h1>Checkout sessions</h1>
<p class="note">A session is a price the payer pays in a coin of their choice: the partner creates it over the API (<code>POST /api/v1/checkout-sessions</code>), or a payer opens a payment link. The coin picked becomes an ordinary invoice.</p>
${listing.table(
  'Checkout session filters',
  {
    caption: 'Checkout sessions, newest first',
    head: ['Session', 'Status', 'Price', 'Coin', 'Invoices', 'External id', 'Payment link', 'Created', 'Expires'],
    row: (s) => [
      html`<a href="${base(req)}/${s.id}"><code>${s.id}</code></a>`,
      sessionBadge(s.status),
      `${s.price_amount} ${s.price_currency}`,
      s.coin ?? '—',
      String(s.invoices.length),
      s.external_id ?? '—',
      s.payment_link_id ? html`<a href="/dashboard/projects/${req.project!.id}/payment-links/${s.payment_link_id}"><code>${s.payment_link_id}</code></a>` : '—',
      when(s.created_at_iso),
      when(s.expires_at_iso),
    ],
  },
  sessions.items,
  { filtered: 'No checkout session matches these filters.', none: 'No checkout sessions yet.' },
)}`,
    );
  },
  views: {
    '/:sessionId': {
      cli: ['checkout-session show'],
      summary: 'One checkout session: price, coins, the coin picked, its invoices (late payments marked) with links to them, receipt; expire.',
      render: async (req) => {
        const s = await req.services.sessionsCheckout.get(req.project!.id, req.params['sessionId']!);
        return page(
          `Checkout session ${s.id}`,
          html`<h1>Checkout session <code>${s.id}</code> ${sessionBadge(s.status)}</h1>
${sessionFacts(req, s)}
${
  s.status !== 'open'
    ? null
    : req.user.role === 'admin'
      ? html`<div class="actions">${actionButton(req, `${base(req)}/${s.id}/expire`, 'Expire', { danger: true, confirm: 'Expire this checkout session now? Its unpaid invoice is cancelled.' })}</div>`
      : html`<p class="note">You are a read-only member: expiring a session is for administrators.</p>`
}
<h2>Invoices</h2>
${table(
  'Invoices of the session, oldest first',
  ['Invoice', 'Coin', 'Amount', 'Status', 'Late payment', 'Created'],
  s.invoices.map((i) => [
    html`<a href="${invoiceHref(req, i.invoice_id)}"><code>${i.invoice_id}</code></a>${i.invoice_id === s.invoice_id ? html` <span class="note">(current)</span>` : null}`,
    i.coin,
    html`${i.amount_crypto} <span class="unit">${i.coin}</span>`,
    badge(i.status),
    i.late ? 'yes: paid after the payer switched coin or the session closed' : 'no',
    when(i.created_at_iso),
  ]),
  'No invoice yet: the payer has not picked a coin.',
)}
<h2>Metadata</h2>
${metadataBlock(s.metadata)}
<p><a href="${base(req)}">Back to the checkout sessions</a></p>`,
        );
      },
    },
  },
  actions: {
    '/:sessionId/expire': {
      cli: ['checkout-session expire'],
      summary: 'Expire an open checkout session now: its unpaid invoice is cancelled; event checkout_session.expired.',
      handle: async (req) => {
        const s = await req.services.sessionsCheckout.expire(req.project!.id, req.params['sessionId']!, req.actor);
        return redirect(`${base(req)}/${s.id}`, `The checkout session is ${s.status}.`);
      },
    },
  },
});
