import { html } from '@gw/kernel';
import { type PageSection, type PageServices, table, when } from '@gw/plugin-dashboard/contract';

/** What the section reads (ADR 0011). */
export const STATUS_SECTION_DEPS = ['watchersStatus'] as const;

/** The overview's watchers per chain network: head, scanned height, lag, last pass and error. */
export const statusSection: PageSection<PageServices<typeof STATUS_SECTION_DEPS>> = {
  page: 'overview',
  id: 'watchers',
  order: 30,
  render: async (req) => {
    const watchers = await req.services.watchersStatus.status();
    return html`<h2>Watchers</h2>
${table(
  'Watchers per chain and network',
  ['Chain', 'Network', 'Head', 'Scanned', 'Lag (blocks)', 'Last pass', 'Last error'],
  watchers.map((w) => [
    w.chain,
    w.network,
    w.head_height ?? '—',
    w.scanned_height ?? '—',
    w.lag ?? '—',
    when(w.last_pass_iso),
    w.last_error
      ? html`<span class="warning">${w.last_error}</span> (${when(w.last_error_at_iso)}, ${String(w.consecutive_failures)} failure(s) in a row)`
      : 'none',
  ]),
  'No chain is watched (plugins.watchers.chains is empty): no payment would be seen.',
)}`;
  },
};
