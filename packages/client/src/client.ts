/**
 * `GatewayClient`: every signed REST and sandbox operation of the gateway, typed from its OpenAPI
 * document, as resource methods (`invoices.create`, `sandbox.simulate.paid`, ...) and as
 * `request(operationId, args)`.
 */
import { OPERATIONS } from './generated/operations.js';
import type { OperationArgs, OperationBody, OperationId, OperationQuery, OperationResult } from './operation-types.js';
import { moneyOutSimulations, payoutsResource, refundsResource, type MoneyOutSend } from './money-out.js';
import { checkoutSessionsResource, paymentLinksResource, SESSION_OPERATIONS, type OperationCall, type OperationPages } from './sessions.js';
import { Transport, type TransportOptions } from './transport.js';

export type GatewayClientOptions = TransportOptions;

/**
 * Whether an operation may be repeated without a second effect, so retried on 429, 503 and network
 * errors: the gateway's OpenAPI document says so per operation (`x-retry-safe`: every read, and
 * invoice creation, idempotent on (project, `external_id`)), and the generated table carries it.
 */
export function isIdempotent(operationId: OperationId): boolean {
  return OPERATIONS[operationId].retrySafe;
}

type Paged = { items: readonly unknown[]; next_cursor?: string };
type PagedOperation = { [K in OperationId]: OperationResult<K> extends Paged ? K : never }[OperationId];
/** The item type of a paginated operation. */
export type PageItem<K extends OperationId> = OperationResult<K> extends { items: readonly (infer Item)[] } ? Item : never;

/** The operations of the two webhook delivery logs: the project's, and the sandbox's. */
const WEBHOOK_LOGS = {
  live: { list: 'getWebhooksEvents', retrieve: 'getWebhooksEventsByEventId', resend: 'postWebhooksEventsByEventIdResend', stream: 'getWebhooksStream' },
  sandbox: {
    list: 'getSandboxWebhooksEvents',
    retrieve: 'getSandboxWebhooksEventsByEventId',
    resend: 'postSandboxWebhooksEventsByEventIdResend',
    stream: 'getSandboxWebhooksStream',
  },
} as const satisfies Record<string, { list: PagedOperation; retrieve: OperationId; resend: OperationId; stream: OperationId }>;
type WebhookLog = (typeof WEBHOOK_LOGS)[keyof typeof WEBHOOK_LOGS];

export class GatewayClient {
  private readonly transport: Transport;

  constructor(options: GatewayClientOptions) {
    this.transport = new Transport(options);
  }

  /** The project id requests are signed for. */
  get projectId(): string {
    return this.transport.projectId;
  }

  /** Calls any operation by its operationId; resolves with the success body, throws `GatewayError` otherwise. */
  async request<K extends OperationId>(operationId: K, args: OperationArgs<K>): Promise<OperationResult<K>> {
    const { result } = await this.requestWithStatus(operationId, args);
    return result;
  }

  /** As {@link request}, with the HTTP status (e.g. 201 for a new invoice, 200 for a replay). */
  async requestWithStatus<K extends OperationId>(operationId: K, args: OperationArgs<K>): Promise<{ status: number; result: OperationResult<K> }> {
    const { status, result } = await this.operationCall(operationId, args as Parameters<OperationCall>[1]);
    return { status, result: result as OperationResult<K> };
  }

  /** A call of an operation of the table, with extra headers (an `Idempotency-Key` that makes it safe to retry). */
  private readonly operationCall: OperationCall = async (operationId, args, options = {}) => {
    const operation = OPERATIONS[operationId];
    const params = args.params ?? {};
    let path: string = operation.path;
    for (const name of operation.params as readonly string[]) {
      const value = params[name];
      if (typeof value !== 'string' || value === '') throw new TypeError(`${operationId}: path parameter ${name} is required`);
      path = path.replace(`{${name}}`, encodeURIComponent(value));
    }
    path += queryString(args.query as Record<string, unknown> | undefined);
    const response = await this.transport.send({
      method: operation.method,
      path,
      body: args.body,
      idempotent: isIdempotent(operationId) || options.retry === true,
      ...(options.headers ? { headers: options.headers } : {}),
    });
    return { status: response.status, result: response.body };
  };

  /** {@link paginate} for the resources, which name their list operation. */
  private readonly operationPages: OperationPages = (operationId, query) =>
    this.paginate(operationId as PagedOperation, { query } as OperationArgs<PagedOperation>);

  /**
   * An untyped signed call, for paths the typed table does not know (a newer gateway) and for
   * tools (`gateway api`). `path` may carry a query string. Retried like a read when `method` is
   * GET. Resolves with the status and parsed body of a 2xx answer; throws `GatewayError` otherwise.
   */
  async call(method: string, path: string, options: { readonly body?: unknown } = {}): Promise<{ status: number; body: unknown }> {
    const upper = method.toUpperCase();
    const response = await this.transport.send({ method: upper, path, body: options.body, idempotent: upper === 'GET' });
    return { status: response.status, body: response.body };
  }

