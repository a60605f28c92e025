import type { Actor, AuditEntry } from '@gw/kernel';
import type { Item } from '../models/item.js';

/** The audit entry of a write on an item. */
export function itemAudit(actor: Actor, action: string, item: Pick<Item, 'id' | 'kind' | 'project_id'>, details: Record<string, unknown> = {}): AuditEntry {
  return {
    actor: actor.actor,
    channel: actor.channel,
    requestId: actor.requestId ?? null,
    action: `${item.kind}.${action}`,
    projectId: item.project_id,
    target: `${item.kind}:${item.id}`,
    details,
  };
}
