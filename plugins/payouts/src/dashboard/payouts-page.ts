import { coreErrors, html, type SafeHtml } from '@gw/kernel';
import { Readable } from 'node:stream';
import {
  actionButton,
  badge,
  type BadgeTone,
  csrfField,
  type DashboardRequest,
  dashboardErrors,
  definePage,
  page,
  type PageServices,
  redirect,
  table,
  when,
} from '@gw/plugin-dashboard/contract';
import type { PayoutSource } from '@gw/plugin-treasury/contract';
import {
  ADMIN_CANCELLABLE_STATUSES,
  APPROVABLE_STATUSES,
  dashboardApprover,
  ITEM_KINDS,
  ITEM_STATUSES,
  type ItemKind,
  type ItemStatus,
  type ItemView,
} from '../contract.js';
import { addressSourceText } from '../address-source.js';
import { payoutsErrors } from '../errors.js';
import { MoneyOut, type MoneyBooks } from '../money-out.js';
import { moneyOutRange, thisMonth } from '../money-out-range.js';

/** What the page reads (ADR 0011). */
export const PAYOUTS_PAGE_DEPS = ['chains', 'payoutsItems', 'payoutsApprovals', 'payoutsBatches', 'payoutsMoneyOut'] as const;
type Services = PageServices<typeof PAYOUTS_PAGE_DEPS>;

const base = (req: DashboardRequest<Services>) => `/dashboard/projects/${req.project!.id}/payouts`;
const scopeOf = (req: DashboardRequest<Services>) => ({ projectIds: [req.project!.id] });
const ID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const USD = /^[0-9]{1,12}(\.[0-9]{1,2})?$/;
const DIGITS = /^[0-9]{1,30}$/;
const SOURCES = ['received', 'funding', 'address'] as const;
const LIST_LIMIT = 100;

/** A status as a badge: paid (`good`), on its way (`waiting`), gone wrong (`bad`), else over. */
export function itemBadge(status: ItemStatus): SafeHtml {
  const tone: BadgeTone = status === 'completed' ? 'good' : status === 'failed' ? 'bad' : status === 'cancelled' ? 'ended' : 'waiting';
  return badge(status, tone);
}

/** `n/m` approvals. */
export const approvalsOf = (item: ItemView): string => `${item.approvals.length}/${item.approvals_required}`;

/** Where the treasury shows a plan: UTXO plans and account-chain plans have their own pages. */
export function planHref(services: Pick<Services, 'chains'>, chain: string, planId: string): string {
  const account = services.chains.has(chain) && services.chains.get(chain).definition.capabilities.accountTreasury === true;
  return `/dashboard/treasury${account ? '/accounts' : ''}/plans/${planId}`;
}

function itemRow(req: DashboardRequest<Services>, item: ItemView): (SafeHtml | string)[] {
  const admin = req.user.role === 'admin';
  const at = `${base(req)}/items/${item.id}`;
  const buttons = [
    admin && APPROVABLE_STATUSES.includes(item.status) ? actionButton(req, `${at}/approve`, 'Approve', { confirm: `Approve this ${item.object}?` }) : null,
    admin && ADMIN_CANCELLABLE_STATUSES.includes(item.status)
      ? actionButton(req, `${at}/cancel`, 'Cancel', { danger: true, confirm: `Cancel this ${item.object}?` })
      : null,
  ].filter((b) => b !== null);
  return [
    html`<a href="${base(req)}/${item.object}s/${item.id}"><code>${item.id}</code></a>`,
    itemBadge(item.status),
    html`${item.amount} <span class="unit">${item.coin}</span>`,
    item.amount_usd ?? '—',
    item.address
      ? html`<code class="wrap">${item.address}</code> <span class="note">${addressSourceText(item)}</span>`
      : html`<span class="note">not claimed yet</span>`,
    item.object === 'refund' ? (item.invoice_id ?? '—') : (item.reference ?? '—'),
    approvalsOf(item),
    item.plan_id ? html`<a href="${planHref(req.services, item.chain, item.plan_id)}"><code>${item.plan_id}</code></a>` : '—',
    when(item.created_at_iso),
    buttons.length > 0 ? html`<div class="actions">${buttons}</div>` : '—',
  ];
}

const HEAD = ['Item', 'Status', 'Amount', 'USD', 'Address', 'Invoice or reference', 'Approvals', 'Plan', 'Created', 'Actions'];

