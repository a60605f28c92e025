import { CLI_ACTOR } from '@gw/kernel';
import type { TestKernel } from '@gw/kernel/testing';

/** Fast retries for tests: 1 s, 2 s between three attempts, no jitter, 2 s timeout. */
export const FAST_RETRIES = {
  'plugins.webhooks.retryBaseSeconds': 1,
  'plugins.webhooks.maxAttempts': 3,
  'plugins.webhooks.retryJitter': 0,
  'plugins.webhooks.timeoutMs': 2000,
};

/**
 * An ETH invoice of `projectId` with `callback_url` `url`, and `count` `invoice.detected` events for
 * it written through the outbox (with their delivery jobs) in one transaction; returns their ids.
 * For tests of delivery itself: the events carry `n` (0..count-1) in their data.
 */
export async function invoiceWithEvents(
  gw: TestKernel,
  projectId: string,
  url: string,
  count: number,
  externalId = `events-${Math.random().toString(36).slice(2)}`,
): Promise<string[]> {
  const { invoicesService, tenancyProjects, db, invoiceEvents } = gw.kernel.cradle;
  const { invoice } = await invoicesService.create(
    (await tenancyProjects.principal(projectId))!,
    { external_id: externalId, amount_crypto: '0.01', coin: 'eth', callback_url: url },
    CLI_ACTOR,
  );
  return db.transaction((trx) =>
    invoiceEvents.emit(
      trx,
      Array.from({ length: count }, (_, i) => ({
        projectId,
        projectKind: 'testnet' as const,
        invoiceId: invoice.id,
        eventType: 'invoice.detected' as const,
        callbackUrl: url,
        data: { invoice_id: invoice.id, n: i },
      })),
    ),
  );
}

/** The event types of the project's outbox that start with `prefix`, oldest first. */
export async function eventTypes(gw: TestKernel, projectId: string, prefix: string): Promise<string[]> {
  const rows = await gw.kernel.cradle
    .db('webhooks_events')
    .where('project_id', projectId)
    .andWhereLike('event_type', `${prefix}%`)
    .orderBy('id')
    .select('event_type');
  return rows.map((r: { event_type: string }) => r.event_type);
}
