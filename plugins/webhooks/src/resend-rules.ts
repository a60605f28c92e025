import { extensionPoint, type ProjectKind } from '@gw/kernel';
import type { DeliveryStatus } from './delivery-status.js';

/**
 * What a resend refuses for projects of one kind, from the plugin that owns the rule (the
 * sandbox's: retrying and dead-lettered events are not resent, spec 4.5). The dashboard's resend
 * applies it as the owner's own API does (ADR 0011).
 */
export interface ResendRule {
  readonly kind: ProjectKind;
  readonly refuse: readonly DeliveryStatus[];
}

/** Resend rules per project kind, contributed by other plugins. */
export const WEBHOOK_RESEND_RULES = extensionPoint<ResendRule>('webhooks.resend-rules');
