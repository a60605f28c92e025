import { html } from '@gw/kernel';
import { badge } from '../web/components.js';
import { definePage, page } from '../web/dashboard-page.js';

/**
 * The signed-in user's operator and its subscription status. Creating operators and setting a
 * subscription stay with the CLI: they are the gateway owner's, above every operator
 * (docs/decisions.md).
 */
export const operatorPage = definePage({
  nav: { label: 'Operator', scope: 'operator', path: '/dashboard/operator', order: 50 },
  summary: "The user's operator and its subscription status.",
  cli: ['operator list'],
  render: async (req) => {
    const operator = await req.services.tenancyOperators.find(req.user.operatorId);
    const active = operator.subscription_status === 'active';
    return page(
      'Operator',
      html`<h1>Operator</h1>
<dl class="facts"><dt>Name</dt><dd>${operator.name}</dd><dt>Id</dt><dd><code>${operator.id}</code></dd><dt>Subscription</dt><dd>${badge(operator.subscription_status)}</dd><dt>Since</dt><dd>${new Date(operator.created_at).toISOString()}</dd></dl>
<p>${
        active
          ? 'The subscription is active: every project accepts writes.'
          : 'The subscription is not active: REST writes of production and testnet projects are refused with 402 subscription_expired; sandbox projects and reads keep working.'
      }</p>
<p class="note">The subscription is set by the gateway's owner with <code>pnpm gateway subscription set</code>.</p>`,
    );
  },
});
