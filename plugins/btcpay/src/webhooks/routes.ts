import { defineRoute, type ProjectPrincipal, type RouteDefinition } from '@gw/kernel';
import type { EventLog, ProtocolDeliveries, ProtocolDeliveryView } from '@gw/plugin-webhooks/contract';
import Type from 'typebox';
import type { BtcpayConfig } from '../config.js';
import { GREENFIELD_ROUTE, greenfieldActor, greenfieldPath } from '../credentials/greenfield-route.js';
import { operatorProject, principalOf, requireStore, type BtcpayCaller } from '../credentials/permissions.js';
import { btcpayErrors } from '../errors.js';
import { BTCPAY_SIGNER } from './event-types.js';
import { readWebhookInput } from './webhook-input.js';
import type { BtcpayWebhooks } from './webhook-service.js';

/** The permission of every webhook call (BTCPay's `Policies.CanModifyWebhooks`). */
export const CAN_MODIFY_WEBHOOKS = 'btcpay.store.webhooks.canmodifywebhooks';

/** Most deliveries one `GET .../deliveries` lists (BTCPay lists them all unless `count` says fewer). */
export const MAX_LISTED_DELIVERIES = 1000;

/** A JSON body of any shape: the handlers read it as BTCPay binds it and answer its 422 list themselves. */
const AnyBody = Type.Unknown({ description: "BTCPay's WebhookDataCreate / WebhookDataUpdate" });

/** 404 `webhookdelivery-not-found`, as BTCPay answers a delivery of another webhook or none. */
function deliveryNotFound() {
  return btcpayErrors.btcpay_webhook_delivery_not_found({
    message: 'The webhook delivery was not found',
    details: { greenfieldCode: 'webhookdelivery-not-found' },
  });
}

/**
 * A delivery as BTCPay's `WebhookDeliveryData`: one per delivery (its latest attempt; a resend is a
 * delivery of its own). `HttpSuccess` once delivered, `HttpError` when the last attempt got an
 * HTTP answer that was not a success, `Failed` when it got none (or was never sent).
 */
export function webhookDeliveryData(delivery: ProtocolDeliveryView): Record<string, unknown> {
  const status = delivery.status === 'delivered' ? 'HttpSuccess' : delivery.lastHttpStatus !== null ? 'HttpError' : 'Failed';
  return {
    id: delivery.id,
    timestamp: Math.floor(delivery.createdAt.getTime() / 1000),
    deliveryTime: Math.floor((delivery.lastAttemptAt ?? delivery.createdAt).getTime() / 1000),
    httpCode: delivery.lastHttpStatus,
    ...(status !== 'HttpSuccess' && delivery.lastError !== null ? { errorMessage: delivery.lastError } : {}),
    status,
  };
}

/**
 * Greenfield's webhook calls, under the store (`/api/v1/stores/{storeId}/webhooks/...`, what
 * BTCPay's PHP client calls) and under the webhook alone (`/api/v1/webhooks/{webhookId}/...`, as
 * BTCPay's document lists them; the store is the webhook's): list, create, get, replace, delete,
 * and the deliveries (list, one, its request body, redeliver). Each needs
 * `btcpay.store.webhooks.canmodifywebhooks` on the store.
 */
