import { html, OUTBOUND_EVENT_TYPES, type SafeHtml } from '@gw/kernel';
import { ISO_8601_PATTERN } from '@gw/kernel';
import { DELIVERY_STATUSES, nominalSchedule, type DeliveryLogEntry, type DeliveryStatus } from '../contract.js';
import { WEBHOOK_RESEND_RULES } from '../resend-rules.js';
import type { OutboundEventType } from '@gw/kernel';
import {
  actionButton,
  badge,
  csrfField,
  dashboardErrors,
  type DashboardRequest,
  definePage,
  duration,
  type FilterField,
  filteredList,
  jsonBlock,
  page,
  type PageServices,
  redirect,
  table,
  when,
} from '@gw/plugin-dashboard/contract';

/** What this page reads (ADR 0011): its plugin contributes it with `dashboardPages(WEBHOOKS_PAGE_DEPS, [...])`. */
export const WEBHOOKS_PAGE_DEPS = ['webhooksEventLog', 'webhooksConfig', 'extensions'] as const;
type Services = PageServices<typeof WEBHOOKS_PAGE_DEPS>;

/** The filters of GET /api/v1/webhooks/events. */
export const WEBHOOK_FILTERS: readonly FilterField[] = [
  { name: 'status', label: 'Delivery status', choices: DELIVERY_STATUSES },
  { name: 'event_type', label: 'Event type', choices: OUTBOUND_EVENT_TYPES },
  { name: 'invoice_id', label: 'Invoice id', pattern: '^[0-9A-HJKMNP-TV-Z]{26}$', max: 26 },
  { name: 'since', label: 'Created since', pattern: ISO_8601_PATTERN, max: 40, placeholder: '2026-01-31' },
];
/** Most dead-lettered events one replay sends again (each is a job and an audit row). */
export const REPLAY_MAX = 100;

const base = (req: DashboardRequest<Services>) => `/dashboard/projects/${req.project!.id}/webhooks`;

/**
 * The webhook delivery log of a project: filters, each event with every attempt (status, latency,
 * response excerpt, all escaped), resend of one event, replay of many dead-lettered events at once.
 */
