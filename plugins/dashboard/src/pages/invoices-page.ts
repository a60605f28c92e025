import type { DashboardServices } from '../web/services.js';
import { Readable } from 'node:stream';
import { coreErrors, html, ISO_8601_PATTERN, parseInstant, type SafeHtml } from '@gw/kernel';
import { CANCELLABLE_STATUSES, DECIMAL_PATTERN, exportDocument, INVOICE_STATUSES, PAID_STATUSES, WAITING_STATUSES, type InvoiceStatus, type InvoiceView, type PaidValue } from '@gw/plugin-invoices/contract';
import { SIMULATION_RULES, SIMULATIONS, simulationApplies, TERMINAL_EVENT_TYPES, type Simulation, type SimulationInput } from '@gw/plugin-sandbox/contract';
import type { DeliveryLogEntry } from '@gw/plugin-webhooks/contract';
import { dashboardErrors } from '../errors.js';
import { actionButton, badge, type BadgeTone, csrfField, nextPageLink, pageOf, table } from '../web/components.js';
import { definePage, page, redirect, type DashboardActionRequest, type DashboardRequest } from '../web/dashboard-page.js';
import { filterForm, jsonBlock, readFilters, when, type FilterField } from '../web/filters.js';

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

/** Fixed inputs of the simulations that need one (the REST body's), said on their buttons. */
const SIMULATION_INPUTS: Partial<Record<Simulation, { input: SimulationInput; note: string }>> = {
  overpaid: { input: { multiplier: 1.5 }, note: ' (×1.5)' },
  partial: { input: { fraction: 0.5 }, note: ' (half)' },
};
/** Blocks one "advance the clock" adds at most (as the REST body's limit). */
const CLOCK_BLOCKS_MAX = 64;

const base = (req: DashboardRequest) => `/dashboard/projects/${req.project!.id}/invoices`;

/**
 * Invoices of a project: search with every filter of the REST list (cursor-paginated), an
 * invoice's page with transactions, confirmations and the timeline of its webhook events and audit
 * rows, cancel; for sandbox projects a button per simulation and the chain clock.
 */
