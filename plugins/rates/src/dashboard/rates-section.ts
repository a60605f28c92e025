import { html } from '@gw/kernel';
import { actionButton, definePage, duration, type PageSection, type PageServices, redirect, table, when } from '@gw/plugin-dashboard/contract';

/** What the section and its action read (ADR 0011). */
export const RATES_DASHBOARD_DEPS = ['ratesService'] as const;
type Services = PageServices<typeof RATES_DASHBOARD_DEPS>;

/** The overview's exchange rates in use, their age, and (administrators) a refresh. */
export const ratesSection: PageSection<Services> = {
  page: 'overview',
  id: 'rates',
  order: 50,
  render: async (req) => {
    const rates = await req.services.ratesService.cached();
    const selected = rates.filter((r) => r.selected);
    return html`<h2>Exchange rates</h2>
${req.user.role === 'admin' ? actionButton(req, `/dashboard/projects/${req.project!.id}/overview/rates-refresh`, 'Refresh the rates now') : null}
${table(
  'Rates in use',
  ['Pair', 'Rate', 'Source', 'Fetched', 'Age', 'Usable'],
  selected.map((r) => [
    r.pair,
    r.rate,
    r.source,
    when(r.fetched_at),
    duration(r.age_seconds),
    r.usable ? 'yes' : html`<span class="warning">no (too old)</span>`,
  ]),
  'No rate fetched yet: invoices in USD cannot be created.',
)}`;
  },
};

/** The overview's refresh button's action (no page of its own, no navigation entry). */
export const ratesRefreshPage = definePage<Services>({
  id: 'rates',
  routes: ({ ratesService }) => [
    {
      method: 'POST',
      path: '/dashboard/projects/:projectId/overview/rates-refresh',
      cli: ['rates refresh'],
      summary: 'Fetch every exchange rate from the providers now (the worker does this on its schedule).',
      handle: async (req) => {
        const result = await ratesService.refresh();
        const failed = result.providers.filter((p) => !p.ok);
        return redirect(
          `/dashboard/projects/${req.project!.id}/overview`,
          failed.length === 0
            ? 'The rates are refreshed.'
            : `Rates refreshed; ${failed.length} provider(s) failed: ${failed.map((p) => p.provider).join(', ')}.`,
        );
      },
    },
  ],
});
