import { html, ISO_8601_PATTERN } from '@gw/kernel';
import type { ChainId } from '@gw/kernel';
import {
  badge,
  csrfField,
  type DashboardRequest,
  definePage,
  type FilterField,
  filteredList,
  page,
  type PageServices,
  redirect,
  when,
} from '@gw/plugin-dashboard/contract';

/** What this page reads (ADR 0011): its plugin contributes it with `dashboardPages(ORPHANS_PAGE_DEPS, [...])`. */
export const ORPHANS_PAGE_DEPS = ['chains', 'watchersOrphans'] as const;
type Services = PageServices<typeof ORPHANS_PAGE_DEPS>;

/** The filters of GET /api/v1/orphan-payments; the chain choices are the enabled chains. */
function orphanFilters(chainIds: readonly string[]): readonly FilterField[] {
  return [
    { name: 'attributed', label: 'Attributed', choices: ['false', 'true'] },
    { name: 'chain', label: 'Chain', choices: chainIds },
    { name: 'tx_hash', label: 'Transaction hash', max: 200 },
    { name: 'date_from', label: 'Received from', pattern: ISO_8601_PATTERN, max: 40 },
    { name: 'date_to', label: 'Received to', pattern: ISO_8601_PATTERN, max: 40 },
    { name: 'amount_units_gte', label: 'At least (base units)', pattern: '^\\d+$', max: 78 },
    { name: 'amount_units_lte', label: 'At most (base units)', pattern: '^\\d+$', max: 78 },
  ];
}

const base = (req: DashboardRequest<Services>) => `/dashboard/projects/${req.project!.id}/orphans`;

/** Orphan payments of a project (receipts no invoice took): the list, and attribution to an external id. */
export const orphansPage = definePage<Services>({
  nav: { label: 'Orphan payments', scope: 'project', path: '/orphans', order: 25 },
  summary: "The project's orphan payments with the REST list's filters (newest first); attribute one to an external id.",
  render: async (req) => {
    const listing = filteredList(req, base(req), orphanFilters(req.services.chains.chainIds()));
    const list = await req.services.watchersOrphans.list(req.project!.id, {
      ...listing.page,
      ...(listing.filters as { attributed?: 'true' | 'false'; chain?: ChainId }),
    });
    const admin = req.user.role === 'admin';
    return page(
      `Orphan payments of ${req.project!.name}`,
      html`<h1>Orphan payments</h1>
<p class="note">Payments to the project's pool addresses that no invoice took. Attributing one creates a paid invoice under the external id you give and sends <code>invoice.paid</code>.</p>
${listing.table(
  'Orphan payment filters',
  {
    caption: 'Orphan payments, newest first',
    head: ['Transaction', 'Amount', 'To', 'Status', 'Received', 'Attributed', ...(admin ? ['Attribute'] : [])],
    row: (o) => [
      html`<code class="wrap">${o.tx_hash}</code> #${o.tx_output_index}`,
      html`${o.amount} <span class="unit">${o.coin}</span>`,
      html`<code class="wrap">${o.to_address}</code>`,
      html`${badge(o.status)}${o.ambiguous ? ' (ambiguous)' : ''}`,
      when(o.received_at_iso),
      o.invoice_id ? html`<a href="/dashboard/projects/${req.project!.id}/invoices/${o.invoice_id}">invoice</a>` : 'no',
      ...(admin
        ? [
            o.attributed || o.status !== 'in_block'
              ? '—'
              : html`<form class="inline-form" method="post" action="${base(req)}/attribute">${csrfField(req)}<input type="hidden" name="tx_hash" value="${o.tx_hash}"><input type="hidden" name="to_address" value="${o.to_address}"><input type="hidden" name="tx_output_index" value="${String(o.tx_output_index)}"><label for="${`ext-${o.id}`}">External id</label><input id="${`ext-${o.id}`}" name="external_id" required maxlength="128"><button type="submit">Attribute</button></form>`,
          ]
        : []),
    ],
  },
  list.items,
  'No orphan payments.',
)}`,
    );
  },
  actions: {
    '/attribute': {
      summary: 'Attribute an orphan payment to an external id: a synthetic paid invoice and invoice.paid.',
      handle: async (req) => {
        const txHash = req.form.text('tx_hash', 'Transaction hash', { max: 200 });
        const externalId = req.form.text('external_id', 'External id', { max: 128 });
        const toAddress = req.form.optional('to_address', 'Address', { max: 200 });
        const index = req.form.optional('tx_output_index', 'Output index', { max: 9 });
        const invoice = await req.services.watchersOrphans.attribute(
          { id: req.project!.id, kind: req.project!.kind },
          txHash,
          {
            external_id: externalId,
            ...(toAddress ? { to_address: toAddress } : {}),
            ...(index !== undefined && /^\d+$/.test(index) ? { tx_output_index: Number(index) } : {}),
          },
          req.actor,
        );
        return redirect(
          `/dashboard/projects/${req.project!.id}/invoices/${invoice.id}`,
          `The payment is attributed to ${invoice.external_id}: invoice ${invoice.id} is ${invoice.status}.`,
        );
      },
    },
  },
});