export const invoicesPage = definePage({
  id: 'invoices',
  dependsOn: ['invoices', 'webhooks', 'sandbox'],
  nav: [{ label: 'Invoices', scope: 'project', path: '/invoices', order: 20 }],
  routes: (services) => [
    {
      method: 'GET',
      path: '/dashboard/projects/:projectId/invoices',
      cli: ['invoice list'],
      summary: "Search the project's invoices with the REST list's filters (newest first, cursor-paginated).",
      render: async (req) => {
        const filters = readFilters(req, INVOICE_FILTERS);
        const { after, limit } = pageOf(req);
        const list = await services.invoicesService.list(req.project!.id, { ...filters, status: filters['status'] as InvoiceStatus | undefined, limit, ...(after ? { cursor: after } : {}) });
        const paid = await services.invoicesActivity.paidValues(req.project!.id, list.items.filter((i) => i.amount_usd === null).map((i) => i.id));
        return page(`Invoices of ${req.project!.name}`, html`<h1>Invoices</h1>
<p class="note">Project <strong>${req.project!.name}</strong> (${req.project!.kind}). Invoices are created by the partner's signed API; here they are searched, inspected${req.project!.kind === 'sandbox' ? ', simulated' : ''} and cancelled.</p>
${filterForm(base(req), INVOICE_FILTERS, filters, 'Invoice filters')}
${table(
  'Invoices, newest first',
  ['Invoice', 'External id', 'Status', 'Amount', 'USD', 'Address', 'Created'],
  list.items.map((i) => [html`<a href="${base(req)}/${i.id}"><code>${i.id}</code></a>`, i.external_id, statusBadge(i.status), html`${i.amount_crypto} <span class="unit">${i.coin}</span>`, usdCell(i, paid.get(i.id)), html`<code class="wrap">${i.address}</code>`, when(i.created_at_iso)]),
  Object.keys(filters).length > 0 ? 'No invoice matches these filters.' : 'No invoices yet.',
)}
${nextPageLink(req, base(req), list.items, limit)}
<p><a href="${base(req)}/export">Export invoices (CSV or JSON)</a></p>`);
      },
    },
    {
      method: 'GET',
      path: '/dashboard/projects/:projectId/invoices/export',
      cli: ['invoice export'],
      summary: "Download the project's invoices created in a range with their transactions (CSV or JSON, streamed), as the CLI's export.",
      render: async (req) => {
        const from = req.query.get('from');
        const to = req.query.get('to');
        if (!from || !to) {
          const today = new Date().toISOString().slice(0, 10);
          return page(`Export invoices of ${req.project!.name}`, html`<h1>Export invoices</h1>
<p>Invoices created in the range, with their transactions, for accounting: amounts as exact decimal strings, USD at creation and at payment (the same file as <code>pnpm gateway invoice export</code>).</p>
<form method="get" action="${base(req)}/export">
<label for="export-from">Created from (date or date-time, UTC)</label><input id="export-from" name="from" type="text" required maxlength="40" value="${today.slice(0, 8)}01">
<label for="export-to">Created to</label><input id="export-to" name="to" type="text" required maxlength="40" value="${today}">
<fieldset><legend>Format</legend>
<label class="choice"><input type="radio" name="format" value="csv" checked> CSV (one line per transaction)</label>
<label class="choice"><input type="radio" name="format" value="json"> JSON (an array of invoices)</label>
</fieldset>
<button type="submit">Download</button>
</form>`);
        }
        const format = req.query.get('format') === 'json' ? 'json' : 'csv';
        if (!new RegExp(ISO_8601_PATTERN).test(from) || !new RegExp(ISO_8601_PATTERN).test(to)) throw coreErrors.validation_error({ message: 'from and to must be ISO 8601 dates or date-times.', details: { field: 'query.from' } });
        const range = { projectId: req.project!.id, from: parseInstant(from, 'from', 'start'), to: parseInstant(to, 'to', 'end') };
        if (range.from > range.to) throw coreErrors.validation_error({ message: 'from is after to.', details: { field: 'query.from' } });
        const lines = exportDocument(services.invoicesExporter.invoices(range), format);
        return {
          kind: 'download',
          filename: `invoices-${req.project!.id}-${from.slice(0, 10)}-${to.slice(0, 10)}.${format}`,
          contentType: format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8',
          body: Readable.from(lines),
        };
      },
    },
    {
      method: 'GET',
      path: '/dashboard/projects/:projectId/invoices/:invoiceId',
      cli: ['invoice show'],
      summary: 'One invoice: amounts, transactions and confirmations, the timeline of its webhook events and audit rows; cancel and (sandbox) simulations.',
      render: async (req) => {
        const invoice = await services.invoicesService.get(req.project!.id, req.params['invoiceId']!);
        const [events, audit, paid] = await Promise.all([
          services.webhooksEventLog.list(req.project!.id, { invoice_id: invoice.id, limit: 100 }),
          services.audit.list({ projectIds: [req.project!.id], target: `invoice:${invoice.id}`, limit: 100 }),
          services.invoicesActivity.paidValues(req.project!.id, [invoice.id]),
        ]);
        return page(`Invoice ${invoice.external_id}`, html`<h1>Invoice <code>${invoice.external_id}</code></h1>
${invoiceFacts(invoice, paid.get(invoice.id))}
${req.user.role === 'admin' ? actions(req, invoice, events.items) : html`<p class="note">You are a read-only member: cancelling${req.project!.kind === 'sandbox' ? ' and simulating' : ''} is for administrators.</p>`}
<h2>Transactions</h2>
${table(
  'Transactions of the invoice',
  ['Transaction', 'Output', 'Amount', 'Confirmations', 'Block', 'Status', 'Seen'],
  invoice.transactions.map((tx) => [html`<code class="wrap">${tx.tx_hash}</code>`, tx.output_index, tx.amount_crypto, `${tx.confirmations} of ${invoice.confirmation_threshold}`, tx.block_height === null ? '—' : String(tx.block_height), badge(tx.status), when(tx.detected_at_iso)]),
  'No payment seen yet.',
)}
<h2>Timeline</h2>
${timeline(req, invoice, events.items, audit.items)}
<h2>Metadata</h2>
${invoice.metadata && Object.keys(invoice.metadata).length > 0 ? jsonBlock(invoice.metadata) : html`<p class="empty">No metadata.</p>`}
<p><a href="${base(req)}">Back to the invoices</a></p>`);
      },
    },
    {
      method: 'POST',
      path: '/dashboard/projects/:projectId/invoices/:invoiceId/cancel',
      cli: ['invoice cancel'],
      summary: 'Cancel a pending or detected invoice (its address goes back to the pool after the cooldown).',
      handle: async (req) => {
        const id = req.params['invoiceId']!;
        const invoice =
          req.project!.kind === 'sandbox' ? await services.sandboxInvoices.cancel(req.project!.id, id, req.actor) : await services.invoicesService.cancel(req.project!.id, id, req.actor);
        return redirect(`${base(req)}/${invoice.id}`, `The invoice is ${invoice.status}.`);
      },
    },
    {
      method: 'POST',
      path: '/dashboard/projects/:projectId/invoices/:invoiceId/simulate',
      summary: 'Sandbox: run one named simulation (detect, paid, overpaid, partial, expire, late-payment, reorg, reconfirm) on the invoice.',
      handle: async (req) => {
        requireSandbox(req);
        const simulation = req.form.choice<Simulation>('simulation', 'Simulation', SIMULATIONS);
        const result = await services.sandboxSimulator.simulate(req.project!.id, req.params['invoiceId']!, simulation, SIMULATION_INPUTS[simulation]?.input ?? {}, req.actor);
        return redirect(`${base(req)}/${req.params['invoiceId']}`, `Simulated ${simulation}: the invoice is ${result.status} (event ${result.event_id}).`);
      },
    },
    {
      method: 'POST',
      path: '/dashboard/projects/:projectId/invoices/:invoiceId/duplicate-delivery',
      summary: 'Sandbox: deliver the latest terminal webhook of the invoice again with the same event_id.',
      handle: async (req) => {
        requireSandbox(req);
        const result = await services.sandboxSimulator.duplicateDelivery(req.project!.id, req.params['invoiceId']!, req.actor);
        return redirect(`${base(req)}/${req.params['invoiceId']}`, `Event ${result.event_id} is delivered once more.`);
      },
    },
    {
      method: 'POST',
      path: '/dashboard/projects/:projectId/sandbox/clock-advance',
      summary: "Sandbox: advance a chain's clock, adding confirmations to every detected invoice of the project on it.",
      handle: async (req) => {
        requireSandbox(req);
        const chain = req.form.choice('chain', 'Chain', services.chains.chainIds());
        const blocksText = req.form.text('blocks', 'Blocks', { max: 3 });
        const blocks = /^\d+$/.test(blocksText) ? Number(blocksText) : NaN;
        if (!(blocks >= 1 && blocks <= CLOCK_BLOCKS_MAX)) throw dashboardErrors.invalid_form({ message: `Blocks must be a whole number from 1 to ${CLOCK_BLOCKS_MAX}.` });
        const result = await services.sandboxSimulator.advanceClock(req.project!.id, chain, blocks, req.actor);
        const back = req.form.optional('invoice', 'Invoice', { max: 26 });
        const location = back && /^[0-9A-HJKMNP-TV-Z]{26}$/.test(back) ? `${base(req)}/${back}` : base(req);
        return redirect(location, `The ${chain} clock advanced ${blocks} block(s): ${result.advanced} invoice(s) moved, ${result.remaining} still waiting.`);
      },
    },
  ],
});