  /** The calls of one webhook delivery log (the project's or the sandbox's), on its operations. */
  private webhookLog<L extends WebhookLog>(log: L) {
    return {
      events: {
        list: (query: OperationQuery<L['list']> = {}) => this.request<L['list']>(log.list, { query } as OperationArgs<L['list']>),
        iterate: (query: OperationQuery<L['list']> = {}) => this.paginate<L['list']>(log.list, { query } as OperationArgs<L['list']>),
        retrieve: (eventId: string) => this.request<L['retrieve']>(log.retrieve, { params: { event_id: eventId } } as OperationArgs<L['retrieve']>),
        /** Sends the event again with a fresh event_id (not retried: each call is a new event). */
        resend: (eventId: string) => this.request<L['resend']>(log.resend, { params: { event_id: eventId } } as OperationArgs<L['resend']>),
      },
      /** The project's events in commit order with their exact bodies, after a cursor (long poll with `wait`). */
      stream: (query: OperationQuery<L['stream']> = {}) => this.request<L['stream']>(log.stream, { query } as OperationArgs<L['stream']>),
    };
  }

  /** Every item of a cursor-paginated list, fetching pages as the loop asks for them. */
  async *paginate<K extends PagedOperation>(operationId: K, args: OperationArgs<K>): AsyncGenerator<PageItem<K>, void, undefined> {
    let cursor: string | undefined;
    do {
      const query = { ...(args.query ?? {}), ...(cursor === undefined ? {} : { cursor }) };
      const page = (await this.request(operationId, { ...args, query } as OperationArgs<K>)) as Paged;
      for (const item of page.items) yield item as PageItem<K>;
      cursor = page.next_cursor;
    } while (cursor !== undefined);
  }

  /** The project the client signs for. */
  project(): Promise<OperationResult<'getProject'>> {
    return this.request('getProject', {});
  }

  /** The project's wallets (production and testnet projects). */
  wallets(): Promise<OperationResult<'getWallets'>> {
    return this.request('getWallets', {});
  }

  /** Production and testnet invoices. */
  readonly invoices = {
    /** Creates an invoice; a replay with the same `external_id` answers the existing one. Retried safely. */
    create: (body: OperationBody<'postInvoices'>) => this.request('postInvoices', { body }),
    retrieve: (id: string) => this.request('getInvoicesById', { params: { id } }),
    /** One page; pass `next_cursor` back as `cursor`. */
    list: (query: OperationQuery<'getInvoices'> = {}) => this.request('getInvoices', { query }),
    /** Every matching invoice, newest first, across pages. */
    iterate: (query: OperationQuery<'getInvoices'> = {}) => this.paginate('getInvoices', { query }),
    cancel: (id: string) => this.request('postInvoicesByIdCancel', { params: { id } }),
  };

  /** Payments that matched no invoice. */
  readonly orphanPayments = {
    list: (query: OperationQuery<'getOrphanPayments'> = {}) => this.request('getOrphanPayments', { query }),
    iterate: (query: OperationQuery<'getOrphanPayments'> = {}) => this.paginate('getOrphanPayments', { query }),
    attribute: (txHash: string, body: OperationBody<'postOrphanPaymentsByTxHashAttribute'>) =>
      this.request('postOrphanPaymentsByTxHashAttribute', { params: { tx_hash: txHash }, body }),
  };

  /** The webhook delivery log. */
  readonly webhooks = this.webhookLog(WEBHOOK_LOGS.live);

  /** A signed call of a money-out resource (its path built by the resource), with its headers. */
  private readonly moneyOut: MoneyOutSend = async <T>(request: Parameters<MoneyOutSend>[0]) => {
    const response = await this.transport.send({
      method: request.method,
      path: request.path + queryString(request.query as Record<string, unknown> | undefined),
      body: request.body,
      idempotent: request.idempotent,
      ...(request.headers ? { headers: request.headers } : {}),
    });
    return { status: response.status, result: response.body as T };
  };

  /** Refunds of the project's invoices: proposed here, claimed by the payer, approved by an administrator. */
  readonly refunds = refundsResource(this.moneyOut, '/api/v1');

  /** Payouts to addresses the partner gives (settlements, withdrawals, fees); approved by an administrator. */
  readonly payouts = payoutsResource(this.moneyOut, '/api/v1');

  /** Checkout sessions: a price (any currency) the payer pays in the coin they pick on the session's page. */
  readonly checkoutSessions = checkoutSessionsResource(this.operationCall, this.operationPages, SESSION_OPERATIONS.live);

  /** Payment links: reusable URLs (and QR codes) that open a checkout session for each payer. */
  readonly paymentLinks = paymentLinksResource(this.operationCall, this.operationPages, SESSION_OPERATIONS.live);

