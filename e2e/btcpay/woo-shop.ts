/**
 * A WooCommerce shop as the end-to-end tests of issue 39 play it: the plugin's steps through BTCPay's
 * PHP client (`woocommerce-driver.ts`) against the validating proxy, the options it stores once
 * connected, its webhook endpoint (a local receiver) and the checks its webhook handler makes.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ExecutionContext } from 'ava';
import { waitFor } from '@gw/kernel/testing';
import { Receiver, type ReceivedRequest } from '@gw/testing';
import type { GreenfieldValidator } from './greenfield-validator.js';
import { runWooStep, type WooStep } from './woocommerce-driver.js';
import { WOO_EVENTS, WOO_PERMISSIONS } from '@gw/plugin-btcpay/testing';

export { WOO_EVENTS, WOO_PERMISSIONS };

/** What the plugin stores once connected (its `btcpay_gf_*` options). */
export interface ShopOptions {
  readonly storeId: string;
  /** The store's payment methods as the plugin's gateway symbols (`BTC_CHAIN`). */
  readonly paymentMethods: readonly string[];
}

/** The webhook as the plugin stores it (`btcpay_gf_webhook`). */
export interface StoredWebhook {
  readonly id: string;
  readonly secret: string;
  readonly url: string;
}

/** A delivery the shop received, and its parsed body. */
export interface Delivery {
  readonly request: ReceivedRequest;
  readonly event: any;
}

let orderNumber = 1000;

export class WooShop {
  private options: ShopOptions | undefined;
  private hook: StoredWebhook | undefined;

  private constructor(
    /** The BTCPay server URL the shop is given: the proxy's `{url}/btcpay`. */
    readonly greenfieldUrl: string,
    readonly key: string,
    /** The shop's webhook endpoint. */
    readonly endpoint: Receiver,
    private readonly validator: GreenfieldValidator,
  ) {}

  static async open(greenfieldUrl: string, key: string, validator: GreenfieldValidator): Promise<WooShop> {
    return new WooShop(greenfieldUrl, key, await Receiver.start(), validator);
  }

  close(): Promise<void> {
    return this.endpoint.close();
  }

  /** A step of the plugin with the shop's key (or `token`). */
  step(step: WooStep, input: Record<string, unknown> = {}, token = this.key): Promise<any> {
    return runWooStep(step, { url: this.greenfieldUrl, key: token, input });
  }

  /** The URL the plugin registers as its webhook (`WC()->api_request_url('btcpaygf_default')`). */
  get webhookUrl(): string {
    return `${this.endpoint.url}/?wc-api=btcpaygf_default`;
  }

  /** Runs the `connect` step and keeps what the plugin stores; its whole result. */
  async connect(): Promise<any> {
    const result = await this.step('connect');
    this.options = { storeId: result.storeId, paymentMethods: result.paymentMethods };
    return result;
  }

  /** Runs the `register-webhook` step and keeps the webhook as the plugin stores it; its whole result. */
  async registerWebhook(): Promise<any> {
    const result = await this.step('register-webhook', { storeId: this.stored.storeId, webhookUrl: this.webhookUrl });
    this.hook = { id: result.id, secret: result.secret, url: result.url };
    return result;
  }

  /** What the shop stored; the steps after connecting need it. */
  get stored(): ShopOptions {
    if (!this.options) throw new Error('the shop did not connect (see the connecting test)');
    return this.options;
  }

  /** The webhook the shop registered (its id, secret and URL). */
  get webhook(): StoredWebhook {
    if (!this.hook) throw new Error('the shop registered no webhook (see the webhook test)');
    return this.hook;
  }

  /** A WooCommerce order as the plugin passes it to createInvoice (customer data sent, medium speed). */
  order(total: string, currency = 'EUR', extra: Record<string, unknown> = {}): Record<string, any> {
    const number = ++orderNumber;
    return {
      id: number,
      number: String(number),
      total,
      currency,
      tax: '3.90',
      editUrl: `https://shop.example/wp-admin/post.php?post=${number}&action=edit`,
      returnUrl: `https://shop.example/checkout/order-received/${number}/?key=wc_order_${number}`,
      speedPolicy: 'MediumSpeed',
      paymentMethods: this.options?.paymentMethods ?? [],
      sendCustomerData: true,
      email: `buyer-${number}@example.test`,
      name: 'Ana Silva',
      ...extra,
    };
  }

  /** The deliveries received for `invoiceId`, in arrival order. */
  deliveriesOf(invoiceId: string): Delivery[] {
    return this.endpoint.requests.map((request) => ({ request, event: JSON.parse(request.body) })).filter(({ event }) => event.invoiceId === invoiceId);
  }

  /** Waits until an event of each of `types` has arrived for `invoiceId`; every delivery for it. */
  waitForEvents(invoiceId: string, types: readonly string[]): Promise<Delivery[]> {
    return waitFor(
      async () => {
        const received = this.deliveriesOf(invoiceId);
        return types.every((type) => received.some(({ event }) => event.type === type)) && received;
      },
      30_000,
      `${types.join(', ')} for ${invoiceId}`,
    );
  }

  /**
   * The plugin's webhook handler on every delivery of `invoiceId` (the signature with the stored
   * secret, the fields it reads), BTCPay's scheme checked again here, each body against the
   * document's events; the events.
   */
  async checkDeliveries(t: ExecutionContext, invoiceId: string): Promise<any[]> {
    const received = this.deliveriesOf(invoiceId);
    const { storeId } = this.stored;
    const webhook = this.webhook;
    for (const { request, event } of received) {
      t.true(signatureValid(request, webhook.secret), `BTCPay-Sig of ${event.type}`);
      t.deepEqual(this.validator.checkWebhookEvent(request.body), [], `${event.type} against the document`);
      t.is(event.storeId, storeId);
      t.is(event.webhookId, webhook.id);
      t.is(typeof event.deliveryId, 'string');
      t.true(Number.isInteger(event.timestamp), 'timestamp in whole seconds');
    }
    const checked = await this.step('webhooks', {
      secret: webhook.secret,
      deliveries: received.map(({ request }) => ({ body: request.body, signature: request.headers['btcpay-sig'] })),
    });
    for (const delivery of checked.deliveries) {
      t.true(delivery.valid, `the plugin's signature check of ${delivery.type}`);
      t.deepEqual(delivery.missing, [], `the fields the plugin reads on ${delivery.type}`);
    }
    return received.map(({ event }) => event);
  }
}

/** BTCPay's scheme: `BTCPay-Sig: sha256=<hex HMAC-SHA256(secret, raw body)>`. */
export function signatureValid(request: ReceivedRequest, secret: string): boolean {
  const header = request.headers['btcpay-sig'];
  if (typeof header !== 'string') return false;
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(request.body, 'utf8').digest('hex')}`);
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
