import { html } from '@gw/kernel';
import { type PageSection, type PageServices, table } from '@gw/plugin-dashboard/contract';

/** What the section reads (ADR 0011). */
export const POOLS_SECTION_DEPS = ['addressPoolStatus', 'addressPoolConfig'] as const;

/** The overview's pool levels, with low pools and gaps over the warning threshold marked. */
export const poolsSection: PageSection<PageServices<typeof POOLS_SECTION_DEPS>> = {
  page: 'overview',
  id: 'address-pools',
  order: 40,
  render: async (req) => {
    const pools = await req.services.addressPoolStatus.status({ projectId: req.project!.id });
    const threshold = req.services.addressPoolConfig.gapWarningThreshold;
    return html`<h2>Address pools</h2>
${table(
  'Pool levels',
  ['Chain', 'Available', 'Target free', 'Allocated', 'Gap'],
  pools.map((p) => [
    p.chain,
    p.available < p.target_free / 2 ? html`<span class="warning">${String(p.available)}</span>` : String(p.available),
    String(p.target_free),
    String(p.allocated),
    p.gap_limit_applies && p.gap > threshold ? html`<span class="warning">${String(p.gap)} (over ${String(threshold)})</span>` : String(p.gap),
  ]),
  'No pool: verify a wallet first.',
)}`;
  },
};