  /** The sandbox API (a sandbox project's `sk_sandbox_` secret). */
  readonly sandbox = {
    invoices: {
      create: (body: OperationBody<'postSandboxInvoices'>) => this.request('postSandboxInvoices', { body }),
      retrieve: (id: string) => this.request('getSandboxInvoicesById', { params: { id } }),
      list: (query: OperationQuery<'getSandboxInvoices'> = {}) => this.request('getSandboxInvoices', { query }),
      iterate: (query: OperationQuery<'getSandboxInvoices'> = {}) => this.paginate('getSandboxInvoices', { query }),
      cancel: (id: string) => this.request('postSandboxInvoicesByIdCancel', { params: { id } }),
    },
    webhooks: this.webhookLog(WEBHOOK_LOGS.sandbox),
    refunds: refundsResource(this.moneyOut, '/api/v1/sandbox'),
    payouts: payoutsResource(this.moneyOut, '/api/v1/sandbox'),
    checkoutSessions: checkoutSessionsResource(this.operationCall, this.operationPages, SESSION_OPERATIONS.sandbox),
    paymentLinks: paymentLinksResource(this.operationCall, this.operationPages, SESSION_OPERATIONS.sandbox),
    /** Drive a sandbox invoice through its lifecycle (spec 4.5); each emits its webhook event. */
    simulate: {
      detect: (invoiceId: string, body: OperationBody<'postSandboxInvoicesByInvoiceIdSimulateDetect'> = {}) =>
        this.request('postSandboxInvoicesByInvoiceIdSimulateDetect', { params: { invoiceId }, body }),
      paid: (invoiceId: string) => this.request('postSandboxInvoicesByInvoiceIdSimulatePaid', { params: { invoiceId } }),
      overpaid: (invoiceId: string, body: OperationBody<'postSandboxInvoicesByInvoiceIdSimulateOverpaid'>) =>
        this.request('postSandboxInvoicesByInvoiceIdSimulateOverpaid', { params: { invoiceId }, body }),
      partial: (invoiceId: string, body: OperationBody<'postSandboxInvoicesByInvoiceIdSimulatePartial'>) =>
        this.request('postSandboxInvoicesByInvoiceIdSimulatePartial', { params: { invoiceId }, body }),
      expire: (invoiceId: string) => this.request('postSandboxInvoicesByInvoiceIdSimulateExpire', { params: { invoiceId } }),
      latePayment: (invoiceId: string) => this.request('postSandboxInvoicesByInvoiceIdSimulateLatePayment', { params: { invoiceId } }),
      reorg: (invoiceId: string) => this.request('postSandboxInvoicesByInvoiceIdSimulateReorg', { params: { invoiceId } }),
      reconfirm: (invoiceId: string) => this.request('postSandboxInvoicesByInvoiceIdSimulateReconfirm', { params: { invoiceId } }),
      duplicateDelivery: (invoiceId: string) => this.request('postSandboxInvoicesByInvoiceIdSimulateDuplicateDelivery', { params: { invoiceId } }),
      event: (invoiceId: string, body: OperationBody<'postSandboxInvoicesByInvoiceIdSimulateEvent'>) =>
        this.request('postSandboxInvoicesByInvoiceIdSimulateEvent', { params: { invoiceId }, body }),
      /** The payer's pick of a coin on a sandbox checkout session's page: the invoice of that coin is created (answers the session; its `invoice_id`). */
      pick: (sessionId: string, coin: string) => this.request('postSandboxCheckoutSessionsByIdSimulatePick', { params: { id: sessionId }, body: { coin } }),
      /** `refund(id, 'claim' | 'approve' | 'send' | 'confirm' | 'fail', { address? })`, `payout(id, 'approve' | 'send' | 'confirm' | 'fail')`. */
      ...moneyOutSimulations(this.moneyOut, '/api/v1/sandbox'),
    },
    clock: {
      /** Adds confirmations to every detected invoice of the project on `chain`. */
      advance: (body: OperationBody<'postSandboxByProjectIdClockAdvance'>) =>
        this.request('postSandboxByProjectIdClockAdvance', { params: { projectId: this.projectId }, body }),
    },
    /** Purges invoices, transactions, events and the pool; keeps the project, keys and wallets. */
    reset: () => this.request('postSandboxByProjectIdReset', { params: { projectId: this.projectId } }),
    /** Deletes the sandbox project and its keys, irreversibly. */
    delete: () => this.request('deleteSandboxByProjectId', { params: { projectId: this.projectId } }),
    wallets: () => this.request('getSandboxByProjectIdWallets', { params: { projectId: this.projectId } }),
  };
}

/** `?a=1&b=2` from the defined values, in the order given; '' when none. */
function queryString(query: Record<string, unknown> | undefined): string {
  if (!query) return '';
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== null) search.append(key, String(value));
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}
