import { html, isUlid, type SafeHtml } from '@gw/kernel';
import {
  actionButton,
  badge,
  csrfField,
  type DashboardRequest,
  definePage,
  type FilterField,
  filterForm,
  page,
  type PageServices,
  readFilters,
  redirect,
  table,
  when,
} from '@gw/plugin-dashboard/contract';
import { watchersErrors } from '../errors.js';
import type { Disagreement, DisagreementStatus, ProviderMark } from '../services/disagreement-desk.js';
import { DECISION_REASON_MAX, isRipe } from '../services/disagreement-view.js';
import { providerOverview, type NetworkProvidersView, type ProviderView, type RateLimitView } from '../services/provider-overview.js';

/** What the page reads (ADR 0011): its plugin contributes it with `dashboardPages(WATCHERS_PAGE_DEPS, [...])`. */
export const WATCHERS_PAGE_DEPS = [
  'chains',
  'watchersRegistry',
  'watchersConfig',
  'watchersProviderUsage',
  'watchersDisagreements',
  'watchersStatus',
  'tenancyProjects',
] as const;
type Services = PageServices<typeof WATCHERS_PAGE_DEPS>;
type Request = DashboardRequest<Services>;

const BASE = '/dashboard/watchers';
const STATUSES: readonly DisagreementStatus[] = ['open', 'resolved', 'accepted', 'rejected'];
/** The newest disagreements of the deployment the page looks at (the CLI lists any). */
const DISAGREEMENTS_READ = 200;

const FILTERS: readonly FilterField[] = [{ name: 'status', label: 'Status', choices: STATUSES }];

/**
 * The deployment's watchers (issue 40): every watched chain network with its providers (operator,
 * kind, limit, usage, mark) and, for administrators, "Clear mark"; the disagreements between
 * providers about payments to the operator's own projects, with Accept and Reject once they are
 * ripe. Providers and marks are the deployment's (like the overview's watchers and rates); a
 * disagreement names an address, a transaction and an invoice, so another operator's is never
 * shown nor decided here (`gateway watcher disagreements` lists them all).
 */
