import { coreErrors, html } from '@gw/kernel';
import { Readable } from 'node:stream';
import { actionButton, badge, csrfField, definePage, page, type PageServices, redirect, table, when } from '@gw/plugin-dashboard/contract';
import type { AccountPlanView } from '../account-plan-view.js';
import { ACCOUNT_METHODS, type AccountSweepInput } from '../services/account-plans.js';
import { minUnitsField, networkFields, operatorScope, signedFileForm } from './plan-form.js';
import { queryText } from './query-text.js';
import { recipientsTable } from './recipients-table.js';

/** What the page reads (ADR 0011). */
export const ACCOUNT_TREASURY_PAGE_DEPS = ['treasuryAccountPlans', 'treasuryAccountSignedImport', 'treasuryAccountBroadcaster'] as const;
type Services = PageServices<typeof ACCOUNT_TREASURY_PAGE_DEPS>;

const BASE = '/dashboard/treasury/accounts';

function method(value: string | undefined): AccountSweepInput['method'] | undefined {
  if (!value) return undefined;
  if (!(ACCOUNT_METHODS as readonly string[]).includes(value))
    throw coreErrors.validation_error({ message: `Unknown method ${value}.`, details: { field: 'method' } });
  return value as AccountSweepInput['method'];
}

function planRow(plan: AccountPlanView) {
  return [
    html`<a href="${BASE}/plans/${plan.id}"><code>${plan.id}</code></a>`,
    `${plan.chain} ${plan.network}`,
    `${plan.coin} · ${plan.kind === 'payout' ? `payout to ${plan.recipients.length}` : plan.method}`,
    badge(plan.status),
    `round ${plan.round}/${plan.rounds}`,
    plan.moved_units,
    plan.fee_units,
    when(plan.created_at_iso),
  ];
}

const SWEEP_FIELDS = (prefix: string, chain = '', network = '') => html`
<label for="${prefix}-chain">Chain</label><input id="${prefix}-chain" name="chain" required maxlength="40" value="${chain}">
<label for="${prefix}-network">Network</label><input id="${prefix}-network" name="network" required maxlength="40" value="${network}">
<label for="${prefix}-coin">Coin</label><input id="${prefix}-coin" name="coin" required maxlength="40">
<label for="${prefix}-to">Destination address</label><input id="${prefix}-to" name="to" required maxlength="200">
<label for="${prefix}-method">Method (empty: the cheapest)</label><select id="${prefix}-method" name="method"><option value="">cheapest</option>${ACCOUNT_METHODS.map((m) => html`<option>${m}</option>`)}</select>`;

/**
 * The account-chain treasury (issue 36): what each pool address of an EVM, TRON or TON network
 * holds, the gas each token address lacks and dust, each method's cost, sweep and activation
 * plans, each round's plan file to download and sign offline, upload of the signed file, broadcast
 * stage by stage, and cancellation. Writes go through the treasury's services as the signed-in
 * user, over the operator's projects only.
 */
