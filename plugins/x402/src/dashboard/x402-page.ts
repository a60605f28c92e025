import { html, type SafeHtml } from '@gw/kernel';
import {
  badge,
  type BadgeTone,
  definePage,
  type FilterField,
  filterForm,
  page,
  type PageServices,
  readFilters,
  table,
  when,
} from '@gw/plugin-dashboard/contract';
import { nativeText } from '../operator/native-amount.js';
import { SETTLEMENT_STATUSES, settlementRow, type SettlementRow, type SettlementStatus } from '../operator/settlement-rows.js';
import { X402_STATUS_DEPS, x402Status, type FacilitatorStatus, type GasWalletStatus, type X402StatusView } from '../operator/x402-status.js';

/** What the page reads (ADR 0011): the plugin contributes it with `dashboardPages(X402_PAGE_DEPS, [x402Page])`. */
export const X402_PAGE_DEPS = [...X402_STATUS_DEPS, 'x402Settlements', 'tenancyProjects'] as const;
type Services = PageServices<typeof X402_PAGE_DEPS>;

const BASE = '/dashboard/x402';
/** Settlements the page shows, newest first (the CLI lists up to 200 with `--limit`). */
const SHOWN = 50;

const MODES: Readonly<Record<X402StatusView['settlement'], string>> = {
  off: 'off: x402 is not offered',
  gas_wallet: 'gas wallet: the gateway’s own capped gas wallets pay the gas of settlements',
  facilitator: 'external facilitator: it settles, the gateway holds no key',
};

const STATUS_TONES: Readonly<Record<SettlementStatus, BadgeTone>> = { submitted: 'waiting', settled: 'good', pending: 'waiting', failed: 'bad' };

/**
 * x402 here (issue 41), what `gateway x402 status` and `gateway x402 settlements` print: the
 * settlement mode, the coins payable per network, the gas wallets (address, balance, spent in the
 * last 24 hours, caps; in the native coin), the external facilitator and whether it answers, and
 * the latest settlements of the user's operator's projects (another operator's are never shown;
 * the CLI lists them all). Mode, assets, gas wallets and facilitator are the deployment's, like the
 * watchers' providers.
 */
export const x402Page = definePage<Services>({
  nav: { label: 'x402', scope: 'operator', path: BASE, order: 47 },
  cli: ['x402 status', 'x402 settlements'],
  summary: 'x402: settlement mode, payable coins, gas wallets (balance, spend, caps), the external facilitator, and the latest settlements.',
  render: async (req) => {
    const { services } = req;
    const projects = new Map((await services.tenancyProjects.list({ operator: req.user.operatorId })).map((p) => [p.id, p.name]));
    const fields: readonly FilterField[] = [
      { name: 'project', label: 'Project', choices: [...projects.keys()], labels: projects },
      { name: 'status', label: 'Status', choices: SETTLEMENT_STATUSES },
    ];
    const filters = readFilters(req, fields);
    const status = filters['status'] as SettlementStatus | undefined;
    const chosen = filters['project'] ? [filters['project']] : [...projects.keys()];
    const [view, lists] = await Promise.all([
      x402Status(services),
      Promise.all(chosen.map((projectId) => services.x402Settlements.list({ projectId, ...(status ? { status } : {}), limit: SHOWN }))),
    ]);
    const settlements = lists
      .flat()
      .sort((a, b) => (a.created_at_iso < b.created_at_iso ? 1 : a.created_at_iso > b.created_at_iso ? -1 : b.id.localeCompare(a.id)))
      .slice(0, SHOWN)
      .map((s) => settlementRow(services.chains, s));
    return page(
      'x402',
      html`<h1>x402</h1>
<p class="note">Agents pay invoices, checkout sessions, partners’ APIs and paid MCP tools with x402: they sign a USDC authorization (EIP-3009) and the gateway settles it into the invoice’s own deposit address. The invoice turns paid only when the watchers see the transfer, like any payment (docs/x402.md).</p>
<h2>Settlement</h2>
${settlementFacts(view)}
<h2>Payable coins</h2>
${table(
  'Coins payable with x402, per network',
  ['Coin', 'Network', 'Token contract', 'EIP-712 domain'],
  view.assets.map((a) => [
    a.coin,
    html`${a.chain} ${a.network}<br><code>${a.caip}</code>`,
    html`<code class="wrap">${a.asset}</code>`,
    `${a.eip712.name}, version ${a.eip712.version}`,
  ]),
  view.settlement === 'off'
    ? 'None: plugins.x402.settlement is off.'
    : 'None: no watched network has a token implementing EIP-3009' + (view.settlement === 'gas_wallet' ? ' and a gas wallet.' : '.'),
)}
<h2>Gas wallets</h2>
<p class="note">Custody of gas money only, never of payments: a settlement moves the payer’s tokens straight into the invoice’s address, and the wallet pays its gas under two caps, per settlement and per 24 hours (every instance counted). A settlement the caps would exceed is refused before anything is sent (<code>unexpected_settle_error</code>).</p>
${view.gas_wallets_error ? html`<p class="warning">The gas wallets could not be read: ${view.gas_wallets_error}</p>` : null}
${table(
  'Gas wallets',
  ['Network', 'Address', 'Balance', 'Spent in 24 h', 'Cap per settlement', 'Cap per 24 h', 'Settlements the balance pays'],
  view.gas_wallets.map((w) => [
    `${w.chain} ${w.network}`,
    html`<code class="wrap">${w.address}</code>`,
    w.balance ? nativeText(w.balance) : html`<span class="warning">unknown: the network is not watched here or its node did not answer</span>`,
    html`${nativeText(w.spent_24h)}<br><span class="note">${nativeText(w.day_left)} left</span>`,
    nativeText(w.max_per_settlement),
    nativeText(w.max_per_day),
    coveredCell(w),
  ]),
  view.gas_wallets_error ? 'Not read.' : 'No gas wallet is configured (plugins.x402.gasWallets).',
)}
<h2>External facilitator</h2>
${facilitatorSection(view.facilitator)}
<h2 id="settlements">Latest settlements</h2>
<p class="note">Of your projects, newest first. A settlement never credits an invoice by itself: the watchers see the transfer and the invoice follows its lifecycle. Refusals (a cap, a replay, a bad signature) send nothing and leave no row: the agent got the reason.</p>
${filterForm(BASE, fields, filters, 'Settlement filters')}
${table(
  'x402 settlements, newest first',
  ['Created', 'Invoice', 'Network', 'Payer', 'Amount', 'Settled by', 'Status', 'Transaction'],
  settlements.map((s) => [
    when(s.created_at_iso),
    html`<a href="/dashboard/projects/${s.project_id}/invoices/${s.invoice_id}"><code>${s.invoice_id}</code></a><br>${projects.get(s.project_id) ?? s.project_id} (${s.source})`,
    `${s.chain} ${s.network}`,
    html`<code class="wrap">${s.payer}</code>`,
    `${s.amount} ${s.coin}`,
    settledBy(s),
    statusCell(s),
    s.tx_hash ? html`<code class="wrap">${s.tx_hash}</code>` : '—',
  ]),
  status || filters['project'] ? 'No settlement matches.' : 'No settlement yet.',
)}`,
    );
  },
});

