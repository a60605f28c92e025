import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CLI_ACTOR, type KernelRole } from '@gw/kernel';
import { startTestKernel, type TestDatabase, type TestKernel } from '@gw/kernel/testing';
import { addressPoolPlugin } from '@gw/plugin-address-pool';
import { invoicesPlugin } from '@gw/plugin-invoices';
import { ratesPlugin } from '@gw/plugin-rates';
import { tenancyPlugin } from '@gw/plugin-tenancy';
import { walletsPlugin } from '@gw/plugin-wallets';
import { webhooksPlugin } from '../src/index.js';
import { ALL_CHAINS, FIXED_RATES } from '../../invoices/test/helpers.js';

export { projectWithPools, type TestProject } from '../../invoices/test/helpers.js';

export const WEBHOOK_PLUGINS = [tenancyPlugin, walletsPlugin, addressPoolPlugin, ratesPlugin, invoicesPlugin, webhooksPlugin];

/** Fast retries for tests: 1 s, 2 s between three attempts, no jitter, 2 s timeout. */
export const FAST_RETRIES = {
  'plugins.webhooks.retryBaseSeconds': 1,
  'plugins.webhooks.maxAttempts': 3,
  'plugins.webhooks.retryJitter': 0,
  'plugins.webhooks.timeoutMs': 2000,
};

/**
 * A gateway with workers (role `all`, unless `options.role` says otherwise) whose deliveries may
 * reach the local receivers; on a fresh database unless `options.database` is given.
 */
export function startWebhooksKernel(config: Record<string, unknown> = {}, options: { role?: KernelRole; database?: TestDatabase } = {}): Promise<TestKernel> {
  return startTestKernel({
    plugins: WEBHOOK_PLUGINS,
    chains: ALL_CHAINS,
    role: options.role ?? 'all',
    ...(options.database ? { database: options.database } : {}),
    config: {
      'plugins.rates.providers': ['fixed'],
      'plugins.rates.fixed': FIXED_RATES,
      'plugins.address-pool.targetFree': 5,
      'plugins.webhooks.allowPrivateTargets': true,
      // The receivers of these tests are on loopback; the tests read what they answered.
      'plugins.webhooks.privateResponseExcerpts': true,
      'plugins.webhooks.privateAttemptDetails': true,
      ...FAST_RETRIES,
      ...config,
    },
  });
}

export interface ReceivedRequest {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly at: number;
}

export interface Reply {
  readonly status?: number;
  readonly body?: string;
  readonly delayMs?: number;
  /** Instead of an HTTP response: `reset` drops the connection, `garbage` writes bytes that are not HTTP and closes. */
  readonly misbehave?: 'reset' | 'garbage';
}

/** A partner's endpoint on a free local port: records every request, answers as `reply` says. */
export class Receiver {
  readonly requests: ReceivedRequest[] = [];
  reply: (request: ReceivedRequest) => Reply = () => ({ status: 200, body: '{"ok":true}' });
  private constructor(private readonly server: Server, readonly url: string) {}

  static async start(): Promise<Receiver> {
    let receiver: Receiver | undefined;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const request = { path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
        receiver!.requests.push(request);
        const reply = receiver!.reply(request);
        const send = () => {
          if (res.destroyed) return;
          if (reply.misbehave === 'reset') return void req.socket.resetAndDestroy();
          if (reply.misbehave === 'garbage') return void req.socket.end('SMTP READY\r\n\r\n\u0000\u0001not http at all');
          res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' });
          res.end(reply.body ?? '');
        };
        if (reply.delayMs) setTimeout(send, reply.delayMs);
        else send();
      });
    });
    server.keepAliveTimeout = 30_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiver = new Receiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return receiver;
  }

  /** Requests carrying this event id (header), in arrival order. */
  forEvent(eventId: string): ReceivedRequest[] {
    return this.requests.filter((r) => r.headers['x-service-event-id'] === eventId);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * An ETH invoice of `projectId` with `callback_url` `url`, and `count` `invoice.detected` events for
 * it written through the outbox (with their delivery jobs) in one transaction; returns their ids.
 * For tests of delivery itself: the events carry `n` (0..count-1) in their data.
 */
export async function invoiceWithEvents(gw: TestKernel, projectId: string, url: string, count: number, externalId = `events-${Math.random().toString(36).slice(2)}`): Promise<string[]> {
  const { invoicesService, tenancyProjects, db, invoiceEvents } = gw.kernel.cradle;
  const { invoice } = await invoicesService.create((await tenancyProjects.principal(projectId))!, { external_id: externalId, amount_crypto: '0.01', coin: 'eth', callback_url: url }, CLI_ACTOR);
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
