import { html, type SafeHtml } from '@gw/kernel';
import type { ActivitySeries } from '@gw/plugin-invoices/contract';
import { actionButton, badge, table } from '../web/components.js';
import { barChart } from '../web/bar-chart.js';
import { definePage, page, redirect } from '../web/dashboard-page.js';
import { duration, when } from '../web/filters.js';

/**
 * A project at a glance: invoices and paid USD of the last day and week (charts with their
 * numbers), webhook health, watchers per chain network, pool levels, the age of the exchange rates
 * and the operator's subscription. Every figure comes from an indexed aggregate of its plugin.
 */
export const overviewPage = definePage({
  id: 'overview',
  dependsOn: ['invoices', 'webhooks', 'watchers', 'address-pool', 'rates'],
  nav: [{ label: 'Overview', scope: 'project', path: '/overview', order: 15 }],
  routes: (services) => [
    {
      method: 'GET',
      path: '/dashboard/projects/:projectId/overview',
      cli: ['rates show'],
      summary: "The project's overview: activity charts, webhook health, watchers, pools, rate age, subscription.",
      render: async (req) => {
        const id = req.project!.id;
        const [activity, health, watchers, pools, rates, operator] = await Promise.all([
          services.invoicesActivity.activity(id),
          services.webhooksHealth.health(id),
          services.watchersStatus.status(),
          services.addressPoolStatus.status({ projectId: id }),
          services.ratesService.cached(),
          services.tenancyOperators.find(req.user.operatorId),
        ]);
        const threshold = services.addressPoolConfig.gapWarningThreshold;
        const selected = rates.filter((r) => r.selected);
        return page(`Overview of ${req.project!.name}`, html`<h1>Overview of ${req.project!.name}</h1>
<dl class="facts"><dt>Kind</dt><dd>${req.project!.kind}</dd><dt>Status</dt><dd>${badge(req.project!.status)}</dd><dt>Subscription of ${operator.name}</dt><dd>${badge(operator.subscription_status)}${operator.subscription_status === 'active' ? null : html` <span class="warning">REST writes of production and testnet projects are refused (402) until it is active again.</span>`}</dd></dl>
<h2>Invoices and payments</h2>
<div class="charts">
${activityBlock('week', 'Last 7 days (by UTC day)', activity.last_week, (iso) => iso.slice(5, 10))}
${activityBlock('day', 'Last 24 hours (by hour, UTC)', activity.last_day, (iso) => `${iso.slice(11, 13)}h`)}
</div>
<h2>Webhooks</h2>
${table('Webhook health', ['Delivered (24 h)', 'Retrying', 'Dead-lettered', 'Oldest undelivered'], [[
  String(health.delivered_last_day),
  String(health.retrying),
  health.dead_lettered > 0 ? html`<a href="/dashboard/projects/${id}/webhooks?status=dlq">${String(health.dead_lettered)}</a>` : '0',
  health.oldest_undelivered_iso ? html`${when(health.oldest_undelivered_iso)} (${duration((Date.now() - Date.parse(health.oldest_undelivered_iso)) / 1000)} ago)` : 'none',
]])}
<h2>Watchers</h2>
${table('Watchers per chain and network', ['Chain', 'Network', 'Head', 'Scanned', 'Lag (blocks)', 'Last pass', 'Last error'], watchers.map((w) => [w.chain, w.network, w.head_height ?? '—', w.scanned_height ?? '—', w.lag ?? '—', when(w.last_pass_iso), w.last_error ? html`<span class="warning">${w.last_error}</span> (${when(w.last_error_at_iso)}, ${String(w.consecutive_failures)} failure(s) in a row)` : 'none']), 'No chain is watched (plugins.watchers.chains is empty): no payment would be seen.')}
<h2>Address pools</h2>
${table('Pool levels', ['Chain', 'Available', 'Target free', 'Allocated', 'Gap'], pools.map((p) => [p.chain, p.available < p.target_free / 2 ? html`<span class="warning">${String(p.available)}</span>` : String(p.available), String(p.target_free), String(p.allocated), p.gap_limit_applies && p.gap > threshold ? html`<span class="warning">${String(p.gap)} (over ${String(threshold)})</span>` : String(p.gap)]), 'No pool: verify a wallet first.')}
<h2>Exchange rates</h2>
${req.user.role === 'admin' ? actionButton(req, `/dashboard/projects/${id}/overview/rates-refresh`, 'Refresh the rates now') : null}
${table('Rates in use', ['Pair', 'Rate', 'Source', 'Fetched', 'Age', 'Usable'], selected.map((r) => [r.pair, r.rate, r.source, when(r.fetched_at), duration(r.age_seconds), r.usable ? 'yes' : html`<span class="warning">no (too old)</span>`]), 'No rate fetched yet: invoices in USD cannot be created.')}`);
      },
    },
    {
      method: 'POST',
      path: '/dashboard/projects/:projectId/overview/rates-refresh',
      cli: ['rates refresh'],
      summary: 'Fetch every exchange rate from the providers now (the worker does this on its schedule).',
      handle: async (req) => {
        const result = await services.ratesService.refresh();
        const failed = result.providers.filter((p) => !p.ok);
        return redirect(`/dashboard/projects/${req.project!.id}/overview`, failed.length === 0 ? 'The rates are refreshed.' : `Rates refreshed; ${failed.length} provider(s) failed: ${failed.map((p) => p.provider).join(', ')}.`);
      },
    },
  ],
});

function activityBlock(id: string, heading: string, series: ActivitySeries, label: (iso: string) => string): SafeHtml {
  const invoices = series.buckets.map((b) => ({ label: label(b.start_iso), text: String(b.invoices), value: b.invoices }));
  // Drawn lengths only; the amounts shown are the decimal strings.
  const usd = series.buckets.map((b) => ({ label: label(b.start_iso), text: b.paid_usd, value: Number(b.paid_usd) }));
  return html`<section class="chart-block" aria-labelledby="${`chart-${id}`}">
<h3 id="${`chart-${id}`}">${heading}</h3>
<p>${String(series.invoices)} invoices created, ${String(series.paid)} paid, <strong>${series.paid_usd} USD</strong> received.</p>
<figure><figcaption>Invoices created</figcaption>${barChart(`${id}-invoices`, `Invoices created, ${heading}`, `${series.invoices} in all; the table below lists each bucket.`, invoices)}</figure>
<figure><figcaption>Paid volume (USD)</figcaption>${barChart(`${id}-usd`, `Paid volume in USD, ${heading}`, `${series.paid_usd} USD in all; the table below lists each bucket.`, usd)}</figure>
<details><summary>The numbers</summary>
${table(`${heading}: invoices and payments`, ['From', 'Invoices', 'Paid', 'USD'], series.buckets.map((b) => [when(b.start_iso), String(b.invoices), String(b.paid), b.paid_usd]))}
</details>
</section>`;
}