function settlementFacts(view: X402StatusView): SafeHtml {
  return html`<dl class="facts"><dt>Mode</dt><dd>${MODES[view.settlement]} (<code>${view.settlement}</code>)</dd><dt>Validity window offered</dt><dd>${String(view.max_timeout_seconds)} s</dd><dt>Wait for a settlement’s receipt</dt><dd>${String(view.receipt_wait_seconds)} s</dd><dt>Fresh payTo per project</dt><dd>${String(view.pay_to_per_minute)} per minute</dd><dt>Paid MCP tools</dt><dd>${
    view.paid_tools.length === 0 ? 'none' : view.paid_tools.map((t, i) => html`${i === 0 ? null : html`<br>`}<code>${t.tool}</code>: ${t.amount} ${t.coin}`)
  }</dd></dl>`;
}

function coveredCell(w: GasWalletStatus): SafeHtml | string {
  if (w.settlements_covered === null) return '—';
  return w.settlements_covered === '0'
    ? html`${badge('0', 'bad')} <span class="warning">below one settlement at the cap: top it up</span>`
    : w.settlements_covered;
}

function facilitatorSection(f: FacilitatorStatus | null): SafeHtml {
  if (!f) return html`<p class="empty">None configured (plugins.x402.facilitator).</p>`;
  return html`<dl class="facts"><dt>URL</dt><dd><code class="wrap">${shownUrl(f.url)}</code></dd><dt>Used</dt><dd>${f.in_use ? 'yes: it settles every x402 payment' : 'no: settlement is not facilitator'}</dd><dt>/supported</dt><dd>${
    f.answers ? badge('answers', 'good') : html`${badge('no answer', 'bad')} ${f.error ?? ''}`
  }</dd><dt>Networks (x402 v2 exact)</dt><dd>${f.networks.length === 0 ? 'none' : f.networks.join(', ')}${
    f.missing_networks.length > 0 ? html`<br><span class="warning">not listed, though payable here: ${f.missing_networks.join(', ')}</span>` : null
  }</dd><dt>Signers</dt><dd>${f.signers.length === 0 ? 'none' : f.signers.map((s, i) => html`${i === 0 ? null : html`<br>`}<code class="wrap">${s}</code>`)}</dd></dl>`;
}

/** The facilitator's address without a user, password or query (a credential may ride in them). */
function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return 'unreadable URL';
  }
}

function settledBy(s: SettlementRow): SafeHtml | string {
  if (s.mode === 'facilitator') return 'external facilitator';
  if (!s.gas_address) return 'gas wallet';
  return html`gas wallet <code class="wrap">${s.gas_address}</code>${s.spend ? html`<br>up to ${nativeText(s.spend)} gas` : null}`;
}

function statusCell(s: SettlementRow): SafeHtml {
  const tone = STATUS_TONES[s.status as SettlementStatus] ?? 'waiting';
  const settled = s.settled_at_iso ? html`<br>${when(s.settled_at_iso)}` : null;
  const error = s.error_reason ? html`<br><code>${s.error_reason}</code>` : null;
  return html`${badge(s.status, tone)}${settled}${error}`;
}
