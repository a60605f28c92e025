import { html, type SafeHtml } from '@gw/kernel';
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
  'invoicesService',
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
    const caughtBy = await markInvoices(services, marks);
    const scope = await operatorScope(req, [...listed.map((d) => d.invoiceId), ...caughtBy.values()]);
    const disagreements = listed.filter((d) => scope.projectOf(d.invoiceId) !== undefined);
    // A mark's reason may name the transfer that caught it: shown to the operator whose payment it was.
    const reasonShown = (mark: NonNullable<ProviderView['mark']>) =>
      mark.disagreement_id === null || scope.projectOf(caughtBy.get(mark.disagreement_id) ?? null) !== undefined;
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
    invoiceLink(scope, d.invoiceId),
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
        const id = req.form.text('id', 'Disagreement', { max: 64 });
        const decision = req.form.choice('decision', 'Decision', ['accept', 'reject'] as const);
        const reason = req.form.text('reason', 'Reason for the decision', { max: DECISION_REASON_MAX });
        const desk = req.services.watchersDisagreements;
        const found = await desk.get(id);
        // Another operator's payment is not one this user may know of.
        if ((await operatorScope(req, [found.invoiceId])).projectOf(found.invoiceId) === undefined) throw watchersErrors.disagreement_not_found();
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

/** Which of the given invoices belong to the user's operator's projects, and in which project. */
interface OperatorScope {
  projectOf(invoiceId: string | null): { id: string; name: string } | undefined;
}

async function operatorScope(req: Request, invoiceIds: readonly (string | null)[]): Promise<OperatorScope> {
  const ids = [...new Set(invoiceIds.filter((id): id is string => id !== null))];
  if (ids.length === 0) return { projectOf: () => undefined };
  const [projects, invoices] = await Promise.all([
    req.services.tenancyProjects.list({ operator: req.user.operatorId }),
    req.services.invoicesService.getMany(ids),
  ]);
  const own = new Map(projects.map((p) => [p.id, { id: p.id, name: p.name }]));
  return {
    projectOf: (invoiceId) => {
      if (invoiceId === null) return undefined;
      const invoice = invoices.get(invoiceId);
      return invoice ? own.get(invoice.project_id) : undefined;
    },
  };
}

/** The invoice of the disagreement that caught each mark (by disagreement id), so a mark's reason is shown only to the operator whose payment caught it. */
async function markInvoices(services: Services, marks: readonly ProviderMark[]): Promise<Map<string, string | null>> {
  const ids = [...new Set(marks.flatMap((m) => (m.disagreementId === null ? [] : [m.disagreementId])))];
  const found = await Promise.all(ids.map((id) => services.watchersDisagreements.get(id).catch(() => undefined)));
  return new Map(ids.map((id, i) => [id, found[i]?.invoiceId ?? null]));
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
<p>${originText(network)} Quorum <strong>${String(network.quorum)}</strong> of ${String(network.operators)} independent operator(s)${network.quorum === 1 ? ': the scanning provider’s word suffices' : ''}.${network.idle_until_used ? ' Not scanned until a pool address waits on this network.' : ''}</p>
${table(
  `Providers of ${network.chain} ${network.network}`,
  ['Provider', 'Operator', 'Kind', 'Limit', 'Paced at', 'Last minute', 'Today', 'Of the pace', 'Resting until', 'Mark', ...(admin ? ['Action'] : [])],
  network.providers.map((p) => [
    p.url ? html`${p.name}<br><code class="wrap">${p.url}</code>` : p.name,
    p.operator,
    p.kind ?? '—',
    limitText(p.limit),
    limitText(p.paced_at),
    p.usage ? String(p.usage.last_minute) : '—',
    p.usage ? String(p.usage.today) : '—',
    p.usage ? `${(p.usage.share_of_limit * 100).toFixed(1)} %` : '—',
    p.usage?.resting_until ? html`<span class="warning">${when(p.usage.resting_until)}</span>` : 'no',
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

function markCell(provider: ProviderView, reasonShown: (mark: NonNullable<ProviderView['mark']>) => boolean): SafeHtml | string {
  const { mark } = provider;
  if (!mark) return 'no';
  return html`${badge('marked', 'bad')} ${when(mark.marked_at)}<br>${reasonShown(mark) ? mark.reason : 'caught on a payment outside your projects'}`;
}

function invoiceLink(scope: OperatorScope, invoiceId: string | null): SafeHtml | string {
  const project = scope.projectOf(invoiceId);
  if (!project || invoiceId === null) return '—';
  return html`<a href="/dashboard/projects/${project.id}/invoices/${invoiceId}"><code>${invoiceId}</code></a><br>${project.name}`;
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
