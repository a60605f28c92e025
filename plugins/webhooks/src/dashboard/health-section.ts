import { html } from '@gw/kernel';
import { duration, type PageSection, type PageServices, table, when } from '@gw/plugin-dashboard/contract';

/** What the section reads (ADR 0011). */
export const HEALTH_SECTION_DEPS = ['webhooksHealth'] as const;

/** The overview's webhook health: delivered, retrying, dead-lettered, the oldest undelivered. */
export const healthSection: PageSection<PageServices<typeof HEALTH_SECTION_DEPS>> = {
  page: 'overview',
  id: 'webhooks',
  order: 20,
  render: async (req) => {
    const id = req.project!.id;
    const health = await req.services.webhooksHealth.health(id);
    return html`<h2>Webhooks</h2>
${table(
  'Webhook health',
  ['Delivered (24 h)', 'Retrying', 'Dead-lettered', 'Oldest undelivered'],
  [
    [
      String(health.delivered_last_day),
      String(health.retrying),
      health.dead_lettered > 0 ? html`<a href="/dashboard/projects/${id}/webhooks?status=dlq">${String(health.dead_lettered)}</a>` : '0',
      health.oldest_undelivered_iso
        ? html`${when(health.oldest_undelivered_iso)} (${duration((Date.now() - Date.parse(health.oldest_undelivered_iso)) / 1000)} ago)`
        : 'none',
    ],
  ],
)}`;
  },
};
