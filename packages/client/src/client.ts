/**
 * `GatewayClient`: every signed REST and sandbox operation of the gateway, typed from its OpenAPI
 * document, as resource methods (`invoices.create`, `sandbox.simulate.paid`, ...) and as
 * `request(operationId, args)`. The resources call the sandbox's routes when the secret is a
 * sandbox secret (`sk_sandbox_`), so going live changes only the credentials.
 */
import { OPERATIONS, type Operations } from './generated/operations.js';
import type { OperationArgs, OperationBody, OperationId, OperationQuery, OperationResult } from './operation-types.js';
import { moneyOutSimulations, payoutsResource, refundsResource, type MoneyOutSend } from './money-out.js';
import { checkoutSessionsResource, paymentLinksResource, SESSION_OPERATIONS, type OperationCall, type OperationPages } from './sessions.js';
import { Transport, type TransportOptions } from './transport.js';

export type GatewayClientOptions = TransportOptions;

/** The prefix of a sandbox project's API secret (spec 5.1); a production or testnet secret is 64 hex characters. */
export const SANDBOX_SECRET_PREFIX = 'sk_sandbox_';

/** Whether `apiSecret` is a sandbox secret: the client's resources then call the `/api/v1/sandbox` routes. */
export function isSandboxSecret(apiSecret: string): boolean {
  return apiSecret.startsWith(SANDBOX_SECRET_PREFIX);
}

/**
 * Each operation of a production or testnet project that the sandbox mirrors, and its twin: the same
 * method on the same path under `/api/v1/sandbox`, with the same arguments and answers (checked
 * below by the compiler, and against the generated table by the client's tests). The resources of
 * a client holding a sandbox secret call the twin. Operations not listed have no twin (orphan
 * payments): a sandbox secret gets the gateway's 403 `production_project_required` there.
 */
export const SANDBOX_TWINS = {
  getInvoices: 'getSandboxInvoices',
  postInvoices: 'postSandboxInvoices',
  getInvoicesById: 'getSandboxInvoicesById',
  getInvoicesByIdTransactions: 'getSandboxInvoicesByIdTransactions',
  postInvoicesByIdCancel: 'postSandboxInvoicesByIdCancel',
  getWebhooksStream: 'getSandboxWebhooksStream',
  getWebhooksEvents: 'getSandboxWebhooksEvents',
  getWebhooksEventsByEventId: 'getSandboxWebhooksEventsByEventId',
  postWebhooksEventsByEventIdResend: 'postSandboxWebhooksEventsByEventIdResend',
  getInvoicesByInvoiceIdRefunds: 'getSandboxInvoicesByInvoiceIdRefunds',
  postInvoicesByInvoiceIdRefunds: 'postSandboxInvoicesByInvoiceIdRefunds',
  getRefunds: 'getSandboxRefunds',
  getRefundsById: 'getSandboxRefundsById',
  postRefundsByIdCancel: 'postSandboxRefundsByIdCancel',
  getPayouts: 'getSandboxPayouts',
  postPayouts: 'postSandboxPayouts',
  getPayoutsById: 'getSandboxPayoutsById',
  postPayoutsByIdCancel: 'postSandboxPayoutsByIdCancel',
  getCheckoutSessions: 'getSandboxCheckoutSessions',
  postCheckoutSessions: 'postSandboxCheckoutSessions',
  getCheckoutSessionsById: 'getSandboxCheckoutSessionsById',
  postCheckoutSessionsByIdExpire: 'postSandboxCheckoutSessionsByIdExpire',
  getPaymentLinks: 'getSandboxPaymentLinks',
  postPaymentLinks: 'postSandboxPaymentLinks',
  getPaymentLinksById: 'getSandboxPaymentLinksById',
  postPaymentLinksByIdDeactivate: 'postSandboxPaymentLinksByIdDeactivate',
} as const satisfies Partial<Record<OperationId, OperationId>>;
type Twinned = keyof typeof SANDBOX_TWINS;

/** True when two types are each assignable to the other. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** The twins that take or answer something else than their live operation (must stay `never`: the resources type a twin's call by its live operation). */
type MismatchedTwins = {
  [K in Twinned]: Same<
    [Operations[K]['params'], Operations[K]['query'], Operations[K]['body'], OperationResult<K>],
    [
      Operations[(typeof SANDBOX_TWINS)[K]]['params'],
      Operations[(typeof SANDBOX_TWINS)[K]]['query'],
      Operations[(typeof SANDBOX_TWINS)[K]]['body'],
      OperationResult<(typeof SANDBOX_TWINS)[K]>,
    ]
  > extends true
    ? never
    : K;
}[Twinned];
const twinsMatch: [MismatchedTwins] extends [never] ? true : MismatchedTwins = true;
void twinsMatch;

