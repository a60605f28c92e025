import { html } from '@gw/kernel';
import {
  actionButton,
  badge,
  csrfField,
  type DashboardRequest,
  definePage,
  page,
  type PageServices,
  redirect,
  table,
  when,
} from '@gw/plugin-dashboard/contract';
import type { PlanView } from '../plan-view.js';
import type { TreasuryScope } from '../services/treasury-scope.js';

/** What the page reads (ADR 0011). */
export const TREASURY_PAGE_DEPS = ['treasuryBalances', 'treasuryPlans', 'treasurySignedImport', 'treasuryTracker'] as const;
type Services = PageServices<typeof TREASURY_PAGE_DEPS>;

const BASE = '/dashboard/treasury';
const scopeOf = (req: DashboardRequest<Services>): TreasuryScope => ({ operatorId: req.user.operatorId });

function planRow(plan: PlanView) {
  return [
    html`<a href="${BASE}/plans/${plan.id}"><code>${plan.id}</code></a>`,
    `${plan.chain} ${plan.network}`,
    badge(plan.status),
    html`${plan.value_units} <span class="unit">base units</span>`,
    plan.fee_units === null ? '—' : html`${plan.fee_units} (${plan.fee_percent} %)`,
    html`<code class="wrap">${plan.destination}</code> ${plan.destination_kind}`,
    when(plan.created_at_iso),
  ];
}

/**
 * The operator's treasury (issue 35): balances per chain network, plans, a plan's file to sign
 * offline, upload of the signed file, broadcast, bump and cancel. Writes go through the treasury's
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
        const balances = await services.treasuryBalances.balances({ groupBy: 'network', limit: 100 }, scopeOf(req));
        const plans = await services.treasuryPlans.list({ limit: 50 }, scopeOf(req));
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
<h2>Plans</h2>
${table('Plans, newest first', ['Plan', 'Network', 'Status', 'Value', 'Fee', 'Destination', 'Created'], plans.plans.map(planRow), 'No plans yet.')}
${
  admin
    ? html`<h2>Plan a sweep</h2>
<form method="post" action="${BASE}/plans">${csrfField(req)}
<label for="tr-chain">Chain</label><input id="tr-chain" name="chain" required maxlength="40">
<label for="tr-network">Network</label><input id="tr-network" name="network" required maxlength="40">
<label for="tr-to">Destination: <code>own</code> or an external address</label><input id="tr-to" name="to" required maxlength="200">
<label for="tr-min">Only outputs worth at least (base units)</label><input id="tr-min" name="min_units" inputmode="numeric" pattern="[0-9]*" maxlength="78">
<label for="tr-rate">Fee rate (base units per size unit; empty: configured or estimated)</label><input id="tr-rate" name="fee_rate" inputmode="numeric" pattern="[0-9]*" maxlength="30">
<button type="submit">Plan</button></form>`
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
        const min = req.form.optional('min_units', 'Minimum', { max: 78 });
        const rate = req.form.optional('fee_rate', 'Fee rate', { max: 30 });
        const plan = await services.treasuryPlans.sweep(
          {
            chain: req.form.text('chain', 'Chain', { max: 40 }),
            network: req.form.text('network', 'Network', { max: 40 }),
            select: min && /^\d+$/.test(min) ? { minUnits: BigInt(min) } : {},
            destination: to === 'own' ? { kind: 'own' } : { kind: 'external', address: to },
            ...(rate && /^\d+$/.test(rate) ? { feeRate: BigInt(rate) } : {}),
          },
          scopeOf(req),
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
      path: `${BASE}/plans/:planId`,
      summary: 'One plan: inputs, fee, status and its plan file; upload the signed file, broadcast, bump or cancel.',
      cli: ['treasury show'],
      render: async (req) => {
        const plan = await services.treasuryPlans.get(req.params['planId']!, scopeOf(req));
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
    ? html`<h2>Signed file</h2><form method="post" action="${at}/signed">${csrfField(req)}<label for="signed">The signed file, or the signed PSBT or transaction your wallet exported</label><textarea id="signed" name="signed" required rows="6"></textarea><button type="submit">Verify and store</button></form>`
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
          scopeOf(req),
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
        const plan = await services.treasuryTracker.broadcast(req.params['planId']!, scopeOf(req), req.actor);
        return redirect(`${BASE}/plans/${plan.id}`, `Broadcast: ${plan.txid}.`);
      },
    },
    {
      method: 'POST',
      path: `${BASE}/plans/:planId/bump`,
      summary: 'Replace a stuck broadcast sweep at the next-block fee (a new plan to sign).',
      cli: ['treasury bump'],
      handle: async (req) => {
        const plan = await services.treasuryPlans.bump(req.params['planId']!, {}, scopeOf(req), req.actor);
        return redirect(`${BASE}/plans/${plan.id}`, `Replacement plan ${plan.id}: sign it offline.`);
      },
    },
    {
      method: 'POST',
      path: `${BASE}/plans/:planId/cancel`,
      summary: 'Cancel a plan that was not broadcast.',
      cli: ['treasury cancel'],
      handle: async (req) => {
        const plan = await services.treasuryPlans.cancel(req.params['planId']!, scopeOf(req), req.actor);
        return redirect(`${BASE}/plans/${plan.id}`, 'The plan is cancelled; its outputs are free again.');
      },
    },
  ],
});
