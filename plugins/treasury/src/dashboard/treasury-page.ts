import { coreErrors, html, ISO_8601_PATTERN, parseInstant } from '@gw/kernel';
import { Readable } from 'node:stream';
import { actionButton, badge, csrfField, definePage, page, type PageServices, redirect, table, when } from '@gw/plugin-dashboard/contract';
import type { PlanView } from '../plan-view.js';
import { MovedOutExport } from '../services/moved-out-export.js';
import { feeRateField, minUnitsField, networkFields, operatorScope, signedFileForm } from './plan-form.js';
import { queryText } from './query-text.js';
import { recipientsTable } from './recipients-table.js';

/** What the page reads (ADR 0011). */
export const TREASURY_PAGE_DEPS = ['treasuryBalances', 'treasuryPlans', 'treasurySignedImport', 'treasuryTracker', 'treasuryMovedOut'] as const;
type Services = PageServices<typeof TREASURY_PAGE_DEPS>;

const BASE = '/dashboard/treasury';
const OUTPOINT = /^[0-9a-f]{64}:\d{1,10}$/;

function planRow(plan: PlanView) {
  return [
    html`<a href="${BASE}/plans/${plan.id}"><code>${plan.id}</code></a>`,
    `${plan.chain} ${plan.network}`,
    html`${badge(plan.status)} ${plan.kind}`,
    html`${plan.value_units} <span class="unit">base units</span>`,
    plan.fee_units === null ? '—' : html`${plan.fee_units} (${plan.fee_percent} %)`,
    html`<code class="wrap">${plan.destination}</code> ${plan.destination_kind}`,
    when(plan.created_at_iso),
  ];
}

/**
 * The operator's treasury (issue 35): balances per chain network, the outputs behind them, plans,
 * a plan's file to sign offline, upload of the signed file, broadcast, bump, cancel, accelerating
 * an incoming payment (CPFP) and the accounting export of money moved out. Reconciliation is the
 * deployment's (`gateway treasury reconcile`): its differences name every operator's addresses. Writes go through the treasury's
 * services as the signed-in user (channel `dashboard`), over the operator's projects only.
 */
