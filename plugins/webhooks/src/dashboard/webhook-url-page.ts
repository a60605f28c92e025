import { html } from '@gw/kernel';
import type {} from '../contract.js';
import {
  actionButton,
  csrfField,
  type DashboardActionRequest,
  type DashboardRequest,
  definePage,
  page,
  type PageServices,
  redirect,
} from '@gw/plugin-dashboard/contract';

/** What this page reads (ADR 0011): its plugin contributes it with `dashboardPages(WEBHOOK_URL_PAGE_DEPS, [...])`. */
export const WEBHOOK_URL_PAGE_DEPS = ['tenancyProjects', 'webhooksTestEvents'] as const;
type Services = PageServices<typeof WEBHOOK_URL_PAGE_DEPS>;

/** Longest webhook URL accepted by the form. */
const URL_MAX = 2048;

const base = (req: DashboardRequest<Services>) => `/dashboard/projects/${req.project!.id}/webhook-url`;

/** Sets the project's default webhook URL (`null` removes it) and returns to the page with a notice saying which. */
async function saveUrl(req: DashboardActionRequest<Services>, url: string | null) {
  await req.services.tenancyProjects.setWebhookUrl(req.project!.id, url, req.actor);
  return redirect(base(req), url === null ? 'The webhook URL is removed.' : 'The webhook URL is saved.');
}

/**
 * A project's default webhook URL (used when an invoice has no callback_url): set, clear, and send
 * a signed test event to it, showing the receiver's answer.
 */
export const webhookUrlPage = definePage<Services>({
  nav: { label: 'Webhook URL', scope: 'project', path: '/webhook-url', order: 15 },
  summary: "The project's default webhook URL, with set, clear and send-a-test-event.",
  render: async (req) => {
    const p = req.project!;
    const admin = req.user.role === 'admin';
    return page(
      'Webhook URL',
      html`<h1>Default webhook URL</h1>
<p>Events of invoices without their own <code>callback_url</code> go to this URL, signed with the project's API secret.</p>
<dl class="facts"><dt>Current URL</dt><dd>${p.webhook_url ? html`<code>${p.webhook_url}</code>` : 'none (such events are not sent)'}</dd></dl>
${
  admin
    ? html`<form method="post" action="${base(req)}">${csrfField(req)}
<label for="webhook-url">New URL</label>
<input id="webhook-url" name="url" type="url" required maxlength="${URL_MAX}" value="${p.webhook_url ?? ''}" aria-describedby="webhook-url-hint">
<p id="webhook-url-hint" class="note">https; http is accepted for testnet and sandbox projects.</p>
<button type="submit">Save URL</button>
</form>
${
  p.webhook_url
    ? html`${actionButton(req, `${base(req)}/clear`, 'Clear URL', { confirm: 'Remove the default webhook URL?', danger: true })}
<h2>Test</h2><p>Sends one signed <code>webhook.test</code> event now and shows the answer. It is not queued or retried.</p>${actionButton(req, `${base(req)}/test`, 'Send a test event')}`
    : null
}`
    : null
}`,
    );
  },
  actions: {
    '': {
      summary: "Set the project's default webhook URL.",
      cli: ['webhook set'],
      handle: async (req) => saveUrl(req, req.form.text('url', 'Webhook URL', { max: URL_MAX })),
    },
    '/clear': {
      summary: "Remove the project's default webhook URL.",
      cli: ['webhook clear'],
      handle: async (req) => saveUrl(req, null),
    },
    '/test': {
      summary: 'Send a signed webhook.test event to the default URL and show the answer.',
      cli: ['webhook test'],
      handle: async (req) => {
        const r = await req.services.webhooksTestEvents.send(req.project!.id, req.actor);
        return page(
          'Test event',
          html`<h1>Test event ${r.ok ? 'delivered' : 'failed'}</h1>
<p class="${r.ok ? 'notice' : 'error'}" role="status">${r.ok ? 'The receiver answered with a 2xx.' : 'The receiver did not accept the event.'}</p>
<dl class="facts"><dt>Event id</dt><dd><code>${r.event_id}</code></dd><dt>URL</dt><dd><code>${r.target_url}</code></dd><dt>HTTP status</dt><dd>${r.http_status ?? 'none'}</dd><dt>Latency</dt><dd>${r.latency_ms} ms</dd>${r.error ? html`<dt>Error</dt><dd>${r.error}</dd>` : null}<dt>Response excerpt</dt><dd>${r.response_excerpt ? html`<pre class="mono">${r.response_excerpt}</pre>` : 'none'}</dd></dl>
<p><a href="${base(req)}">Back to the webhook URL</a></p>`,
        );
      },
    },
  },
});