/** A wallet of {@link GatewayClient.wallets}: `chain`, `xpub`, `bound_at_iso`, and the ownership fields a production or testnet project's listing adds (absent in the sandbox's). */
export type WalletEntry = Omit<LiveWallet, WalletOwnershipField> & Partial<Pick<LiveWallet, WalletOwnershipField>>;
type LiveWallet = OperationResult<'getWallets'>[number];
type WalletOwnershipField = Exclude<keyof LiveWallet, keyof OperationResult<'getSandboxByProjectIdWallets'>[number]>;

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
  /** Whether the secret is a sandbox secret (`sk_sandbox_`): the resources then call the sandbox's routes. */
  readonly isSandbox: boolean;

  constructor(options: GatewayClientOptions) {
    this.transport = new Transport(options);
    this.isSandbox = isSandboxSecret(options.apiSecret);
    // Here, not as field initializers: those run before this constructor knows the secret's kind.
    const moneyOutPrefix = this.isSandbox ? '/api/v1/sandbox' : '/api/v1';
    this.refunds = refundsResource(this.moneyOut, moneyOutPrefix);
    this.payouts = payoutsResource(this.moneyOut, moneyOutPrefix);
  }

  /** The project id requests are signed for. */
  get projectId(): string {
    return this.transport.projectId;
  }

  /**
   * The operation the resources call for `operationId`: its sandbox twin when the secret is a
   * sandbox secret, else itself. Typed as the live operation: the twins take and answer the same
   * shapes (`MismatchedTwins`).
   */
  private routed<K extends OperationId>(operationId: K): K {
    if (!this.isSandbox || !Object.hasOwn(SANDBOX_TWINS, operationId)) return operationId;
    return SANDBOX_TWINS[operationId as Twinned] as K;
  }

  /** {@link request} of the operation the secret's kind calls ({@link routed}). */
  private resourceRequest<K extends OperationId>(operationId: K, args: OperationArgs<K>): Promise<OperationResult<K>> {
    return this.request(this.routed(operationId), args);
  }

  /** {@link paginate} of the operation the secret's kind calls. */
  private resourcePages<K extends PagedOperation>(operationId: K, args: OperationArgs<K>): AsyncGenerator<PageItem<K>, void, undefined> {
    return this.paginate(this.routed(operationId), args);
  }

  /** The resources' {@link operationCall}: the operation the secret's kind calls. */
  private readonly routedCall: OperationCall = (operationId, args, options) => this.operationCall(this.routed(operationId), args, options);

  /** The resources' {@link operationPages}: the list the secret's kind calls. */
  private readonly routedPages: OperationPages = (operationId, query) => this.operationPages(this.routed(operationId), query);

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

  /**
   * The calls of one webhook delivery log on its operations: the project's (`routed`: the
   * sandbox's for a sandbox secret), or the sandbox's.
   */
  private webhookLog<L extends WebhookLog>(log: L, routed = false) {
    const request = <K extends OperationId>(operationId: K, args: OperationArgs<K>) =>
      routed ? this.resourceRequest(operationId, args) : this.request(operationId, args);
    const pages = <K extends PagedOperation>(operationId: K, args: OperationArgs<K>) =>
      routed ? this.resourcePages(operationId, args) : this.paginate(operationId, args);
    return {
      events: {
        list: (query: OperationQuery<L['list']> = {}) => request<L['list']>(log.list, { query } as OperationArgs<L['list']>),
        iterate: (query: OperationQuery<L['list']> = {}) => pages<L['list']>(log.list, { query } as OperationArgs<L['list']>),
        retrieve: (eventId: string) => request<L['retrieve']>(log.retrieve, { params: { event_id: eventId } } as OperationArgs<L['retrieve']>),
        /** Sends the event again with a fresh event_id (not retried: each call is a new event). */
        resend: (eventId: string) => request<L['resend']>(log.resend, { params: { event_id: eventId } } as OperationArgs<L['resend']>),
      },
      /** The project's events in commit order with their exact bodies, after a cursor (long poll with `wait`). */
      stream: (query: OperationQuery<L['stream']> = {}) => request<L['stream']>(log.stream, { query } as OperationArgs<L['stream']>),
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

  /** The project the client signs for (its `kind`: `production`, `testnet` or `sandbox`). */
  project(): Promise<OperationResult<'getProject'>> {
    return this.request('getProject', {});
  }

  /**
   * The project's wallets, one per chain: `GET /api/v1/wallets` (with the ownership fields), or
   * for a sandbox secret the sandbox project's seven testnet xpubs (`GET /api/v1/sandbox/{projectId}/wallets`).
   */
  wallets(): Promise<WalletEntry[]> {
    return this.isSandbox ? this.request('getSandboxByProjectIdWallets', { params: { projectId: this.projectId } }) : this.request('getWallets', {});
  }

  /** The project's invoices (`/api/v1/invoices`; `/api/v1/sandbox/invoices` for a sandbox secret). */
  readonly invoices = {
    /** Creates an invoice; a replay with the same `external_id` answers the existing one. Retried safely. */
    create: (body: OperationBody<'postInvoices'>) => this.resourceRequest('postInvoices', { body }),
    retrieve: (id: string) => this.resourceRequest('getInvoicesById', { params: { id } }),
    /** One page; pass `next_cursor` back as `cursor`. */
    list: (query: OperationQuery<'getInvoices'> = {}) => this.resourceRequest('getInvoices', { query }),
    /** Every matching invoice, newest first, across pages. */
    iterate: (query: OperationQuery<'getInvoices'> = {}) => this.resourcePages('getInvoices', { query }),
    /** One page of the invoice's transactions. */
    transactions: (id: string, query: OperationQuery<'getInvoicesByIdTransactions'> = {}) =>
      this.resourceRequest('getInvoicesByIdTransactions', { params: { id }, query }),
    cancel: (id: string) => this.resourceRequest('postInvoicesByIdCancel', { params: { id } }),
  };

  /** Payments that matched no invoice (production and testnet projects: the sandbox has none, a sandbox secret gets 403 `production_project_required`). */
  readonly orphanPayments = {
    list: (query: OperationQuery<'getOrphanPayments'> = {}) => this.request('getOrphanPayments', { query }),
    iterate: (query: OperationQuery<'getOrphanPayments'> = {}) => this.paginate('getOrphanPayments', { query }),
    attribute: (txHash: string, body: OperationBody<'postOrphanPaymentsByTxHashAttribute'>) =>
      this.request('postOrphanPaymentsByTxHashAttribute', { params: { tx_hash: txHash }, body }),
  };

  /** The webhook delivery log (the sandbox's for a sandbox secret). */
  readonly webhooks = this.webhookLog(WEBHOOK_LOGS.live, true);

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
  readonly refunds: ReturnType<typeof refundsResource>;

  /** Payouts to addresses the partner gives (settlements, withdrawals, fees); approved by an administrator. */
  readonly payouts: ReturnType<typeof payoutsResource>;

  /** Checkout sessions: a price (any currency) the payer pays in the coin they pick on the session's page. */
  readonly checkoutSessions = checkoutSessionsResource(this.routedCall, this.routedPages, SESSION_OPERATIONS.live);

  /** Payment links: reusable URLs (and QR codes) that open a checkout session for each payer. */
  readonly paymentLinks = paymentLinksResource(this.routedCall, this.routedPages, SESSION_OPERATIONS.live);

  /**
   * What only the sandbox has (a sandbox project's `sk_sandbox_` secret): the simulations, the
   * clock, reset and delete. The resource mirrors here (`sandbox.invoices`, ...) are deprecated
   * aliases of the top-level resources, which call the sandbox's routes for a sandbox secret.
   */
  readonly sandbox = {
    /** @deprecated Use `invoices`: with a sandbox secret it calls these routes. */
    invoices: {
      create: (body: OperationBody<'postSandboxInvoices'>) => this.request('postSandboxInvoices', { body }),
      retrieve: (id: string) => this.request('getSandboxInvoicesById', { params: { id } }),
      list: (query: OperationQuery<'getSandboxInvoices'> = {}) => this.request('getSandboxInvoices', { query }),
      iterate: (query: OperationQuery<'getSandboxInvoices'> = {}) => this.paginate('getSandboxInvoices', { query }),
      cancel: (id: string) => this.request('postSandboxInvoicesByIdCancel', { params: { id } }),
    },
    /** @deprecated Use `webhooks`: with a sandbox secret it calls these routes. */
    webhooks: this.webhookLog(WEBHOOK_LOGS.sandbox),
    /** @deprecated Use `refunds`: with a sandbox secret it calls these routes. */
    refunds: refundsResource(this.moneyOut, '/api/v1/sandbox'),
    /** @deprecated Use `payouts`: with a sandbox secret it calls these routes. */
    payouts: payoutsResource(this.moneyOut, '/api/v1/sandbox'),
    /** @deprecated Use `checkoutSessions`: with a sandbox secret it calls these routes. */
    checkoutSessions: checkoutSessionsResource(this.operationCall, this.operationPages, SESSION_OPERATIONS.sandbox),
    /** @deprecated Use `paymentLinks`: with a sandbox secret it calls these routes. */
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
    /** @deprecated Use `wallets()`: with a sandbox secret it calls this route. */
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