export const treasuryPage = definePage<Services>({
  id: 'treasury',
  nav: [{ label: 'Treasury', scope: 'operator', path: BASE, order: 40 }],
  routes: (services) => [
    {
      method: 'GET',
      path: BASE,
      summary: 'Balances of the operator’s projects per chain network, the newest plans, and a form to plan a sweep.',
      cli: ['treasury balances', 'treasury list'],
      render: async (req) => {
        const balances = await services.treasuryBalances.balances({ groupBy: 'network', limit: 100 }, operatorScope(req));
        const plans = await services.treasuryPlans.list({ limit: 50 }, operatorScope(req));
        const admin = req.user.role === 'admin';
        return page(
          'Treasury',
          html`<h1>Treasury</h1>
<p class="note">What your pool addresses hold, and plans that move it. The gateway holds no key: a plan is signed offline (a hardware wallet, or <code>gateway-signer</code>), verified here against the plan, then broadcast.</p>
${table(
  'Balances per chain network',
  ['Chain', 'Network', 'Coin', 'Confirmed', 'Unconfirmed', 'Outputs', 'Unclaimed (orphans, late)'],
  balances.rows.map((r) => [r.chain, r.network, r.coin, r.confirmed_units, r.unconfirmed_units, r.outputs, r.unclaimed_units]),
  'Nothing received yet.',
)}
<form method="get" action="${BASE}/outputs"><h2>Outputs behind the balances</h2>
<label for="out-chain">Chain</label><input id="out-chain" name="chain" required maxlength="40">
<label for="out-network">Network</label><input id="out-network" name="network" required maxlength="40">
<button type="submit">Show outputs</button></form>
<form method="get" action="${BASE}/export"><h2>Money moved out (accounting)</h2>
<label for="exp-from">Confirmed from (date or date-time, UTC)</label><input id="exp-from" name="from" required maxlength="40">
<label for="exp-to">Confirmed before</label><input id="exp-to" name="to" required maxlength="40">
<button type="submit">Download CSV</button></form>
<h2>Plans</h2>
${table('Plans, newest first', ['Plan', 'Network', 'Status · kind', 'Value', 'Fee', 'Destination', 'Created'], plans.plans.map(planRow), 'No plans yet.')}
${
  admin
    ? html`<h2>Plan a sweep</h2>
<form method="post" action="${BASE}/plans">${csrfField(req)}
<label for="tr-chain">Chain</label><input id="tr-chain" name="chain" required maxlength="40">
<label for="tr-network">Network</label><input id="tr-network" name="network" required maxlength="40">
<label for="tr-to">Destination: <code>own</code> or an external address</label><input id="tr-to" name="to" required maxlength="200">
<label for="tr-min">Only outputs worth at least (base units)</label><input id="tr-min" name="min_units" inputmode="numeric" pattern="[0-9]*" maxlength="78">
<label for="tr-rate">Fee rate (base units per size unit; empty: configured or estimated)</label><input id="tr-rate" name="fee_rate" inputmode="numeric" pattern="[0-9]*" maxlength="30">
<button type="submit">Plan</button></form>
<h2>Accelerate an incoming payment (CPFP)</h2>
<p class="note">A payer’s payment stuck below the fee floor: a child spending its unconfirmed output to your change address, paying for both. A plan to sign like any other.</p>
<form method="post" action="${BASE}/accelerate">${csrfField(req)}
<label for="acc-chain">Chain</label><input id="acc-chain" name="chain" required maxlength="40">
<label for="acc-network">Network</label><input id="acc-network" name="network" required maxlength="40">
<label for="acc-output">The payment’s output (<code>txid:index</code>)</label><input id="acc-output" name="output" required maxlength="80">
<label for="acc-rate">Target fee rate for both (empty: the next-block estimate)</label><input id="acc-rate" name="fee_rate" inputmode="numeric" pattern="[0-9]*" maxlength="30">
<button type="submit">Plan the child</button></form>`
    : null
}`,
        );
      },
    },
    {
      method: 'POST',
      path: `${BASE}/plans`,
      summary: 'Plan a sweep of every confirmed unspent output (above a value) of the operator’s projects on a network.',
      cli: ['treasury plan'],
      handle: async (req) => {
        const to = req.form.text('to', 'Destination', { max: 200 });
        const minUnits = minUnitsField(req.form);
        const feeRate = feeRateField(req.form);
        const plan = await services.treasuryPlans.sweep(
          {
            ...networkFields(req.form),
            select: minUnits === undefined ? {} : { minUnits },
            destination: to === 'own' ? { kind: 'own' } : { kind: 'external', address: to },
            ...(feeRate === undefined ? {} : { feeRate }),
          },
          operatorScope(req),
          req.actor,
        );
        return redirect(
          `${BASE}/plans/${plan.id}`,
          `Plan ${plan.id}: ${plan.inputs.length} output(s), fee ${plan.fee_units ?? 'pending'}. Sign its file offline.`,
        );
      },
    },
    {
      method: 'GET',
      path: `${BASE}/outputs`,
      summary: 'The unspent outputs behind the balances of a chain network, oldest first, with the invoice and the open plan holding each.',
      cli: ['treasury outputs'],
      render: async (req) => {
        const chain = queryText(req, 'chain', 40);
        const network = queryText(req, 'network', 40);
        const listed = await services.treasuryBalances.outputs({ chain, network, limit: 200 }, operatorScope(req));
        return page(
          `Outputs on ${chain} ${network}`,
          html`<h1>Outputs on ${chain} ${network}</h1>
${table(
  'Unspent outputs, oldest first (up to 200)',
  ['Output', 'Address', 'Amount (base units)', 'Invoice', 'Plan'],
  listed.outputs.map((o) => [
    html`<code class="wrap">${o.tx_hash}</code> #${o.output_index}`,
    html`<code class="wrap">${o.address}</code>`,
    o.amount_units,
    o.unclaimed ? html`${o.invoice_id ?? 'none'} ${badge(o.match)}` : (o.invoice_id ?? '—'),
    o.plan_id ? html`<a href="${BASE}/plans/${o.plan_id}"><code>${o.plan_id}</code></a>` : '—',
  ]),
  'No unspent output on this network.',
)}
${listed.next ? html`<p class="note">More outputs than shown: <code>gateway treasury outputs --chain ${chain} --network ${network}</code> pages through all.</p>` : null}`,
        );
      },
    },
    {
      method: 'POST',
      path: `${BASE}/accelerate`,
      summary: 'Accelerate an incoming payment (CPFP): a plan spending its unconfirmed output to the change address, paying for parent and child.',
      cli: ['treasury accelerate'],
      handle: async (req) => {
        const output = req.form.text('output', 'Output', { max: 80 });
        if (!OUTPOINT.test(output)) throw coreErrors.validation_error({ message: 'The output must be txid:index.', details: { field: 'output' } });
        const feeRate = feeRateField(req.form);
        const [txHash, index] = output.split(':');
        const plan = await services.treasuryPlans.accelerate(
          {
            ...networkFields(req.form),
            txHash: txHash!,
            outputIndex: Number(index),
            ...(feeRate === undefined ? {} : { feeRate }),
          },
          operatorScope(req),
          req.actor,
        );
        return redirect(`${BASE}/plans/${plan.id}`, `Child plan ${plan.id}: sign it offline.`);
      },
    },
    {
      method: 'GET',
      path: `${BASE}/export`,
      summary: 'Money moved out for accounting: every plan confirmed in a range, per project, with its share of the fee (CSV).',
      cli: ['treasury export'],
      render: async (req) => {
        const from = queryText(req, 'from', 40);
        const to = queryText(req, 'to', 40);
        if (!new RegExp(ISO_8601_PATTERN).test(from) || !new RegExp(ISO_8601_PATTERN).test(to))
          throw coreErrors.validation_error({ message: 'from and to must be ISO 8601 dates or date-times.', details: { field: 'query.from' } });
        const range = { from: parseInstant(from, 'from', 'start'), to: parseInstant(to, 'to', 'start') };
        if (range.from > range.to) throw coreErrors.validation_error({ message: 'from is after to.', details: { field: 'query.from' } });
        const rows = await services.treasuryMovedOut.rows(range, operatorScope(req));
        return {
          kind: 'download',
          filename: `treasury-moved-out-${from.slice(0, 10)}-${to.slice(0, 10)}.csv`,
          contentType: 'text/csv; charset=utf-8',
          body: Readable.from([MovedOutExport.csv(rows)]),
        };
      },
    },
    {
      method: 'GET',
      path: `${BASE}/plans/:planId`,
      summary: 'One plan: inputs, fee, status and its plan file; upload the signed file, broadcast, bump or cancel.',
      cli: ['treasury show'],
      render: async (req) => {
        const plan = await services.treasuryPlans.get(req.params['planId']!, operatorScope(req));
        const admin = req.user.role === 'admin';
        const at = `${BASE}/plans/${plan.id}`;
        return page(
          `Plan ${plan.id}`,
          html`<h1>Plan <code>${plan.id}</code> ${badge(plan.status)}</h1>
<dl class="facts"><dt>Kind</dt><dd>${plan.kind}</dd><dt>Network</dt><dd>${plan.chain} ${plan.network}</dd>
<dt>Destination</dt><dd><code class="wrap">${plan.destination}</code> (${plan.destination_kind})</dd>
<dt>Value</dt><dd>${plan.value_units}</dd><dt>Fee</dt><dd>${plan.fee_units ?? '—'} (${plan.fee_percent ?? '—'} %, rate ${plan.fee_rate ?? '—'})</dd>
<dt>Sends</dt><dd>${plan.send_units ?? '—'}</dd><dt>Transaction</dt><dd><code class="wrap">${plan.txid ?? '—'}</code></dd>
<dt>Confirmations</dt><dd>${plan.confirmations}</dd>${plan.failure ? html`<dt>Why</dt><dd>${plan.failure}</dd>` : null}</dl>
${recipientsTable(plan.recipients)}
${table(
  'Inputs',
  ['Output', 'Address', 'Amount', 'Invoice'],
  plan.inputs.map((i) => [
    html`<code class="wrap">${i.tx_hash}</code> #${i.output_index}`,
    html`<code class="wrap">${i.address}</code>`,
    i.amount_units,
    i.invoice_id ?? 'orphan',
  ]),
)}
${
  plan.skipped.length > 0
    ? table(
        'Not worth moving at this rate',
        ['Output', 'Amount'],
        plan.skipped.map((s) => [html`<code class="wrap">${s.tx_hash}</code> #${s.output_index}`, s.amount_units]),
      )
    : null
}
${plan.plan_file ? html`<h2>Plan file</h2><p class="note">Save it as <code>plan.json</code> and sign it offline.</p><pre class="wrap">${JSON.stringify(plan.plan_file, null, 2)}</pre>` : null}
${
  admin && plan.status === 'awaiting_signature'
    ? signedFileForm(req, at, 'Signed file', 'The signed file, or the signed PSBT or transaction your wallet exported')
    : null
}
${admin && plan.status === 'signed' ? actionButton(req, `${at}/broadcast`, 'Broadcast', { confirm: 'Broadcast this transaction now?' }) : null}
${admin && plan.status === 'broadcast' && plan.block_height === null && plan.kind !== 'accelerate' ? actionButton(req, `${at}/bump`, 'Bump the fee (RBF)') : null}
${admin && ['waiting_for_fee', 'awaiting_signature', 'signed'].includes(plan.status) ? actionButton(req, `${at}/cancel`, 'Cancel', { danger: true, confirm: 'Cancel this plan?' }) : null}`,
        );
      },
    },
    {
      method: 'POST',
      path: `${BASE}/plans/:planId/signed`,
      summary: 'Upload the signed file: verified to be exactly the plan before it is stored.',
      cli: ['treasury import'],
      handle: async (req) => {
        const plan = await services.treasurySignedImport.import(
          { planId: req.params['planId']!, text: req.form.text('signed', 'Signed file', { max: 1_000_000 }) },
          operatorScope(req),
          req.actor,
        );
        return redirect(`${BASE}/plans/${plan.id}`, 'The signed transaction is exactly the plan. Broadcast it when ready.');
      },
    },
    {
      method: 'POST',
      path: `${BASE}/plans/:planId/broadcast`,
      summary: 'Broadcast a signed plan.',
      cli: ['treasury broadcast'],
      handle: async (req) => {
        const plan = await services.treasuryTracker.broadcast(req.params['planId']!, operatorScope(req), req.actor);
        return redirect(`${BASE}/plans/${plan.id}`, `Broadcast: ${plan.txid}.`);
      },
    },
    {
      method: 'POST',
      path: `${BASE}/plans/:planId/bump`,
      summary: 'Replace a stuck broadcast sweep at the next-block fee (a new plan to sign).',
      cli: ['treasury bump'],
      handle: async (req) => {
        const plan = await services.treasuryPlans.bump(req.params['planId']!, {}, operatorScope(req), req.actor);
        return redirect(`${BASE}/plans/${plan.id}`, `Replacement plan ${plan.id}: sign it offline.`);
      },
    },
    {
      method: 'POST',
      path: `${BASE}/plans/:planId/cancel`,
      summary: 'Cancel a plan that was not broadcast.',
      cli: ['treasury cancel'],
      handle: async (req) => {
        const plan = await services.treasuryPlans.cancel(req.params['planId']!, operatorScope(req), req.actor);
        return redirect(`${BASE}/plans/${plan.id}`, 'The plan is cancelled; its outputs are free again.');
      },
    },
  ],
});