/** An invoice status as a badge whose tone follows the invoices plugin's lists: paid, still waiting for money, reverted (money gone), else over. */
function statusBadge(status: InvoiceStatus): SafeHtml {
  const tone: BadgeTone = PAID_STATUSES.includes(status) ? 'good' : WAITING_STATUSES.includes(status) ? 'waiting' : status === 'reverted' ? 'bad' : 'ended';
  return badge(status, tone);
}

function requireSandbox(req: DashboardActionRequest): void {
  if (req.project!.kind !== 'sandbox') throw dashboardErrors.invalid_form({ message: 'Simulations exist only for sandbox projects. Nothing was changed.' });
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
<dt>Amount</dt><dd>${i.amount_crypto} ${i.coin} (${i.amount_crypto_units} base units)</dd>
<dt>USD</dt><dd>${usdCell(i, paid)}${i.rate_snapshot ? html` at ${i.rate_snapshot.rate} ${i.rate_snapshot.pair} (${i.rate_snapshot.source}, ${when(i.rate_snapshot.fetched_at_iso)})` : i.amount_usd === null && paid?.rate ? html` (${paid.rate} USD per ${i.coin}${paid.source ? `, ${paid.source}` : ''})` : null}</dd>
<dt>Address</dt><dd><code class="wrap">${i.address}</code> <span class="note">(${i.derivation_path})</span></dd>
<dt>Confirmations</dt><dd>${i.confirmations} of ${i.confirmation_threshold}</dd>
<dt>Matching mode</dt><dd>${i.matching_mode}</dd>
<dt>Created</dt><dd>${when(i.created_at_iso)}</dd>
<dt>Expires</dt><dd>${when(i.expires_at_iso)}</dd>
<dt>Callback URL</dt><dd>${i.callback_url ? html`<code class="wrap">${i.callback_url}</code>` : 'the project default'}</dd>
<dt>Checkout page</dt><dd>${i.checkout_url ? html`<a href="${i.checkout_url}">${i.checkout_url}</a>` : '—'}</dd>
</dl>`;
}

function actions(req: DashboardRequest, invoice: InvoiceView, events: readonly DeliveryLogEntry[]): SafeHtml {
  const path = `${base(req)}/${invoice.id}`;
  const cancel = CANCELLABLE_STATUSES.includes(invoice.status)
    ? actionButton(req, `${path}/cancel`, 'Cancel invoice', { confirm: 'Cancel this invoice? Its address returns to the pool after the cooldown.', danger: true })
    : null;
  if (req.project!.kind !== 'sandbox') return cancel ? html`<div class="actions">${cancel}</div>` : html``;
  // A button that would only be refused is disabled, with the reason in its description.
  const buttons = SIMULATIONS.map((s) => {
    const rule = SIMULATION_RULES[s];
    const possible = simulationApplies(s, invoice);
    const why = `Needs ${rule.from.join(' or ')}${s === 'partial' ? ' and a matching mode that can be short (not any)' : ''}; emits ${rule.event}`;
    return html`<form class="inline" method="post" action="${path}/simulate">${csrfField(req)}<input type="hidden" name="simulation" value="${s}"><button type="submit"${possible ? null : html` disabled`} title="${why}">Simulate ${s}${SIMULATION_INPUTS[s]?.note ?? ''}</button></form>`;
  });
  const terminal = events.some((e) => (TERMINAL_EVENT_TYPES as readonly string[]).includes(e.event_type));
  return html`<div class="actions">${cancel}</div>
<section class="sandbox" aria-labelledby="simulate-heading">
<h2 id="simulate-heading">Simulate (sandbox)</h2>
<p class="note">Each button drives this invoice through the same lifecycle a chain watcher would, and the partner receives real signed webhooks with <code>mode: sandbox</code>. Buttons that do not apply to status <strong>${invoice.status}</strong>${invoice.matching_mode === 'any' ? html` and matching mode <strong>any</strong>` : null} are disabled.</p>
<div class="button-row">${buttons}
${terminal ? actionButton(req, `${path}/duplicate-delivery`, 'Deliver the last terminal webhook again') : html`<button type="button" disabled title="${`No terminal webhook (${TERMINAL_EVENT_TYPES.join(', ')}) was sent for this invoice yet`}">Deliver the last terminal webhook again</button>`}</div>
<form class="inline-form" method="post" action="/dashboard/projects/${req.project!.id}/sandbox/clock-advance">${csrfField(req)}
<input type="hidden" name="chain" value="${invoiceChain(req.services, invoice)}"><input type="hidden" name="invoice" value="${invoice.id}">
<label for="clock-blocks">Advance the ${invoiceChain(req.services, invoice)} clock by blocks</label>
<input id="clock-blocks" name="blocks" type="number" min="1" max="${CLOCK_BLOCKS_MAX}" value="1" required>
<button type="submit">Advance clock</button>
</form>
</section>`;
}

function invoiceChain(services: DashboardServices, invoice: InvoiceView): string {
  return services.chains.coin(invoice.coin).adapter.definition.id;
}

/** Webhook events and audit rows of the invoice, oldest first. */
function timeline(req: DashboardRequest, invoice: InvoiceView, events: readonly DeliveryLogEntry[], audit: readonly { id: string; actor: string; channel: string; action: string; created_at_iso: string }[]): SafeHtml {
  const rows: { at: string; id: string; cells: (SafeHtml | string)[] }[] = [
    ...events.map((e) => ({
      at: e.created_at_iso,
      id: e.id,
      cells: [when(e.created_at_iso), 'webhook', html`<a href="/dashboard/projects/${req.project!.id}/webhooks/${e.id}">${e.event_type}</a>${e.original_event_id ? ' (resend)' : ''}`, html`${badge(e.status)} ${e.attempts} attempt(s)${e.last_http_status ? `, last HTTP ${e.last_http_status}` : ''}`],
    })),
    ...audit.map((a) => ({ at: a.created_at_iso, id: a.id, cells: [when(a.created_at_iso), 'audit', a.action, `${a.actor} via ${a.channel}`] })),
  ].sort((a, b) => (a.at === b.at ? a.id.localeCompare(b.id) : a.at.localeCompare(b.at)));
  return table(`Timeline of invoice ${invoice.external_id}`, ['When', 'Kind', 'What', 'Details'], rows.map((r) => r.cells), 'Nothing happened yet.');
}
