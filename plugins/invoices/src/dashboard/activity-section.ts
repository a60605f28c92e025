import { html, type SafeHtml } from '@gw/kernel';
import { barChart, type PageSection, type PageServices, table, when } from '@gw/plugin-dashboard/contract';
import type { ActivitySeries } from '../contract.js';

/** What the section reads (ADR 0011). */
export const ACTIVITY_SECTION_DEPS = ['invoicesActivity'] as const;

/** The overview's invoices and paid USD of the last week and day: charts with their numbers. */
export const activitySection: PageSection<PageServices<typeof ACTIVITY_SECTION_DEPS>> = {
  page: 'overview',
  id: 'invoices',
  order: 10,
  render: async (req) => {
    const activity = await req.services.invoicesActivity.activity(req.project!.id);
    return html`<h2>Invoices and payments</h2>
<div class="charts">
${activityBlock('week', 'Last 7 days (by UTC day)', activity.last_week, (iso) => iso.slice(5, 10))}
${activityBlock('day', 'Last 24 hours (by hour, UTC)', activity.last_day, (iso) => `${iso.slice(11, 13)}h`)}
</div>`;
  },
};

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
${table(
  `${heading}: invoices and payments`,
  ['From', 'Invoices', 'Paid', 'USD'],
  series.buckets.map((b) => [when(b.start_iso), String(b.invoices), String(b.paid), b.paid_usd]),
)}
</details>
</section>`;
}