export const accountTreasuryPage = definePage<Services>({
  id: 'treasury-accounts',
  nav: [{ label: 'Account treasury', scope: 'operator', path: BASE, order: 41 }],
  routes: (services) => [
    {
      method: 'GET',
      path: BASE,
      summary: 'What each pool address of an account-chain network holds (with the gas each token lacks and dust), account plans, and forms to quote and plan.',
      cli: ['treasury holdings', 'treasury sweepers'],
      render: async (req) => {
        const chain = req.query.get('chain')?.trim().slice(0, 40) ?? '';
        const network = req.query.get('network')?.trim().slice(0, 40) ?? '';
        const holdings = chain && network ? await services.treasuryAccountPlans.holdings({ chain, network }, operatorScope(req)) : null;
        const plans = await services.treasuryAccountPlans.list({ limit: 50 }, operatorScope(req));
        const sweepers = await services.treasuryAccountPlans.sweepers();
        const admin = req.user.role === 'admin';
        return page(
          'Account treasury',
          html`<h1>Account treasury</h1>
<p class="note">EVM chains, TRON and TON: every deposit address is its own account. A token cannot move until its address can pay for gas; the plans below gather it at the lowest cost a method allows, every key offline. Solana: payments land in the merchant’s own address, so there is nothing to gather; its balances and payouts are here too.</p>
<form method="get" action="${BASE}"><h2>Holdings</h2>
<label for="h-chain">Chain</label><input id="h-chain" name="chain" required maxlength="40" value="${chain}">
<label for="h-network">Network</label><input id="h-network" name="network" required maxlength="40" value="${network}">
<button type="submit">Show holdings</button></form>
${
  holdings
    ? table(
        `What each address holds on ${chain} ${network}`,
        ['Address', 'Balances (base units)', 'Gas lacking per token', 'Dust', 'Plan'],
        holdings.map((h) => [
          html`<code class="wrap">${h.address}</code>`,
          Object.entries(h.balances)
            .map(([coin, units]) => `${coin} ${units}`)
            .join(', '),
          h.tokens.map((t) => `${t.coin}: lacks ${t.gas_lacking_units} of ${t.move_cost_units}`).join(', ') || '—',
          h.tokens
            .filter((t) => t.dust)
            .map((t) => t.coin)
            .join(', ') || '—',
          h.plan_id ? html`<a href="${BASE}/plans/${h.plan_id}"><code>${h.plan_id}</code></a>` : '—',
        ]),
        'No pool address of this network received anything.',
      )
    : null
}
<form method="get" action="${BASE}/quote"><h2>Quote a sweep</h2>${SWEEP_FIELDS('q', chain, network)}<button type="submit">Quote each method</button></form>
<h2>Token sweepers</h2>
${table(
  'EIP-7702 token sweepers deployed and recorded, per destination',
  ['Network', 'Destination', 'Contract', 'Plan'],
  sweepers.map((w) => [
    `${w.chain} ${w.network}`,
    html`<code class="wrap">${w.destination}</code>`,
    html`<code class="wrap">${w.contract}</code>`,
    w.plan_id ? html`<a href="${BASE}/plans/${w.plan_id}"><code>${w.plan_id}</code></a>` : '—',
  ]),
  'No sweeper deployed through the treasury yet.',
)}
<h2>Plans</h2>
${table('Account plans, newest first', ['Plan', 'Network', 'Coin · method', 'Status', 'Round', 'Moved', 'Fees', 'Created'], plans.plans.map(planRow), 'No plans yet.')}
${
  admin
    ? html`<form method="post" action="${BASE}/plans"><h2>Plan a sweep</h2>${csrfField(req)}${SWEEP_FIELDS('s', chain, network)}
<label for="s-min">Only addresses holding at least (base units)</label><input id="s-min" name="min_units" inputmode="numeric" pattern="[0-9]*" maxlength="78">
<button type="submit">Plan</button></form>
<form method="post" action="${BASE}/sweepers"><h2>Deploy an EIP-7702 token sweeper</h2>${csrfField(req)}
<p class="note">EVM: one transaction from your gas address deploys a contract that sends every delegated address’s tokens to this destination, for good. Once confirmed, eip7702 sweeps to it use it.</p>
<label for="d-chain">Chain</label><input id="d-chain" name="chain" required maxlength="40" value="${chain}">
<label for="d-network">Network</label><input id="d-network" name="network" required maxlength="40" value="${network}">
<label for="d-to">Destination address</label><input id="d-to" name="to" required maxlength="200">
<button type="submit">Plan the deployment</button></form>
<form method="post" action="${BASE}/activations"><h2>Activate new TRON addresses</h2>${csrfField(req)}
<p class="note">One batch from your funding address activates every pool address not yet on chain.</p>
<label for="a-chain">Chain</label><input id="a-chain" name="chain" required maxlength="40" value="tron">
<label for="a-network">Network</label><input id="a-network" name="network" required maxlength="40">
<button type="submit">Plan the activation</button></form>`
    : null
}`,
        );
      },
    },
    {
      method: 'GET',
      path: `${BASE}/quote`,
      summary: 'What each sweep method would cost to gather a coin now: fees, what the operator accounts pay, steps and signing rounds.',
      cli: ['treasury quote'],
      render: async (req) => {
        const input: AccountSweepInput = {
          chain: queryText(req, 'chain', 40),
          network: queryText(req, 'network', 40),
          coin: queryText(req, 'coin', 40),
          destination: queryText(req, 'to', 200),
          ...(method(req.query.get('method') ?? undefined) ? { method: method(req.query.get('method') ?? undefined)! } : {}),
        };
        const quoted = await services.treasuryAccountPlans.quote(input, operatorScope(req));
        return page(
          `Quote: ${input.coin} on ${input.chain} ${input.network}`,
          html`<h1>Quote: ${input.coin} on ${input.chain} ${input.network}</h1>
<p class="note">${quoted.sources} address(es) hold it outside open plans. Fees are in the chain’s native coin (base units).</p>
${table(
  'Each method',
  ['Method', 'Available', 'Moves', 'Fees', 'Operator pays', 'Steps', 'Rounds'],
  quoted.quotes.map((q) => [q.method, q.available ? 'yes' : html`no: ${q.reason ?? ''}`, q.moved_units, q.fee_units, q.operator_pays_units, q.steps, q.rounds]),
)}`,
        );
      },
    },
    {
      method: 'POST',
      path: `${BASE}/plans`,
      summary: 'Plan a sweep of a coin from every pool address of the operator’s projects holding it.',
      cli: ['treasury sweep'],
      handle: async (req) => {
        const minUnits = minUnitsField(req.form);
        const chosen = method(req.form.optional('method', 'Method', { max: 40 }) ?? undefined);
        const plan = await services.treasuryAccountPlans.sweep(
          {
            ...networkFields(req.form),
            coin: req.form.text('coin', 'Coin', { max: 40 }),
            destination: req.form.text('to', 'Destination', { max: 200 }),
            ...(chosen ? { method: chosen } : {}),
            ...(minUnits === undefined ? {} : { minUnits }),
          },
          operatorScope(req),
          req.actor,
        );
        return redirect(`${BASE}/plans/${plan.id}`, `Plan ${plan.id} (${plan.method}): ${plan.steps.length} step(s). Download its file and sign it offline.`);
      },
    },
    {
      method: 'POST',
      path: `${BASE}/sweepers`,
      summary: 'EVM: plan the deployment of the EIP-7702 token sweeper for a destination, from the gas address.',
      cli: ['treasury sweeper-deploy'],
      handle: async (req) => {
        const plan = await services.treasuryAccountPlans.sweeperDeployment(
          { ...networkFields(req.form), destination: req.form.text('to', 'Destination address', { max: 200 }) },
          operatorScope(req),
          req.actor,
        );
        return redirect(
          `${BASE}/plans/${plan.id}`,
          `Sweeper deployment plan ${plan.id}: the contract will be ${plan.steps[0]?.to ?? ''}. Download its file and sign it offline.`,
        );
      },
    },
    {
      method: 'POST',
      path: `${BASE}/activations`,
      summary: 'TRON: plan the activation of every pool address not yet on chain, from the funding address.',
      cli: ['treasury activate'],
      handle: async (req) => {
        const plan = await services.treasuryAccountPlans.activation(networkFields(req.form), operatorScope(req), req.actor);
        return redirect(`${BASE}/plans/${plan.id}`, `Activation plan ${plan.id}: ${plan.addresses.length} address(es).`);
      },
    },
    {
      method: 'GET',
      path: `${BASE}/plans/:planId`,
      summary: 'One account plan: its steps by round and stage, the plan file of the round awaited, upload of the signed file, broadcast, cancel.',
      render: async (req) => {
        const plan = await services.treasuryAccountPlans.get(req.params['planId']!, operatorScope(req));
        const admin = req.user.role === 'admin';
        const at = `${BASE}/plans/${plan.id}`;
        return page(
          `Plan ${plan.id}`,
          html`<h1>Plan <code>${plan.id}</code> ${badge(plan.status)}</h1>
<dl class="facts"><dt>Network</dt><dd>${plan.chain} ${plan.network}</dd><dt>Coin · method</dt><dd>${plan.coin} · ${plan.method}</dd>
<dt>Destination</dt><dd><code class="wrap">${plan.destination}</code></dd><dt>Moves</dt><dd>${plan.moved_units}</dd>
<dt>Fees</dt><dd>${plan.fee_units} (operator accounts pay ${plan.operator_pays_units})</dd>
<dt>Round</dt><dd>${plan.round} of ${plan.rounds}</dd><dt>Stage</dt><dd>${plan.stage ?? 'not broadcast'}</dd>
${plan.failure ? html`<dt>Why</dt><dd>${plan.failure}</dd>` : null}</dl>
${recipientsTable(plan.recipients)}
${table(
  'Steps',
  ['Step', 'Round', 'Stage', 'Signer', 'Status', 'Transaction'],
  plan.steps.map((s) => [
    html`${s.id}<br><span class="note">${s.description}</span>`,
    s.round,
    s.stage,
    html`<code class="wrap">${s.signer.address}</code> ${s.signer.role ?? s.signer.kind}`,
    html`${badge(s.status)}${s.signed_by === 'hot_gas_wallet' ? ' (hot gas wallet)' : ''}`,
    s.txid ? html`<code class="wrap">${s.txid}</code>` : '—',
  ]),
)}
${
  plan.status === 'awaiting_signature'
    ? html`<p><a href="${at}/file" download>Download the plan file of round ${plan.round}</a>: sign it offline with <code>gateway-signer</code>.</p>`
    : null
}
${admin && plan.status === 'awaiting_signature' ? signedFileForm(req, at, `Signed file of round ${plan.round}`, 'The signed file') : null}
${admin && plan.status === 'signed' ? actionButton(req, `${at}/broadcast`, 'Broadcast', { confirm: 'Check the nonces and broadcast the first stage now?' }) : null}
${admin && ['awaiting_signature', 'signed'].includes(plan.status) ? actionButton(req, `${at}/cancel`, 'Cancel', { danger: true, confirm: 'Cancel this plan?' }) : null}`,
        );
      },
    },
    {
      method: 'GET',
      path: `${BASE}/plans/:planId/file`,
      summary: 'Download the plan file of the round awaited.',
      render: async (req) => {
        const file = await services.treasuryAccountPlans.planFile(req.params['planId']!, operatorScope(req));
        return {
          kind: 'download',
          filename: `plan-${file.plan_id}-round-${file.round}.json`,
          contentType: 'application/json; charset=utf-8',
          body: Readable.from([`${JSON.stringify(file, null, 2)}\n`]),
        };
      },
    },
    {
      method: 'POST',
      path: `${BASE}/plans/:planId/signed`,
      summary: 'Upload a round’s signed file: each step verified before anything is stored.',
      handle: async (req) => {
        const plan = await services.treasuryAccountSignedImport.import(
          { planId: req.params['planId']!, text: req.form.text('signed', 'Signed file', { max: 4_000_000 }) },
          operatorScope(req),
          req.actor,
        );
        return redirect(
          `${BASE}/plans/${plan.id}`,
          plan.status === 'signed' ? 'Every step is signed and verified. Broadcast it when ready.' : `Round verified; the plan awaits round ${plan.round}.`,
        );
      },
    },
    {
      method: 'POST',
      path: `${BASE}/plans/:planId/broadcast`,
      summary: 'Broadcast a signed account plan: nonces checked, then the first stage.',
      handle: async (req) => {
        const plan = await services.treasuryAccountBroadcaster.broadcast(req.params['planId']!, operatorScope(req), req.actor);
        return redirect(`${BASE}/plans/${plan.id}`, `Stage ${plan.stage} broadcast; later stages follow as each confirms.`);
      },
    },
    {
      method: 'POST',
      path: `${BASE}/plans/:planId/cancel`,
      summary: 'Cancel an account plan that was not broadcast.',
      handle: async (req) => {
        const plan = await services.treasuryAccountPlans.cancel(req.params['planId']!, operatorScope(req), req.actor);
        return redirect(`${BASE}/plans/${plan.id}`, 'The plan is cancelled; its addresses are free again.');
      },
    },
  ],
});