export const webhooksPage = definePage<Services>({
  nav: { label: 'Webhooks', scope: 'project', path: '/webhooks', order: 40 },
  cli: ['webhook list', 'webhook schedule'],
  summary: "The project's webhook delivery log, newest first, with the REST log's filters; replay of dead-lettered events.",
  render: async (req) => {
    const listing = filteredList(req, base(req), WEBHOOK_FILTERS);
    const { filters } = listing;
    const list = await req.services.webhooksEventLog.list(req.project!.id, {
      status: filters['status'] as DeliveryStatus | undefined,
      event_type: filters['event_type'] as OutboundEventType | undefined,
      invoice_id: filters['invoice_id'],
      since: filters['since'],
      ...listing.page,
    });
    const admin = req.user.role === 'admin';
    const dead = list.items.filter((e) => e.status === 'dlq');
    const rows = list.items.map((e) => [
      ...(admin
        ? [e.status === 'dlq' ? html`<input type="checkbox" name="${`event_${e.id}`}" id="${`pick-${e.id}`}" aria-label="${`Replay ${e.id}`}">` : '']
        : []),
      html`<a href="${base(req)}/${e.id}"><code>${e.id}</code></a>`,
      e.event_type,
      badge(e.status),
      String(e.attempts),
      e.last_http_status === null ? (e.last_error ?? '—') : String(e.last_http_status),
      e.attempt_log.length > 0 ? `${e.attempt_log[e.attempt_log.length - 1]!.latency_ms} ms` : '—',
      e.invoice_id ? html`<a href="/dashboard/projects/${req.project!.id}/invoices/${e.invoice_id}"><code>${e.invoice_id}</code></a>` : '—',
      when(e.created_at_iso),
    ]);
    const head = [...(admin ? ['Replay'] : []), 'Event', 'Type', 'Status', 'Attempts', 'Last answer', 'Latency', 'Invoice', 'Created'];
    const listTable = table('Webhook events, newest first', head, rows, listing.filtered ? 'No event matches these filters.' : 'No webhook events yet.');
    return page(
      `Webhooks of ${req.project!.name}`,
      html`<h1>Webhook delivery log</h1>
${listing.render(
  'Webhook filters',
  admin && dead.length > 0
    ? html`<form method="post" action="${base(req)}/replay">${csrfField(req)}
${listTable}
<button type="submit">Replay the selected dead-lettered events</button>
</form>`
    : listTable,
  list.items,
)}
${retrySchedule(req.services.webhooksConfig)}
${
  admin
    ? html`<h2>Replay every dead-lettered event</h2>
<p>Sends the newest ${REPLAY_MAX} dead-lettered events again, each under its own event id (receivers deduplicate by it), with a fresh retry schedule.</p>
${actionButton(req, `${base(req)}/replay`, 'Replay all dead-lettered events', { hidden: { all: 'true' }, confirm: `Replay up to ${REPLAY_MAX} dead-lettered events?` })}`
    : null
}`,
    );
  },
  views: {
    '/:eventId': {
      cli: ['webhook show'],
      summary: 'One webhook event: envelope, target and every attempt with status, latency and response excerpt; resend.',
      render: async (req) => {
        const event = await req.services.webhooksEventLog.get(req.project!.id, req.params['eventId']!);
        return page(
          `Webhook event ${event.id}`,
          html`<h1>Webhook event <code>${event.id}</code></h1>
${eventFacts(req, event)}
${req.user.role === 'admin' ? html`<div class="actions">${actionButton(req, `${base(req)}/${event.id}/resend`, 'Resend as a new event')}${event.status === 'dlq' ? actionButton(req, `${base(req)}/replay`, 'Replay this event', { hidden: { [`event_${event.id}`]: 'on' } }) : null}</div>` : null}
<h2>Attempts</h2>
${table(
  'Delivery attempts',
  ['#', 'Started', 'Target', 'HTTP status', 'Latency', 'Error', 'Response excerpt'],
  event.attempt_log.map((a) => [
    String(a.attempt),
    when(a.started_at_iso),
    html`<code class="wrap">${a.target_url}</code>`,
    a.http_status === null ? '—' : String(a.http_status),
    `${a.latency_ms} ms`,
    a.error ?? '—',
    a.response_excerpt ? html`<pre class="excerpt" tabindex="0">${a.response_excerpt}</pre>` : '—',
  ]),
  'No attempt yet.',
)}
<h2>Payload</h2>
${jsonBlock(event.payload)}
<p><a href="${base(req)}">Back to the delivery log</a></p>`,
        );
      },
    },
  },
  actions: {
    '/:eventId/resend': {
      cli: ['webhook resend'],
      summary: 'Resend an event as a new event to the target resolved now (the original stays).',
      handle: async (req) => {
        const id = req.params['eventId']!;
        // A rule of the project's kind (the sandbox's) applies here as in its owner's own API.
        const rule = req.services.extensions.of(WEBHOOK_RESEND_RULES).find((r) => r.item.kind === req.project!.kind)?.item;
        const result = await req.services.webhooksEventLog.resend(req.project!.id, id, req.actor, rule ? { refuse: rule.refuse } : {});
        return redirect(`${base(req)}/${result.event_id}`, `Resent as event ${result.event_id}${result.target_url ? '' : ' (no target: skipped)'}.`);
      },
    },
    '/replay': {
      summary: `Replay dead-lettered events (the selected ones, or the newest ${REPLAY_MAX}) under their own event ids.`,
      handle: async (req) => {
        const all = req.form.checked('all');
        const ids = all ? [] : req.form.checkedMembers('event_', 'An event id');
        if (!all && ids.length === 0) throw dashboardErrors.invalid_form({ message: 'Select at least one dead-lettered event. Nothing was changed.' });
        // The webhooks plugin locks, checks (dead-lettered events of this project only, at most
        // REPLAY_MAX) and replays them in one transaction: all of them or, on any error, none.
        const replayed = await req.services.webhooksEventLog.redeliverDeadLettered(req.project!.id, all ? 'all' : ids, REPLAY_MAX, req.actor);
        return redirect(
          base(req),
          replayed.length === 0 ? 'There was no dead-lettered event to replay.' : `Replayed ${replayed.length} dead-lettered event(s).`,
        );
      },
    },
  },
});

function retrySchedule(config: Parameters<typeof nominalSchedule>[0] & { maxAttempts: number; timeoutMs: number }): SafeHtml {
  const delays = nominalSchedule(config);
  return html`<details><summary>Retry schedule of this deployment</summary>
<p>${String(config.maxAttempts)} attempts, ${String(config.timeoutMs)} ms timeout each; an event whose every attempt fails is dead-lettered. Delays before each retry (before jitter): ${delays.map((d) => duration(d)).join(', ')}; ${duration(delays.reduce((a, b) => a + b, 0))} in all.</p>
</details>`;
}

function eventFacts(req: DashboardRequest<Services>, e: DeliveryLogEntry): SafeHtml {
  return html`<dl class="facts">
<dt>Type</dt><dd>${e.event_type} (${e.mode})</dd>
<dt>Signed</dt><dd>${e.signer ? `by the ${e.signer} plugin, with its subscription's own secret` : "with the project's API secret (X-Service-Signature)"}</dd>
<dt>Status</dt><dd>${badge(e.status)}</dd>
<dt>Target</dt><dd>${e.target_url ? html`<code class="wrap">${e.target_url}</code>` : 'none (skipped)'}</dd>
<dt>Invoice</dt><dd>${e.invoice_id ? html`<a href="/dashboard/projects/${req.project!.id}/invoices/${e.invoice_id}"><code>${e.invoice_id}</code></a>` : '—'}</dd>
<dt>Resend of</dt><dd>${e.original_event_id ? html`<a href="${base(req)}/${e.original_event_id}"><code>${e.original_event_id}</code></a>` : '—'}</dd>
<dt>Attempts</dt><dd>${e.attempts}</dd>
<dt>Next attempt</dt><dd>${when(e.next_attempt_at_iso)}</dd>
<dt>Delivered</dt><dd>${when(e.delivered_at_iso)}</dd>
<dt>Created</dt><dd>${when(e.created_at_iso)}</dd>
</dl>`;
}