export const watchersPage = definePage<Services>({
  nav: { label: 'Watchers', scope: 'operator', path: BASE, order: 45 },
  cli: ['watcher providers', 'watcher disagreements'],
  summary:
    "Providers per watched network (operator, limit, usage, mark) and the disagreements between them about the operator's payments; decide, clear a mark.",
  render: async (req) => {
    const { services } = req;
    const filters = readFilters(req, FILTERS);
    const status = filters['status'] as DisagreementStatus | undefined;
    const [overview, listed, marks] = await Promise.all([
      providerOverview(services),
      services.watchersDisagreements.list({ ...(status ? { status } : {}), limit: DISAGREEMENTS_READ }),
      services.watchersDisagreements.marks(),
    ]);
    const [projects, caughtIn] = await Promise.all([ownProjects(req), markProjects(services, marks)]);
    const disagreements = listed.filter((d) => projects.has(d.projectId));
    // A mark's reason names the transfer that caught it: shown to the operator whose payment it was.
    const reasonShown = (mark: NonNullable<ProviderView['mark']>) => mark.disagreement_id === null || projects.has(caughtIn.get(mark.disagreement_id) ?? '');
    const admin = req.user.role === 'admin';
    const now = new Date();
    return page(
      'Watchers',
      html`<h1>Watchers</h1>
<p class="note">The providers each watched chain network reads, how close the gateway runs to their limits, and where they disagreed. A transfer counts toward <em>paid</em> only when the network's quorum of independent providers (different operators) report it in the same block at the confirmation threshold; a provider caught reporting a transfer the others do not have is marked, passed over and no longer counted until an administrator clears its mark.</p>
${overview.note ? html`<p class="warning">${overview.note}</p>` : null}
${overview.networks.length === 0 ? html`<p class="empty">No chain network is watched: no payment would be seen (docs/watchers.md).</p>` : null}
${overview.networks.map((network) => networkSection(req, network, admin, reasonShown))}
<h2 id="disagreements">Disagreements between providers</h2>
<p class="note">About payments to your projects. The invoice waits (it stays confirming) while providers disagree; it goes on by itself when the quorum agrees later. After ${String(services.watchersConfig.disagreementDecisionSeconds)} s an administrator may accept the transfer (it counts toward paid) or reject it (it is dropped: the invoice no longer counts it, as a transaction that never made it into a block). Check the transaction yourself first: a block explorer you trust, your own node.</p>
${filterForm(BASE, FILTERS, filters, 'Disagreement filters')}
${table(
  'Disagreements, newest first',
  ['Opened', 'Network', 'Transfer', 'Invoice', 'Reported by', 'Against', 'Status', 'Decision'],
  disagreements.map((d) => [
    when(d.openedAt.toISOString()),
    `${d.chain} ${d.network}`,
    html`<code class="wrap">${d.txHash}</code> #${String(d.outputIndex)}<br>${d.amountUnits} <span class="unit">${d.coin} base units</span> to <code class="wrap">${d.toAddress}</code><br>block ${String(d.blockHeight)} <code class="wrap">${d.blockHash}</code>`,
    invoiceCell(projects, d),
    d.reportedBy.join(', ') || '—',
    against(d),
    statusCell(d, now),
    decisionCell(req, d, admin, now),
  ]),
  status ? `No ${status} disagreement about your payments.` : 'No disagreement about your payments.',
)}`,
    );
  },
  actions: {
    '/decide': {
      cli: ['watcher decide'],
      summary: 'Accept or reject a disagreement between providers once it is ripe, with the reason (administrators).',
      handle: async (req) => {
        const id = req.form.text('id', 'Disagreement', { max: 26 });
        const decision = req.form.choice('decision', 'Decision', ['accept', 'reject'] as const);
        const reason = req.form.text('reason', 'Reason for the decision', { max: DECISION_REASON_MAX });
        const desk = req.services.watchersDisagreements;
        if (!isUlid(id)) throw watchersErrors.disagreement_not_found();
        // Another operator's payment is not one this user may know of.
        if (!(await ownProjects(req)).has((await desk.get(id)).projectId)) throw watchersErrors.disagreement_not_found();
        const decided = await desk.decide(id, decision, req.actor, reason);
        return redirect(
          `${BASE}#disagreements`,
          decided.status === 'accepted'
            ? `Accepted: the transfer ${decided.txHash} #${decided.outputIndex} counts toward its invoice.`
            : `Rejected: the transfer ${decided.txHash} #${decided.outputIndex} is dropped.`,
        );
      },
    },
    '/unmark': {
      cli: ['watcher unmark'],
      summary: "Clear a provider's mark: it is asked again and its word counts toward the quorum again (administrators).",
      handle: async (req) => {
        const chain = req.form.choice('chain', 'Chain', req.services.chains.chainIds());
        const network = req.form.text('network', 'Network', { max: 40 });
        const provider = req.form.text('provider', 'Provider', { max: 200 });
        await req.services.watchersDisagreements.unmark(chain, network, provider, req.actor);
        return redirect(BASE, `The mark of ${provider} on ${chain} ${network} is cleared: it is asked again and counts toward the quorum.`);
      },
    },
  },
});

/** The user's operator's projects, by id: their disagreements are the ones the user may see and decide. */
async function ownProjects(req: Request): Promise<Map<string, string>> {
  return new Map((await req.services.tenancyProjects.list({ operator: req.user.operatorId })).map((p) => [p.id, p.name]));
}

/** The project of the disagreement that caught each mark (by disagreement id), so a mark's reason is shown only to the operator whose payment caught it. */
async function markProjects(services: Services, marks: readonly ProviderMark[]): Promise<Map<string, string>> {
  const ids = [...new Set(marks.flatMap((m) => (m.disagreementId === null ? [] : [m.disagreementId])))];
  const found = await Promise.all(ids.map((id) => services.watchersDisagreements.get(id)));
  return new Map(found.map((d) => [d.id, d.projectId]));
}

function networkSection(
  req: Request,
  network: NetworkProvidersView,
  admin: boolean,
  reasonShown: (mark: NonNullable<ProviderView['mark']>) => boolean,
): SafeHtml {
  const definition = req.services.chains.get(network.chain).definition.networks;
  const name = [definition.mainnet, ...definition.testnets].find((n) => n.id === network.network)?.name ?? network.network;
  return html`<h2>${name} <span class="note">(${network.chain} ${network.network})</span></h2>
<p>${originText(network)} Quorum <strong>${String(network.quorum)}</strong> of ${String(network.operators)} independent operator(s)${network.quorum === 1 ? ': the scanning provider’s word suffices' : ''}.${network.idle ? ' Not scanned until a pool address waits on this network.' : ''}</p>
${table(
  `Providers of ${network.chain} ${network.network}`,
  ['Provider', 'Operator', 'Kind', 'Limit', 'Requests (every instance)', 'Mark', ...(admin ? ['Action'] : [])],
  network.providers.map((p) => [
    p.url ? html`${p.name}<br><code class="wrap">${p.url}</code>` : p.name,
    p.operator,
    p.kind ?? '—',
    p.limit ? html`${limitText(p.limit)}<br>paced at ${limitText(p.paced_at)}` : 'unlimited',
    usageCell(p),
    markCell(p, reasonShown),
    ...(admin
      ? [
          p.mark
            ? actionButton(req, `${BASE}/unmark`, `Clear mark of ${p.name}`, {
                hidden: { chain: network.chain, network: network.network, provider: p.name },
                confirm: `Clear the mark of ${p.name}? Its word counts toward the quorum again.`,
              })
            : '—',
        ]
      : []),
  ]),
  'No provider.',
)}`;
}

