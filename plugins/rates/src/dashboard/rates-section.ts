import { html } from '@gw/kernel';
import { actionButton, definePage, duration, type PageSection, type PageServices, redirect, table, when } from '@gw/plugin-dashboard/contract';

/** What the section and its actions read (ADR 0011). */
export const RATES_DASHBOARD_DEPS = ['ratesService'] as const;
type Services = PageServices<typeof RATES_DASHBOARD_DEPS>;

/**
 * The overview's exchange rates in use, their age, the rates the jump check held back, and
 * (administrators) a refresh and a release of each held rate.
 */
export const ratesSection: PageSection<Services> = {
  page: 'overview',
  id: 'rates',
  order: 50,
  render: async (req) => {
    const { ratesService } = req.services;
    const [rates, held] = await Promise.all([ratesService.cached(), ratesService.held()]);
    const selected = rates.filter((r) => r.selected);
    const admin = req.user.role === 'admin';
    const base = `/dashboard/projects/${req.project!.id}/overview`;
    return html`<h2>Exchange rates</h2>
${admin ? actionButton(req, `${base}/rates-refresh`, 'Refresh the rates now') : null}
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
)}
${
  held.length === 0
    ? null
    : html`<h3>Held back</h3>
<p class="warning">These fetched rates moved more than the allowed share from the last accepted rate, so they are not used. The last accepted rate serves while it is fresh. Another provider agreeing, or the same provider giving it for jump.confirmSeconds, accepts the move; release one only once you know the move is real.</p>
${table(
  'Rates held back',
  admin
    ? ['Pair', 'Held rate', 'Source', 'Fetched', 'Accepted rate', 'Change', 'Allowed', 'Held since', 'Action']
    : ['Pair', 'Held rate', 'Source', 'Fetched', 'Accepted rate', 'Change', 'Allowed', 'Held since'],
  held.map((h) => [
    h.pair,
    h.rate,
    h.source,
    when(h.fetched_at),
    `${h.accepted_rate} (${h.accepted_source})`,
    `${h.change_percent} %`,
    `${h.share}`,
    when(h.held_at),
    ...(admin
      ? [
          actionButton(req, `${base}/rates-release`, `Accept the held ${h.pair} rate`, {
            hidden: { asset: h.asset },
            confirm: `Accept ${h.rate} as the ${h.pair} rate?`,
            danger: true,
          }),
        ]
      : []),
  ]),
)}`
}`;
  },
};

/** The overview's rate actions (no page of their own, no navigation entry): refresh, and release of a held rate. */
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
        const held = [...new Set(result.providers.flatMap((p) => p.held))];
        return redirect(
          `/dashboard/projects/${req.project!.id}/overview`,
          [
            failed.length === 0
              ? 'The rates are refreshed.'
              : `Rates refreshed; ${failed.length} request(s) failed: ${failed.map((p) => `${p.provider} (${p.kind})`).join(', ')}.`,
            held.length === 0 ? '' : `Held back: ${held.join(', ')}.`,
          ]
            .filter(Boolean)
            .join(' '),
        );
      },
    },
    {
      method: 'POST',
      path: '/dashboard/projects/:projectId/overview/rates-release',
      cli: ['rates release'],
      summary: 'Accept a rate the jump check held back (administrators).',
      handle: async (req) => {
        const released = await ratesService.release(req.form.text('asset', 'Asset', { max: 16 }), req.actor);
        return redirect(`/dashboard/projects/${req.project!.id}/overview`, `The held ${released.pair} rate ${released.rate} is accepted.`);
      },
    },
  ],
});