function booksTables(books: MoneyBooks, period: { from: string; to: string }): SafeHtml {
  return html`${table(
    `Money in from ${period.from} to before ${period.to} (confirmed, invoices created in the period)`,
    ['Coin', 'Chain', 'Received', 'Base units'],
    books.money_in.map((t) => [t.coin, t.chain, t.amount, t.amount_units]),
    'Nothing received in this period.',
  )}
${table(
  `Money out from ${period.from} to before ${period.to}`,
  ['Kind', 'Coin', 'Chain', 'Amount', 'Base units'],
  books.money_out.map((t) => [t.kind, t.coin, t.chain, t.amount, t.amount_units]),
  'Nothing went out in this period.',
)}`;
}

/**
 * Refunds and payouts of a project (issue 37): the items by status with their approvals, approval
 * (administrators only: a member's approval is 403 `approval_forbidden`, never a mere hidden
 * button), cancel, a batch of approved items into a treasury plan to sign offline, the approval
 * policy, and the books: money in beside money out (refunds, payouts, sweeps, network fees).
 */
export const payoutsPage = definePage<Services>({
  nav: { label: 'Refunds and payouts', scope: 'project', path: '/payouts', order: 22 },
  cli: ['payout list'],
  summary: 'Refunds and payouts of the project by status with their approvals; approve, cancel, batch, the approval policy and the books.',
  render: async (req) => {
    const statusText = req.query.get('status') ?? '';
    const status = (ITEM_STATUSES as readonly string[]).includes(statusText) ? (statusText as ItemStatus) : undefined;
    const [refunds, payouts, policy] = await Promise.all([
      req.services.payoutsItems.list({ projectId: req.project!.id, kind: 'refund', limit: LIST_LIMIT, ...(status ? { status } : {}) }),
      req.services.payoutsItems.list({ projectId: req.project!.id, kind: 'payout', limit: LIST_LIMIT, ...(status ? { status } : {}) }),
      req.services.payoutsApprovals.policy(req.project!.id),
    ]);
    const period = { from: req.query.get('from') || thisMonth().from, to: req.query.get('to') || thisMonth().to };
    const books = await req.services.payoutsMoneyOut.books(moneyOutRange(req.project!.id, period.from, period.to));
    const admin = req.user.role === 'admin';
    /** The items of one kind (`Refunds`, `Payouts`) in the status picked, and how to page through more. */
    const itemList = (kind: ItemKind, title: string, items: readonly ItemView[]) => html`<h2>${title}</h2>
${table(
  status ? `${title} ${status}, newest first` : `${title}, newest first`,
  HEAD,
  items.map((i) => itemRow(req, i)),
  `No ${kind}s.`,
)}
${
  items.length >= LIST_LIMIT
    ? html`<p class="note">More ${kind}s than shown: <code>gateway payout list --project ${req.project!.id} --kind ${kind}</code> pages through all.</p>`
    : null
}`;
    return page(
      `Refunds and payouts of ${req.project!.name}`,
      html`<h1>Refunds and payouts</h1>
<p class="note">Partners propose refunds and payouts through the API; payers claim refunds on their claim page. Nothing leaves before an administrator approves it here or with <code>gateway payout approve</code>; approved items then join a batch, a treasury plan signed offline.</p>
<form method="get" action="${base(req)}"><label for="po-status">Status</label>
<select id="po-status" name="status"><option value="">every status</option>${ITEM_STATUSES.map((s) => html`<option value="${s}"${s === status ? html` selected` : null}>${s}</option>`)}</select>
<button type="submit">Show</button></form>
${itemList('refund', 'Refunds', refunds.items)}
${itemList('payout', 'Payouts', payouts.items)}
${admin ? null : html`<p class="note">You are a read-only member: approving, cancelling and batching are for administrators.</p>`}
${
  admin
    ? html`<h2>Create a batch</h2>
<p class="note">Every approved item of a chain, network and coin becomes one treasury plan; sign its file offline, upload it and broadcast it on the plan’s page.</p>
<form method="post" action="${base(req)}/batches">${csrfField(req)}
<label for="b-chain">Chain</label><input id="b-chain" name="chain" required maxlength="40">
<label for="b-network">Network</label><input id="b-network" name="network" required maxlength="40">
<label for="b-coin">Coin</label><input id="b-coin" name="coin" required maxlength="40">
<fieldset><legend>Funds from</legend>
<label class="choice"><input type="radio" name="source" value="received" checked> the project’s received outputs (Bitcoin, Litecoin, Cardano)</label>
<label class="choice"><input type="radio" name="source" value="funding"> the network’s funding account (account chains)</label>
<label class="choice"><input type="radio" name="source" value="address"> a pool address of the project:</label>
</fieldset>
<label for="b-address">Pool address (with “a pool address”)</label><input id="b-address" name="address" maxlength="200">
<label for="b-rate">Fee rate (base units per size unit; empty: the estimate)</label><input id="b-rate" name="fee_rate" inputmode="numeric" pattern="[0-9]*" maxlength="30">
<button type="submit">Create batch</button></form>`
    : null
}
<h2>Approval policy</h2>
<dl class="facts"><dt>Two administrators above</dt><dd>${policy.dualApprovalAboveUsd === null ? 'never (one administrator)' : `${policy.dualApprovalAboveUsd} USD`}</dd>
<dt>Claim proof above</dt><dd>${policy.claimProofAboveUsd === null ? 'the deployment default' : `${policy.claimProofAboveUsd} USD`}</dd></dl>
${
  admin
    ? html`<form method="post" action="${base(req)}/policy">${csrfField(req)}
<label for="p-dual">Two administrators must approve above (USD; empty: one always)</label><input id="p-dual" name="dual_approval_above_usd" maxlength="16" inputmode="decimal" value="${policy.dualApprovalAboveUsd ?? ''}">
<label for="p-proof">Payers prove their address above (USD; empty: the deployment default)</label><input id="p-proof" name="claim_proof_above_usd" maxlength="16" inputmode="decimal" value="${policy.claimProofAboveUsd ?? ''}">
<button type="submit">Save the policy</button></form>`
    : null
}
<h2>Books: money in and money out</h2>
<form method="get" action="${base(req)}"><label for="m-from">From (date or date-time, UTC)</label><input id="m-from" name="from" maxlength="40" value="${period.from}">
<label for="m-to">Before</label><input id="m-to" name="to" maxlength="40" value="${period.to}">
<button type="submit">Show the period</button></form>
${booksTables(books, period)}
<p><a href="${`${base(req)}/money-out?from=${encodeURIComponent(period.from)}&to=${encodeURIComponent(period.to)}&format=csv`}">Download money out (CSV)</a> ·
<a href="${`${base(req)}/money-out?from=${encodeURIComponent(period.from)}&to=${encodeURIComponent(period.to)}&format=json`}">JSON</a></p>`,
    );
  },
  views: {
    '/money-out': {
      cli: ['payout export'],
      summary: 'Money out of the project in a period, for accounting: refunds, payouts, sweeps and network fees, one row each (CSV or JSON).',
      render: async (req) => {
        const from = req.query.get('from') ?? '';
        const to = req.query.get('to') ?? '';
        const range = moneyOutRange(req.project!.id, from, to);
        const format = req.query.get('format') === 'json' ? 'json' : 'csv';
        const rows = await req.services.payoutsMoneyOut.rows(range);
        const body =
          format === 'csv'
            ? MoneyOut.csv(rows)
            : `${JSON.stringify({ project_id: req.project!.id, from: range.from.toISOString(), to: range.to.toISOString(), ...(await req.services.payoutsMoneyOut.books(range)), rows }, null, 2)}\n`;
        return {
          kind: 'download',
          filename: `money-out-${req.project!.id}-${from.slice(0, 10)}-${to.slice(0, 10)}.${format}`,
          contentType: format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8',
          body: Readable.from([body]),
        };
      },
    },
    '/:kind/:itemId': {
      cli: ['payout show'],
      summary: 'One refund or payout: amounts, destination, approvals, plan and transaction.',
      render: async (req) => {
        const kind = req.params['kind']!.replace(/s$/, '');
        if (!(ITEM_KINDS as readonly string[]).includes(kind) || !ID.test(req.params['itemId']!))
          throw payoutsErrors[kind === 'payout' ? 'payout_not_found' : 'refund_not_found']();
        const item = await req.services.payoutsItems.get(req.project!.id, kind as ItemKind, req.params['itemId']!);
        const row = itemRow(req, item);
        return page(
          `${item.object === 'refund' ? 'Refund' : 'Payout'} ${item.id}`,
          html`<h1>${item.object === 'refund' ? 'Refund' : 'Payout'} <code>${item.id}</code> ${itemBadge(item.status)}</h1>
<dl class="facts">
<dt>Amount</dt><dd>${item.amount} ${item.coin} (${item.amount_units} base units) on ${item.chain} ${item.network}</dd>
<dt>USD</dt><dd>${item.amount_usd ?? '—'}${item.rate ? ` at ${item.rate} USD per ${item.coin}` : ''}${item.rate_rule ? ` (${item.rate_rule}${item.spread_percent ? `, spread ${item.spread_percent} %` : ''})` : ''}</dd>
<dt>Address</dt><dd>${item.address ? html`<code class="wrap">${item.address}</code>` : 'not claimed yet'}</dd>
${item.address ? html`<dt>Address from</dt><dd>${addressSourceText(item)}</dd>` : null}
${item.invoice_id ? html`<dt>Invoice</dt><dd><a href="/dashboard/projects/${item.project_id}/invoices/${item.invoice_id}"><code>${item.invoice_id}</code></a></dd>` : null}
<dt>Reference</dt><dd>${item.reference ?? '—'}</dd><dt>Reason</dt><dd>${item.reason ?? '—'}</dd>
<dt>Approvals</dt><dd>${approvalsOf(item)}${item.approvals.map((a) => html` · ${a.user_id} ${when(a.at_iso)}`)}</dd>
<dt>Plan</dt><dd>${row[7]}</dd><dt>Transaction</dt><dd>${item.txid ? html`<code class="wrap">${item.txid}</code>` : '—'}</dd>
<dt>Network fee share</dt><dd>${item.fee_units ?? '—'}</dd>
${item.failure_reason ? html`<dt>Why it failed</dt><dd>${item.failure_reason}</dd>` : null}
<dt>Created</dt><dd>${when(item.created_at_iso)}</dd><dt>Claimed</dt><dd>${when(item.claimed_at_iso)}</dd>
<dt>Approved</dt><dd>${when(item.approved_at_iso)}</dd><dt>Sent</dt><dd>${when(item.sent_at_iso)}</dd><dt>Completed</dt><dd>${when(item.completed_at_iso)}</dd>
</dl>
${row[9] === '—' ? null : row[9]}
<p><a href="${base(req)}">Back to refunds and payouts</a></p>`,
        );
      },
    },
  },
  actions: {
    '/items/:itemId/approve': {
      cli: ['payout approve'],
      summary: 'Approve a refund or payout (administrators only; a second administrator when the policy asks for two).',
      // Members reach the service so the refusal is the payouts plugin's own `approval_forbidden`, as for every non-administrator.
      role: 'member',
      handle: async (req) => {
        const item = await req.services.payoutsApprovals.approve(req.params['itemId']!, dashboardApprover(req.actor), scopeOf(req));
        return redirect(
          base(req),
          item.status === 'approved'
            ? `The ${item.object} ${item.id} is approved: create a batch to pay it.`
            : `Your approval of ${item.object} ${item.id} is recorded (${approvalsOf(item)}); another administrator must approve it too.`,
        );
      },
    },
    '/items/:itemId/cancel': {
      cli: ['payout cancel'],
      summary: 'Cancel a refund or payout that is not in a plan yet.',
      handle: async (req) => {
        const item = await req.services.payoutsApprovals.cancel(req.params['itemId']!, req.actor, scopeOf(req));
        return redirect(base(req), `The ${item.object} ${item.id} is cancelled.`);
      },
    },
    '/batches': {
      cli: ['payout batch'],
      summary: 'Batch the approved items of a chain, network and coin into a treasury payout plan to sign offline.',
      handle: async (req) => {
        const sourceKind = req.form.choice('source', 'Funds from', SOURCES);
        const address = req.form.optional('address', 'Pool address', { max: 200 });
        if (sourceKind === 'address' && !address) throw dashboardErrors.invalid_form({ message: 'Name the pool address the funds come from.' });
        const rate = req.form.optional('fee_rate', 'Fee rate', { max: 30 });
        if (rate && !DIGITS.test(rate)) throw coreErrors.validation_error({ message: 'The fee rate must be a whole number.', details: { field: 'fee_rate' } });
        const source: PayoutSource = sourceKind === 'address' ? { kind: 'address', address: address! } : { kind: sourceKind };
        const chain = req.form.text('chain', 'Chain', { max: 40 });
        const batch = await req.services.payoutsBatches.create(
          {
            projectId: req.project!.id,
            chain,
            network: req.form.text('network', 'Network', { max: 40 }),
            coin: req.form.text('coin', 'Coin', { max: 40 }),
            source,
            ...(rate ? { feeRate: BigInt(rate) } : {}),
          },
          req.actor,
          scopeOf(req),
        );
        return redirect(
          planHref(req.services, chain, batch.planId),
          `Batch of ${batch.items.length} item(s): plan ${batch.planId}. Download its file, sign it offline, upload it and broadcast it here.`,
        );
      },
    },
    '/policy': {
      cli: ['payout policy'],
      summary: 'Set the approval policy: two administrators above a USD value, a claim proof above a USD value.',
      handle: async (req) => {
        const usd = (name: string, label: string): string | null => {
          const value = req.form.optional(name, label, { max: 16 });
          if (value === undefined) return null;
          if (!USD.test(value)) throw coreErrors.validation_error({ message: `${label} must be a USD value (up to 2 decimals).`, details: { field: name } });
          return value;
        };
        await req.services.payoutsApprovals.setPolicy(
          req.project!.id,
          {
            dualApprovalAboveUsd: usd('dual_approval_above_usd', 'Two administrators above'),
            claimProofAboveUsd: usd('claim_proof_above_usd', 'Claim proof above'),
          },
          req.actor,
        );
        return redirect(base(req), 'The approval policy is saved.');
      },
    },
  },
});
