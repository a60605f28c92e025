import { Readable } from 'node:stream';
import { type CoinId, coreErrors, html, ISO_8601_PATTERN, parseInstant, type SafeHtml } from '@gw/kernel';
import {
  CANCELLABLE_STATUSES,
  DECIMAL_PATTERN,
  NO_TOLERANCE,
  exportDocument,
  INVOICE_STATUSES,
  PAID_STATUSES,
  WAITING_STATUSES,
  type InvoiceStatus,
  type InvoiceView,
  type PaidValue,
} from '../contract.js';
import { INVOICE_PAGE_PARTS, type ContributedInvoicePagePart, type TimelineRow } from './invoice-page-parts.js';
import { AMOUNT_IN_COIN, DESCRIPTION_MAX, oneOffExternalId, oneOffInvoiceInput } from '../services/one-off-invoice.js';
import {
  actionButton,
  badge,
  type BadgeTone,
  csrfField,
  dashboardErrors,
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

/** What this page reads (ADR 0011): its plugin contributes it with `dashboardPages(INVOICES_PAGE_DEPS, [...])`. */
export const INVOICES_PAGE_DEPS = [
  'invoicesService',
  'invoicesActivity',
  'invoicesExporter',
  'invoicesPolicies',
  'tenancyProjects',
  'ratesService',
  'audit',
  'extensions',
] as const;
type Services = PageServices<typeof INVOICES_PAGE_DEPS>;

/** The filters of GET /api/v1/invoices, every one of them (spec 4.2). */
export const INVOICE_FILTERS: readonly FilterField[] = [
  { name: 'status', label: 'Status', choices: INVOICE_STATUSES },
  { name: 'external_id', label: 'External id', max: 128 },
  { name: 'address', label: 'Address', max: 200 },
  { name: 'tx_hash', label: 'Transaction hash', max: 200 },
  { name: 'amount', label: 'Amount (crypto)', pattern: DECIMAL_PATTERN, max: 100, placeholder: '0.015' },
  { name: 'date_from', label: 'Created from', pattern: ISO_8601_PATTERN, max: 40, placeholder: '2026-01-31' },
  { name: 'date_to', label: 'Created to', pattern: ISO_8601_PATTERN, max: 40, placeholder: '2026-02-28' },
];

const base = (req: DashboardRequest<Services>) => `/dashboard/projects/${req.project!.id}/invoices`;

/** The parts other plugins add for this project's kind (ADR 0011). */
const partsFor = (req: DashboardRequest<Services>): readonly ContributedInvoicePagePart[] =>
  req.services.extensions
    .of(INVOICE_PAGE_PARTS)
    .map((c) => c.item)
    .filter(({ part }) => part.kinds === undefined || part.kinds.includes(req.project!.kind));

/**
 * Invoices of a project: search with every filter of the REST list (cursor-paginated), an
 * invoice's page with transactions, confirmations and the timeline of its webhook events and audit
 * rows, cancel; for sandbox projects a button per simulation and the chain clock.
 */
export const invoicesPage = definePage<Services>({
  nav: { label: 'Invoices', scope: 'project', path: '/invoices', order: 20 },
  cli: ['invoice list'],
  summary: "Search the project's invoices with the REST list's filters (newest first, cursor-paginated).",
  render: async (req) => {
    const listing = filteredList(req, base(req), INVOICE_FILTERS);
    const { filters } = listing;
    const list = await req.services.invoicesService.list(req.project!.id, {
      ...filters,
      status: filters['status'] as InvoiceStatus | undefined,
      ...listing.page,
    });
    const paid = await req.services.invoicesActivity.paidValues(
      req.project!.id,
      list.items.filter((i) => i.amount_usd === null).map((i) => i.id),
    );
    return page(
      `Invoices of ${req.project!.name}`,
      html`<h1>Invoices</h1>
<p class="note">Project <strong>${req.project!.name}</strong> (${req.project!.kind}). Invoices are created by the partner's signed API (or one by one here); here they are searched, inspected${partsFor(req).flatMap(({ part }) => (part.verb ? [`, ${part.verb.participle}`] : []))} and cancelled.</p>
${req.user.role === 'admin' ? html`<p><a href="${base(req)}/new">Create invoice</a></p>` : null}
${listing.table(
  'Invoice filters',
  {
    caption: 'Invoices, newest first',
    head: ['Invoice', 'External id', 'Status', 'Amount', 'USD', 'Address', 'Created'],
    row: (i) => [
      html`<a href="${base(req)}/${i.id}"><code>${i.id}</code></a>`,
      i.external_id,
      statusBadge(i.status),
      html`${i.amount_crypto} <span class="unit">${i.coin}</span>`,
      usdCell(i, paid.get(i.id)),
      html`<code class="wrap">${i.address}</code>`,
      when(i.created_at_iso),
    ],
  },
  list.items,
  { filtered: 'No invoice matches these filters.', none: 'No invoices yet.' },
)}
<p><a href="${base(req)}/export">Export invoices (CSV or JSON)</a></p>`,
    );
  },
  views: {
    // Before '/:invoiceId', which would take "new" for an id.
    '/new': {
      cli: ['invoice create'],
      role: 'admin',
      summary: 'The form of a one-off invoice: coin, amount in USD, another fiat currency the rates price or the coin, external id, description.',
      render: async (req) => page(`Create an invoice for ${req.project!.name}`, await createForm(req)),
    },
    '/export': {
      cli: ['invoice export'],
      summary: "Download the project's invoices created in a range with their transactions (CSV or JSON, streamed), as the CLI's export.",
      render: async (req) => {
        const from = req.query.get('from');
        const to = req.query.get('to');
        if (!from || !to) {
          const today = new Date().toISOString().slice(0, 10);
          return page(
            `Export invoices of ${req.project!.name}`,
            html`<h1>Export invoices</h1>
<p>Invoices created in the range, with their transactions, for accounting: amounts as exact decimal strings, USD at creation and at payment (the same file as <code>pnpm gateway invoice export</code>).</p>
<form method="get" action="${base(req)}/export">
<label for="export-from">Created from (date or date-time, UTC)</label><input id="export-from" name="from" type="text" required maxlength="40" value="${today.slice(0, 8)}01">
<label for="export-to">Created to</label><input id="export-to" name="to" type="text" required maxlength="40" value="${today}">
<fieldset><legend>Format</legend>
<label class="choice"><input type="radio" name="format" value="csv" checked> CSV (one line per transaction)</label>
<label class="choice"><input type="radio" name="format" value="json"> JSON (an array of invoices)</label>
</fieldset>
<button type="submit">Download</button>
</form>`,
          );
        }
        const format = req.query.get('format') === 'json' ? 'json' : 'csv';
        if (!new RegExp(ISO_8601_PATTERN).test(from) || !new RegExp(ISO_8601_PATTERN).test(to))
          throw coreErrors.validation_error({ message: 'from and to must be ISO 8601 dates or date-times.', details: { field: 'query.from' } });
        const range = { projectId: req.project!.id, from: parseInstant(from, 'from', 'start'), to: parseInstant(to, 'to', 'end') };
        if (range.from > range.to) throw coreErrors.validation_error({ message: 'from is after to.', details: { field: 'query.from' } });
        const lines = exportDocument(req.services.invoicesExporter.invoices(range), format);
        return {
          kind: 'download',
          filename: `invoices-${req.project!.id}-${from.slice(0, 10)}-${to.slice(0, 10)}.${format}`,
          contentType: format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8',
          body: Readable.from(lines),
        };
      },
    },
    '/:invoiceId': {
      cli: ['invoice show'],
      summary: 'One invoice: amounts, transactions and confirmations, the timeline of its webhook events and audit rows; cancel and (sandbox) simulations.',
      render: async (req) => {
        const invoice = await req.services.invoicesService.get(req.project!.id, req.params['invoiceId']!);
        const parts = partsFor(req);
        const [audit, paid, rows, sections, shown] = await Promise.all([
          req.services.audit.list({ projectIds: [req.project!.id], target: `invoice:${invoice.id}`, limit: 100 }),
          req.services.invoicesActivity.paidValues(req.project!.id, [invoice.id]),
          Promise.all(parts.map(({ part, services: partServices }) => part.timeline?.({ ...req, services: partServices }, invoice) ?? [])),
          req.user.role === 'admin'
            ? Promise.all(
                parts.flatMap(({ part, services: partServices }) => (part.actions ? [part.actions({ ...req, services: partServices }, invoice)] : [])),
              )
            : [],
          Promise.all(parts.flatMap(({ part, services: partServices }) => (part.section ? [part.section({ ...req, services: partServices }, invoice)] : []))),
        ]);
        return page(
          `Invoice ${invoice.external_id}`,
          html`<h1>Invoice <code>${invoice.external_id}</code></h1>
${invoiceFacts(invoice, paid.get(invoice.id))}
${req.user.role === 'admin' ? actions(req, invoice, sections) : html`<p class="note">You are a read-only member: cancelling${parts.flatMap(({ part }) => (part.verb ? [` and ${part.verb.gerund}`] : []))} is for administrators.</p>`}
<h2>Transactions</h2>
${table(
  'Transactions of the invoice',
  ['Transaction', 'Output', 'Amount', 'Confirmations', 'Block', 'Status', 'Seen'],
  invoice.transactions.map((tx) => [
    html`<code class="wrap">${tx.tx_hash}</code>`,
    tx.output_index,
    tx.amount_crypto,
    `${tx.confirmations} of ${invoice.confirmation_threshold}`,
    tx.block_height === null ? '—' : String(tx.block_height),
    badge(tx.status),
    when(tx.detected_at_iso),
  ]),
  'No payment seen yet.',
)}
${shown}
<h2>Timeline</h2>
${timeline(invoice, rows.flat(), audit.items)}
<h2>Metadata</h2>
${metadataBlock(invoice.metadata)}
<p><a href="${base(req)}">Back to the invoices</a></p>`,
        );
      },
    },
  },
  actions: {
    '/new': {
      cli: ['invoice create'],
      summary: 'Create a one-off invoice as the user (the same rules as the API); shows it with its checkout link.',
      handle: async (req) => {
        const project = await req.services.tenancyProjects.principal(req.project!.id);
        if (!project) throw dashboardErrors.invalid_form({ message: 'The project is gone.' });
        const input = oneOffInvoiceInput({
          coin: req.form.text('coin', 'Coin', { max: 40 }) as CoinId,
          amount: req.form.text('amount', 'Amount', { max: 40 }),
          currency: req.form.text('currency', 'Amount in', { max: 10 }),
          externalId: req.form.optional('external_id', 'External id', { max: 128 }),
          description: req.form.optional('description', 'Description', { max: DESCRIPTION_MAX }),
        });
        const { invoice, created } = await req.services.invoicesService.create(project, input, req.actor);
        return redirect(
          `${base(req)}/${invoice.id}`,
          `${created ? 'The invoice is created' : 'An invoice with this external id exists already; here it is'}: send the payer to ${invoice.checkout_url}`,
        );
      },
    },
    '/:invoiceId/cancel': {
      cli: ['invoice cancel'],
      summary: 'Cancel a pending or detected invoice (its address goes back to the pool after the cooldown).',
      handle: async (req) => {
        const id = req.params['invoiceId']!;
        const custom = partsFor(req).find(({ part }) => part.cancel);
        const invoice = custom
          ? await custom.part.cancel!({ ...req, services: custom.services }, id)
          : await req.services.invoicesService.cancel(req.project!.id, id, req.actor);
        return redirect(`${base(req)}/${invoice.id}`, `The invoice is ${invoice.status}.`);
      },
    },
  },
});

/** The form of a one-off invoice: its fields carry a fresh external id, so a form sent twice creates one invoice. */
async function createForm(req: DashboardRequest<Services>): Promise<SafeHtml> {
  const policy = await req.services.invoicesPolicies.get(req.project!.id);
  return html`<h1>Create an invoice</h1>
<p>A one-off invoice of <strong>${req.project!.name}</strong>, as the partner's API would create it (<code>pnpm gateway invoice create</code>): the payer pays it on its checkout page.</p>
<form method="post" action="${base(req)}/new">${csrfField(req)}
<label for="invoice-coin">Coin</label>
<select id="invoice-coin" name="coin" required>${policy.enabled_coins.map((coin) => html`<option value="${coin}">${coin}</option>`)}</select>
<label for="invoice-amount">Amount</label>
<input id="invoice-amount" name="amount" type="text" inputmode="decimal" required maxlength="40" pattern="${DECIMAL_PATTERN}" placeholder="12.50">
<label for="invoice-currency">Amount in</label>
<select id="invoice-currency" name="currency">${req.services.ratesService.fiatCurrencies.map((c) => html`<option value="${c}">${c}</option>`)}<option value="${AMOUNT_IN_COIN}">the coin itself</option></select>
<label for="invoice-external-id">External id (your reference; the same one again shows the invoice it made)</label>
<input id="invoice-external-id" name="external_id" type="text" maxlength="128" value="${oneOffExternalId()}">
<label for="invoice-description">Description (kept in the invoice's metadata)</label>
<input id="invoice-description" name="description" type="text" maxlength="${String(DESCRIPTION_MAX)}">
<button type="submit">Create invoice</button>
</form>
<p><a href="${base(req)}">Back to the invoices</a></p>`;
}

/** An invoice status as a badge whose tone follows the invoices plugin's lists: paid, still waiting for money, reverted (money gone), else over. */
function statusBadge(status: InvoiceStatus): SafeHtml {
  const tone: BadgeTone = PAID_STATUSES.includes(status) ? 'good' : WAITING_STATUSES.includes(status) ? 'waiting' : status === 'reverted' ? 'bad' : 'ended';
  return badge(status, tone);
}

/** The USD of an invoice: its price in USD, else (paid) its amount at the rate recorded when paid, as the overview counts it. */
function usdCell(i: InvoiceView, paid: PaidValue | undefined): SafeHtml | string {
  if (i.amount_usd !== null) return String(i.amount_usd);
  return paid ? html`${paid.usd} <span class="note">at payment</span>` : '—';
}

function invoiceFacts(i: InvoiceView, paid: PaidValue | undefined): SafeHtml {
  return html`<dl class="facts">
<dt>Invoice id</dt><dd><code>${i.id}</code></dd>
<dt>Status</dt><dd>${statusBadge(i.status)}</dd>
${i.price_currency ? html`<dt>Price</dt><dd>${i.price_amount} ${i.price_currency} <span class="note">(${i.price_rate} USD per ${i.price_currency} at creation)</span></dd>` : null}
<dt>Amount</dt><dd>${i.amount_crypto} ${i.coin} (${i.amount_crypto_units} base units)</dd>
<dt>USD</dt><dd>${usdCell(i, paid)}${i.rate_snapshot ? html` at ${i.rate_snapshot.rate} ${i.rate_snapshot.pair} (${i.rate_snapshot.source}, ${when(i.rate_snapshot.fetched_at_iso)})` : i.amount_usd === null && paid?.rate ? html` (${paid.rate} USD per ${i.coin}${paid.source ? `, ${paid.source}` : ''})` : null}</dd>
<dt>Address</dt><dd><code class="wrap">${i.address}</code> <span class="note">(${i.derivation_path})</span></dd>
<dt>Confirmations</dt><dd>${i.confirmations} of ${i.confirmation_threshold}</dd>
<dt>Matching mode</dt><dd>${i.matching_mode}${i.underpayment_tolerance !== NO_TOLERANCE ? html`, paid when short by at most a share of ${i.underpayment_tolerance} (underpayment tolerance)` : null}</dd>
<dt>Created</dt><dd>${when(i.created_at_iso)}</dd>
<dt>Expires</dt><dd>${when(i.expires_at_iso)}</dd>
<dt>Callback URL</dt><dd>${i.callback_url ? html`<code class="wrap">${i.callback_url}</code>` : 'the project default'}</dd>
<dt>Checkout page</dt><dd>${i.checkout_url ? html`<a href="${i.checkout_url}">${i.checkout_url}</a>` : '—'}</dd>
</dl>`;
}

/** The cancel button, then the sections other plugins add for the project's kind (the sandbox's simulations). */
function actions(req: DashboardRequest<Services>, invoice: InvoiceView, sections: readonly SafeHtml[]): SafeHtml {
  const path = `${base(req)}/${invoice.id}`;
  const cancel = CANCELLABLE_STATUSES.includes(invoice.status)
    ? actionButton(req, `${path}/cancel`, 'Cancel invoice', {
        confirm: 'Cancel this invoice? Its address returns to the pool after the cooldown.',
        danger: true,
      })
    : null;
  if (sections.length === 0) return cancel ? html`<div class="actions">${cancel}</div>` : html``;
  return html`<div class="actions">${cancel}</div>
${sections.map((section, i) => (i === 0 ? section : html`\n${section}`))}`;
}

/** The rows other plugins add (webhook deliveries) and the audit rows of the invoice, oldest first. */
function timeline(
  invoice: InvoiceView,
  contributed: readonly TimelineRow[],
  audit: readonly { id: string; actor: string; channel: string; action: string; created_at_iso: string }[],
): SafeHtml {
  const rows: TimelineRow[] = [
    ...contributed,
    ...audit.map((a) => ({ at: a.created_at_iso, id: a.id, cells: [when(a.created_at_iso), 'audit', a.action, `${a.actor} via ${a.channel}`] })),
  ].sort((a, b) => (a.at === b.at ? a.id.localeCompare(b.id) : a.at.localeCompare(b.at)));
  return table(
    `Timeline of invoice ${invoice.external_id}`,
    ['When', 'Kind', 'What', 'Details'],
    rows.map((r) => r.cells),
    'Nothing happened yet.',
  );
}