export function webhookRoutes(deps: {
  btcpayConfig: BtcpayConfig;
  btcpayWebhooks: BtcpayWebhooks;
  webhooksProtocolDeliveries: ProtocolDeliveries;
  webhooksEventLog: EventLog;
}): RouteDefinition[] {
  const path = (p: `/${string}`) => greenfieldPath(deps.btcpayConfig.pathPrefix, p);
  const webhooks = deps.btcpayWebhooks;

  /** The project of the call: the store named, or the webhook's (404 `webhook-not-found` for a webhook the key's operator does not own). */
  const storeOf = async (caller: BtcpayCaller, params: Record<string, string>, write: boolean): Promise<ProjectPrincipal> => {
    const named = params['storeId'];
    if (named !== undefined) return requireStore(caller, named, CAN_MODIFY_WEBHOOKS, { write });
    const project = await operatorProject(caller, await webhooks.projectOf(params['webhookId'] ?? ''), () =>
      btcpayErrors.btcpay_webhook_not_found({ message: 'The webhook was not found' }),
    );
    return requireStore(caller, project.id, CAN_MODIFY_WEBHOOKS, { write });
  };

  /** The delivery of the webhook the params name; 404 for an unknown webhook or a delivery of another. */
  const deliveryOf = async (project: ProjectPrincipal, params: Record<string, string>): Promise<ProtocolDeliveryView> => {
    const webhookId = params['webhookId']!;
    await webhooks.get(project.id, webhookId);
    const delivery = await deps.webhooksProtocolDeliveries.get(project.id, BTCPAY_SIGNER, webhookId, params['deliveryId']!);
    if (!delivery) throw deliveryNotFound();
    return delivery;
  };

  const routes: RouteDefinition[] = [
    defineRoute({
      ...GREENFIELD_ROUTE,
      method: 'GET',
      path: path('/api/v1/stores/:storeId/webhooks'),
      summary: "BTCPay Greenfield: the store's webhooks",
      handler: async ({ ctx }) => {
        const project = await storeOf(principalOf(ctx), ctx.params as Record<string, string>, false);
        return { body: await webhooks.list(project.id) };
      },
    }),
    defineRoute({
      ...GREENFIELD_ROUTE,
      method: 'POST',
      path: path('/api/v1/stores/:storeId/webhooks'),
      summary: 'BTCPay Greenfield: create a webhook (its secret is answered once, here)',
      body: AnyBody,
      handler: async ({ ctx, auth, requestId }) => {
        const project = await storeOf(principalOf(ctx), ctx.params as Record<string, string>, true);
        return { body: await webhooks.create(project, readWebhookInput(ctx.request.body), greenfieldActor(auth, requestId)) };
      },
    }),
  ];

  // The same calls under the store and under the webhook alone.
  for (const webhook of ['/api/v1/stores/:storeId/webhooks/:webhookId', '/api/v1/webhooks/:webhookId'] as const) {
    routes.push(
      defineRoute({
        ...GREENFIELD_ROUTE,
        method: 'GET',
        path: path(webhook),
        summary: 'BTCPay Greenfield: one webhook',
        handler: async ({ ctx }) => {
          const params = ctx.params as Record<string, string>;
          const project = await storeOf(principalOf(ctx), params, false);
          return { body: await webhooks.get(project.id, params['webhookId']!) };
        },
      }),
      defineRoute({
        ...GREENFIELD_ROUTE,
        method: 'PUT',
        path: path(webhook),
        summary: 'BTCPay Greenfield: replace a webhook (its secret stays unless one is given)',
        body: AnyBody,
        handler: async ({ ctx, auth, requestId }) => {
          const params = ctx.params as Record<string, string>;
          const project = await storeOf(principalOf(ctx), params, true);
          const input = readWebhookInput(ctx.request.body);
          return { body: await webhooks.update(project, params['webhookId']!, input, greenfieldActor(auth, requestId)) };
        },
      }),
      defineRoute({
        ...GREENFIELD_ROUTE,
        method: 'DELETE',
        path: path(webhook),
        summary: 'BTCPay Greenfield: delete a webhook (its pending deliveries end unsent)',
        handler: async ({ ctx, auth, requestId }) => {
          const params = ctx.params as Record<string, string>;
          const project = await storeOf(principalOf(ctx), params, true);
          await webhooks.delete(project.id, params['webhookId']!, greenfieldActor(auth, requestId));
          return { status: 200, body: '' };
        },
      }),
      defineRoute({
        ...GREENFIELD_ROUTE,
        method: 'GET',
        path: path(`${webhook}/deliveries`),
        summary: "BTCPay Greenfield: the webhook's latest deliveries, newest first",
        handler: async ({ ctx }) => {
          const params = ctx.params as Record<string, string>;
          const project = await storeOf(principalOf(ctx), params, false);
          await webhooks.get(project.id, params['webhookId']!);
          const count = countOf(ctx.query['count']);
          const listed = await deps.webhooksProtocolDeliveries.list(project.id, BTCPAY_SIGNER, params['webhookId']!, count);
          return { body: listed.map(webhookDeliveryData) };
        },
      }),
      defineRoute({
        ...GREENFIELD_ROUTE,
        method: 'GET',
        path: path(`${webhook}/deliveries/:deliveryId`),
        summary: 'BTCPay Greenfield: one delivery of the webhook',
        handler: async ({ ctx }) => {
          const params = ctx.params as Record<string, string>;
          const project = await storeOf(principalOf(ctx), params, false);
          return { body: webhookDeliveryData(await deliveryOf(project, params)) };
        },
      }),
      defineRoute({
        ...GREENFIELD_ROUTE,
        method: 'GET',
        path: path(`${webhook}/deliveries/:deliveryId/request`),
        summary: 'BTCPay Greenfield: the body a delivery sends, byte for byte',
        handler: async ({ ctx }) => {
          const params = ctx.params as Record<string, string>;
          const project = await storeOf(principalOf(ctx), params, false);
          const delivery = await deliveryOf(project, params);
          return { headers: { 'content-type': 'application/json' }, body: delivery.body };
        },
      }),
      defineRoute({
        ...GREENFIELD_ROUTE,
        method: 'POST',
        path: path(`${webhook}/deliveries/:deliveryId/redeliver`),
        summary: 'BTCPay Greenfield: send a delivery again as a new delivery (answers its id)',
        handler: async ({ ctx, auth, requestId }) => {
          const params = ctx.params as Record<string, string>;
          const project = await storeOf(principalOf(ctx), params, true);
          const delivery = await deliveryOf(project, params);
          const resent = await deps.webhooksEventLog.resend(project.id, delivery.id, greenfieldActor(auth, requestId));
          return { headers: { 'content-type': 'application/json' }, body: JSON.stringify(resent.event_id) };
        },
      }),
    );
  }
  return routes;
}

/** `?count=`: how many deliveries to list (BTCPay: all when left out); 422 on `count` for anything but a whole number. */
function countOf(value: unknown): number {
  if (value === undefined) return MAX_LISTED_DELIVERIES;
  const text = Array.isArray(value) ? value[0] : value;
  if (typeof text !== 'string' || !/^[0-9]{1,9}$/.test(text)) {
    throw btcpayErrors.btcpay_validation_failed({
      message: 'count must be a whole number.',
      details: { errors: [{ path: 'count', message: 'count must be a whole number.' }] },
    });
  }
  return Math.min(Number(text), MAX_LISTED_DELIVERIES);
}
