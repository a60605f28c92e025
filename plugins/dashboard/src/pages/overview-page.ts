import { html } from '@gw/kernel';
import { badge } from '../web/components.js';
import { definePage, page } from '../web/dashboard-page.js';
import { PAGE_SECTIONS, renderSections } from '../web/section-point.js';

/**
 * A project at a glance: the project and the operator's subscription, then the sections the
 * plugins contribute (ADR 0011): invoices and paid USD of the last day and week, webhook health,
 * watchers per chain network, pool levels, the age of the exchange rates. Every figure comes from
 * an indexed aggregate of its plugin; a disabled plugin's section is absent.
 */
export const overviewPage = definePage({
  nav: { label: 'Overview', scope: 'project', path: '/overview', order: 15 },
  cli: ['rates show'],
  summary: "The project's overview: activity charts, webhook health, watchers, pools, rate age, subscription.",
  render: async (req) => {
    const [operator, parts] = await Promise.all([
      req.services.tenancyOperators.find(req.user.operatorId),
      renderSections(
        req.services.extensions.of(PAGE_SECTIONS).map((c) => c.item),
        'overview',
        req,
      ),
    ]);
    return page(
      `Overview of ${req.project!.name}`,
      html`<h1>Overview of ${req.project!.name}</h1>
<dl class="facts"><dt>Kind</dt><dd>${req.project!.kind}</dd><dt>Status</dt><dd>${badge(req.project!.status)}</dd><dt>Subscription of ${operator.name}</dt><dd>${badge(operator.subscription_status)}${operator.subscription_status === 'active' ? null : html` <span class="warning">REST writes of production and testnet projects are refused (402) until it is active again.</span>`}</dd></dl>
${parts.map((part, i) => (i === 0 ? part : html`\n${part}`))}`,
    );
  },
});