function originText(network: NetworkProvidersView): string {
  switch (network.origin) {
    case 'public':
      return 'The chain’s public providers (no key; configure none and these are used).';
    case 'joined':
      return 'Your configured providers, then the chain’s public ones.';
    default:
      return 'Your configured providers.';
  }
}

function limitText(limit: RateLimitView | null): string {
  if (!limit) return 'unlimited';
  return `${String(limit.requests_per_second)}/s${limit.requests_per_day === null ? '' : `, ${String(limit.requests_per_day)}/day`}`;
}

function usageCell(provider: ProviderView): SafeHtml | string {
  const { usage } = provider;
  if (!usage) return provider.limit ? 'not asked yet' : '— (no limit to pace)';
  return html`${String(usage.last_minute)} in the last minute, ${String(usage.today)} today<br>${(usage.share_of_limit * 100).toFixed(1)} % of the pace${
    usage.resting_until ? html`<br><span class="warning">resting until ${when(usage.resting_until)}</span>` : null
  }`;
}

function markCell(provider: ProviderView, reasonShown: (mark: NonNullable<ProviderView['mark']>) => boolean): SafeHtml | string {
  const { mark } = provider;
  if (!mark) return 'no';
  return html`${badge('marked', 'bad')} ${when(mark.marked_at)}<br><span class="wrap">${reasonShown(mark) ? mark.reason : 'caught on a payment outside your projects'}</span>`;
}

function invoiceCell(projects: ReadonlyMap<string, string>, d: Disagreement): SafeHtml {
  const name = projects.get(d.projectId) ?? d.projectId;
  return d.invoiceId === null
    ? html`none (no invoice took it)<br>${name}`
    : html`<a href="/dashboard/projects/${d.projectId}/invoices/${d.invoiceId}"><code>${d.invoiceId}</code></a><br>${name}`;
}

function against(d: Disagreement): SafeHtml | string {
  const parts: SafeHtml[] = [];
  if (d.deniedBy.length > 0) parts.push(html`not in the block: ${d.deniedBy.join(', ')}`);
  if (d.otherBranch.length > 0) parts.push(html`another block: ${d.otherBranch.join(', ')}`);
  if (d.lagging.length > 0) parts.push(html`behind: ${d.lagging.join(', ')}`);
  return parts.length === 0 ? '—' : html`${parts.map((p, i) => (i === 0 ? p : html`<br>${p}`))}`;
}

function statusCell(d: Disagreement, now: Date): SafeHtml {
  const tone = d.status === 'open' ? 'waiting' : d.status === 'rejected' ? 'bad' : 'good';
  if (d.status !== 'open') return badge(d.status, tone);
  return isRipe(d, now) ? html`${badge('open', tone)}<br>awaits a decision` : html`${badge('open', tone)}<br>decide from ${when(d.decideAfter.toISOString())}`;
}

function decisionCell(req: Request, d: Disagreement, admin: boolean, now: Date): SafeHtml | string {
  if (d.decidedAt) return html`${when(d.decidedAt.toISOString())} by ${d.decidedBy ?? '—'}${d.reason ? html`<br>${d.reason}` : null}`;
  if (!admin || !isRipe(d, now)) return '—';
  const field = `reason-${d.id}`;
  return html`<form class="inline-form" method="post" action="${BASE}/decide">${csrfField(req)}<input type="hidden" name="id" value="${d.id}"><label for="${field}">Reason for the decision</label><input id="${field}" name="reason" required maxlength="${String(DECISION_REASON_MAX)}"><button type="submit" name="decision" value="accept">Accept (count it)</button> <button type="submit" name="decision" value="reject" class="danger">Reject (drop it)</button></form>`;
}
