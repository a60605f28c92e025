import { coreErrors, html, randomBase62, type CoinId, type SafeHtml } from '@gw/kernel';
import {
  actionButton,
  badge,
  csrfField,
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
import type { CreateLinkInput, PaymentLinkView } from '../contract.js';
import { TEXT_LIMITS } from '../services/order.js';
import { lineItemsText, sessionBadge, sessionsBase } from './checkout-sessions-page.js';

/** What the page reads (ADR 0011). */
export const PAYMENT_LINKS_PAGE_DEPS = ['ratesService', 'sessionsCoins', 'sessionsLinks', 'sessionsCheckout'] as const;
type Services = PageServices<typeof PAYMENT_LINKS_PAGE_DEPS>;

const base = (req: DashboardRequest<Services>) => `/dashboard/projects/${req.project!.id}/payment-links`;
const DECIMAL = /^[0-9]{1,30}(\.[0-9]{1,36})?$/;
/** The sessions of a link shown on its page; the checkout sessions page filters and pages through all of them. */
const SESSIONS_SHOWN = 20;
const COIN_FIELD = 'coin_';
/** The hidden field that makes a double-sent form one link: it is the create's idempotency key. */
const REQUEST_KEY = 'request_key';

const LINK_FILTERS: readonly FilterField[] = [
  {
    name: 'active',
    label: 'State',
    choices: ['yes', 'no'],
    labels: new Map([
      ['yes', 'active'],
      ['no', 'deactivated'],
    ]),
  },
];

/** A link's price: fixed, or the range the payer enters an amount in. */
export function linkPrice(link: Pick<PaymentLinkView, 'price_currency' | 'price_amount' | 'min_amount' | 'max_amount'>): string {
  return link.price_amount !== null
    ? `${link.price_amount} ${link.price_currency}`
    : `${link.min_amount ?? '?'} to ${link.max_amount ?? '?'} ${link.price_currency} (the payer enters the amount)`;
}

/** `uses / max`, or `uses` when unlimited. */
export const linkUses = (link: Pick<PaymentLinkView, 'uses' | 'max_uses'>): string =>
  link.max_uses === null ? `${link.uses}` : `${link.uses} / ${link.max_uses}`;

export const linkBadge = (link: Pick<PaymentLinkView, 'active'>): SafeHtml => (link.active ? badge('active', 'good') : badge('deactivated', 'ended'));

/**
 * The QR code's path on this gateway: the dashboard shows it from its own origin (its Content
 * Security Policy allows images of the page's origin only, and `qr_url` starts with the public base URL).
 */
const qrPath = (link: PaymentLinkView): string => new URL(link.qr_url).pathname;

function linkRow(req: DashboardRequest<Services>, link: PaymentLinkView): (SafeHtml | string)[] {
  return [
    html`<a href="${base(req)}/${link.id}"><code>${link.id}</code></a>`,
    link.description ?? '—',
    linkPrice(link),
    link.allowed_coins.join(', '),
    linkUses(link),
    linkBadge(link),
    html`<a href="${link.url}"><code class="wrap">${link.url}</code></a>`,
    when(link.created_at_iso),
    req.user.role === 'admin' && link.active
      ? actionButton(req, `${base(req)}/${link.id}/deactivate`, 'Deactivate', {
          danger: true,
          confirm: 'Deactivate this payment link? Its URL will open no new session.',
        })
      : '—',
  ];
}

function createForm(req: DashboardRequest<Services>, coins: readonly CoinId[]): SafeHtml {
  return html`<h2>Create payment link</h2>
<p class="note">A reusable URL (and its QR code) to put on a page, in a chat or on paper: each payer who opens it gets a checkout session of their own and picks the coin there. Give a fixed price, or the limits of the amount the payer enters.</p>
<form method="post" action="${base(req)}">${csrfField(req)}<input type="hidden" name="${REQUEST_KEY}" value="${randomBase62(22)}">
<label for="pl-currency">Price currency (ISO 4217 such as EUR, or a coin id such as btc)</label>
<input id="pl-currency" name="price_currency" required maxlength="40" list="pl-currencies" value="USD" autocomplete="off">
<datalist id="pl-currencies">${req.services.ratesService.fiatCurrencies.map((c) => html`<option value="${c}"></option>`)}${coins.map((c) => html`<option value="${c}"></option>`)}</datalist>
<label for="pl-amount">Fixed price (empty: the payer enters the amount)</label><input id="pl-amount" name="price_amount" inputmode="decimal" maxlength="68">
<label for="pl-min">Smallest amount the payer may enter</label><input id="pl-min" name="min_amount" inputmode="decimal" maxlength="68">
<label for="pl-max">Largest amount the payer may enter</label><input id="pl-max" name="max_amount" inputmode="decimal" maxlength="68">
<fieldset><legend>Coins the payer may pick (none checked: every coin the project has a verified wallet for)</legend>
${coins.length === 0 ? html`<p class="note">This project has no verified wallet yet: bind one under Wallets first.</p>` : coins.map((c) => html`<label class="choice"><input type="checkbox" name="${COIN_FIELD}${c}"> ${c}</label>`)}
</fieldset>
<label for="pl-description">Description (shown to the payer and on the receipt)</label><input id="pl-description" name="description" maxlength="${TEXT_LIMITS.description}">
<label for="pl-uses">Maximum uses (paid sessions; empty: unlimited)</label><input id="pl-uses" name="max_uses" inputmode="numeric" pattern="[0-9]*" maxlength="9">
<label for="pl-return">Return URL after payment (optional, https)</label><input id="pl-return" name="return_url" type="url" maxlength="2048">
<label class="choice"><input type="checkbox" name="ask_email" checked> Ask the payer for an e-mail address for the receipt</label>
<button type="submit">Create payment link</button></form>`;
}

/**
 * Payment links of a project (issue 38): the list with uses and state, "Create payment link" and
 * deactivation for administrators, and a link's page with its URL, QR code and sessions.
 */
export const paymentLinksPage = definePage<Services>({
  nav: { label: 'Payment links', scope: 'project', path: '/payment-links', order: 21 },
  cli: ['payment-link list'],
  summary: 'Payment links of the project with their uses and state; create one (fixed price or an amount within limits), deactivate.',
  render: async (req) => {
    const listing = filteredList(req, base(req), LINK_FILTERS);
    const active = listing.filters['active'];
    const [links, coins] = await Promise.all([
      req.services.sessionsLinks.list({ projectId: req.project!.id, ...listing.page, ...(active ? { active: active === 'yes' } : {}) }),
      req.user.role === 'admin' ? req.services.sessionsCoins.of(req.project!) : Promise.resolve([]),
    ]);
    return page(
      `Payment links of ${req.project!.name}`,
      html`<h1>Payment links</h1>
<p class="note">Also with <code>gateway payment-link create</code>, the API (<code>POST /api/v1/payment-links</code>) and the MCP tool <code>create_payment_link</code>.</p>
${listing.table(
  'Payment link filters',
  {
    caption: 'Payment links, newest first',
    head: ['Link', 'Description', 'Price', 'Coins', 'Uses', 'State', 'URL', 'Created', 'Actions'],
    row: (l) => linkRow(req, l),
  },
  links.items,
  { filtered: 'No payment link matches this filter.', none: 'No payment links yet.' },
)}
${req.user.role === 'admin' ? createForm(req, coins) : html`<p class="note">You are a read-only member: creating and deactivating links is for administrators.</p>`}`,
    );
  },
  views: {
    '/:linkId': {
      cli: ['payment-link show'],
      summary: 'One payment link: price or limits, coins, uses, its URL and QR code, the sessions opened from it; deactivate.',
      render: async (req) => {
        const link = await req.services.sessionsLinks.get(req.project!.id, req.params['linkId']!);
        const sessions = await req.services.sessionsCheckout.list({ projectId: req.project!.id, paymentLinkId: link.id, limit: SESSIONS_SHOWN });
        const sessionsBaseUrl = sessionsBase(req.project!.id);
        return page(
          `Payment link ${link.id}`,
          html`<h1>Payment link <code>${link.id}</code> ${linkBadge(link)}</h1>
<div class="copyable"><label for="link-url">URL</label><input id="link-url" class="mono" readonly value="${link.url}"><button type="button" class="copy" data-copy="link-url">Copy</button></div>
<p><img src="${qrPath(link)}" width="200" height="200" alt="QR code of the payment link ${link.url}"></p>
<p><a href="${qrPath(link)}" download="payment-link-${link.id}.svg">Download the QR code (SVG)</a></p>
<dl class="facts">
<dt>Description</dt><dd>${link.description ?? '—'}</dd>
<dt>Price</dt><dd>${linkPrice(link)}</dd>
<dt>Coins</dt><dd>${link.allowed_coins.join(', ')}</dd>
<dt>Uses</dt><dd>${linkUses(link)}${link.max_uses === null ? ' (no limit)' : ''}</dd>
<dt>Asks for an e-mail address</dt><dd>${link.ask_email ? 'yes' : 'no'}</dd>
<dt>Return URL</dt><dd>${link.return_url ? html`<code class="wrap">${link.return_url}</code>` : '—'}</dd>
<dt>Line items</dt><dd>${lineItemsText(link.line_items, link.price_currency)}</dd>
<dt>Created</dt><dd>${when(link.created_at_iso)}</dd>
<dt>Deactivated</dt><dd>${when(link.deactivated_at_iso)}</dd>
</dl>
${req.user.role === 'admin' && link.active ? html`<div class="actions">${actionButton(req, `${base(req)}/${link.id}/deactivate`, 'Deactivate', { danger: true, confirm: 'Deactivate this payment link? Its URL will open no new session.' })}</div>` : null}
<h2>Sessions opened from this link</h2>
${table(
  'Checkout sessions of the link, newest first',
  ['Session', 'Status', 'Price', 'Coin', 'E-mail', 'Created'],
  sessions.items.map((s) => [
    html`<a href="${sessionsBaseUrl}/${s.id}"><code>${s.id}</code></a>`,
    sessionBadge(s.status),
    `${s.price_amount} ${s.price_currency}`,
    s.coin ?? '—',
    s.customer_email ?? '—',
    when(s.created_at_iso),
  ]),
  'Nobody has opened this link yet.',
)}
${sessions.items.length >= SESSIONS_SHOWN ? html`<p><a href="${sessionsBaseUrl}?payment_link_id=${link.id}">Every session of this link</a></p>` : null}
<h2>Metadata</h2>
${metadataBlock(link.metadata)}
<p><a href="${base(req)}">Back to the payment links</a></p>`,
        );
      },
    },
  },
  actions: {
    '': {
      cli: ['payment-link create'],
      summary: 'Create a payment link: a fixed price or an amount within limits, the coins, a description, a limit on uses, whether to ask an e-mail.',
      handle: async (req) => {
        const f = req.form;
        const decimal = (name: string, label: string): string | undefined => {
          const value = f.optional(name, label, { max: 68 });
          if (value !== undefined && !DECIMAL.test(value))
            throw coreErrors.validation_error({ message: `${label} must be a decimal number such as 25 or 19.90.`, details: { field: name } });
          return value;
        };
        const amount = decimal('price_amount', 'Fixed price');
        const min = decimal('min_amount', 'Smallest amount');
        const max = decimal('max_amount', 'Largest amount');
        const maxUses = f.optional('max_uses', 'Maximum uses', { max: 9 });
        if (maxUses !== undefined && !/^[1-9][0-9]*$/.test(maxUses))
          throw coreErrors.validation_error({ message: 'Maximum uses must be a whole number from 1.', details: { field: 'max_uses' } });
        const coins = f.checkedMembers(COIN_FIELD, 'A coin');
        const description = f.optional('description', 'Description', { max: TEXT_LIMITS.description });
        const returnUrl = f.optional('return_url', 'Return URL', { max: 2048 });
        const input: CreateLinkInput = {
          price_currency: f.text('price_currency', 'Price currency', { max: 40 }),
          ...(amount ? { price_amount: amount } : {}),
          ...(min ? { min_amount: min } : {}),
          ...(max ? { max_amount: max } : {}),
          ...(coins.length > 0 ? { allowed_coins: coins as CoinId[] } : {}),
          ...(description ? { description } : {}),
          ...(maxUses ? { max_uses: Number(maxUses) } : {}),
          ask_email: f.checked('ask_email'),
          ...(returnUrl ? { return_url: returnUrl } : {}),
        };
        const key = f.optional(REQUEST_KEY, 'Request key', { max: 64 });
        const { link } = await req.services.sessionsLinks.create(
          { id: req.project!.id, kind: req.project!.kind },
          input,
          req.actor,
          key ? `dashboard-${key}` : undefined,
        );
        return redirect(`${base(req)}/${link.id}`, `Payment link created: ${link.url}`);
      },
    },
    '/:linkId/deactivate': {
      cli: ['payment-link deactivate'],
      summary: 'Deactivate a payment link: its URL opens no new session; sessions already open go on.',
      handle: async (req) => {
        const link = await req.services.sessionsLinks.deactivate(req.project!.id, req.params['linkId']!, req.actor);
        return redirect(`${base(req)}/${link.id}`, 'The payment link is deactivated: its URL opens no new session.');
      },
    },
  },
});
