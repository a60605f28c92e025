import { createHmac } from 'node:crypto';
import type { SignedRequest, WebhookSigner } from '@gw/plugin-webhooks/contract';
import { redeliveryBody } from './event-bodies.js';
import { BTCPAY_SIGNER } from './event-types.js';
import type { BtcpayWebhooks } from './webhook-service.js';

/** BTCPay's signature header of a delivery. */
export const BTCPAY_SIG_HEADER = 'BTCPay-Sig';

/** `sha256=<hex HMAC-SHA256 of the raw body under the webhook's secret (UTF-8)>`, as BTCPay signs a delivery. */
export function btcpaySignature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(body, 'utf8').digest('hex')}`;
}

/**
 * Signs the btcpay plugin's deliveries in the webhooks plugin's delivery worker (`WEBHOOK_SIGNERS`):
 * each attempt carries `BTCPay-Sig` under its webhook's own secret, goes to the webhook's URL as it
 * is now, and is retried only when the webhook asks for `automaticRedelivery`. A webhook deleted,
 * disabled or no longer taking the event's type ends the delivery unsent, as BTCPay's sender drops
 * a delivery its webhook no longer `ShouldDeliver`. A resend is BTCPay's redelivery.
 */
export function btcpayWebhookSigner(webhooks: () => BtcpayWebhooks): WebhookSigner {
  return {
    id: BTCPAY_SIGNER,
    async sign(items) {
      const found = await webhooks().forSigning(items.map((item) => item.ref));
      return items.map((item): SignedRequest | undefined => {
        const webhook = found.get(item.ref);
        if (!webhook || webhook.projectId !== item.projectId || !webhook.enabled || !webhook.takes(item.eventType)) return undefined;
        return { headers: { [BTCPAY_SIG_HEADER]: btcpaySignature(webhook.secret, item.body) }, retry: webhook.automaticRedelivery, url: webhook.url };
      });
    },
    resendBody: ({ body, eventId, originalEventId }) => redeliveryBody(body, eventId, originalEventId),
  };
}
