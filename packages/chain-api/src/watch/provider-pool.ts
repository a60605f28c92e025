/**
 * Failover over the configured providers of one chain network. Every call goes to the provider
 * that last answered well; a timeout, a 429, a 5xx, a network error or a response that fails the
 * caller's checks moves it to the next one. When all fail, the last {@link ProviderError} is
 * thrown and the scanner retries later (it never skips a block). Each attempt is reported to
 * `onOutcome`, which the watchers plugin turns into metrics.
 *
 * With a {@link ProviderBudget}, each request to an endpoint with a `limit` first takes its turn
 * under the limit (as many turns as the calls it carries: a JSON-RPC batch of N calls takes N); an
 * endpoint that rests (after a 429, or its day's requests used up) is not asked at all: the attempt
 * fails as `rate_limited` with no request sent, and the next endpoint takes over.
 */
import { readFile } from 'node:fs/promises';
import { trimTrailing } from '../trim-trailing.js';
import type { ProviderRateLimit } from './public-provider.js';

/** One configured provider (Esplora, a JSON-RPC node, TronGrid, Blockfrost, toncenter, ...). */
export interface ProviderEndpoint {
  /** Label for logs and metrics. */
  readonly name: string;
  /** Base URL; request paths are appended to it. */
  readonly url: string;
  /** Extra headers on every request (API keys: `project_id`, `TRON-PRO-API-KEY`, `X-API-Key`, ...). */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Which API the provider speaks, where a chain's watcher reads more than one (Bitcoin: `esplora`,
   * the default, or `bitcoin-core` JSON-RPC). The chain's watcher checks it.
   */
  readonly kind?: string;
  /** HTTP Basic auth user (Bitcoin Core `rpcuser`, or any name for bcoin's api key). */
  readonly username?: string;
  /** HTTP Basic auth password. */
  readonly password?: string;
  /**
   * A `user:password` cookie file (Bitcoin Core's `.cookie`), read at every request because the
   * node writes a new one at each start. Takes the place of `username`/`password`.
   */
  readonly cookieFile?: string;
  /** WebSocket URL of the same provider, for push (EVM `eth_subscribe`); absent: polling only. */
  readonly wsUrl?: string;
  /**
   * ZeroMQ endpoint of the same node, for push (Bitcoin Core `zmqpubhashblock` and
   * `zmqpubrawtx`, e.g. `tcp://127.0.0.1:28332`); absent: polling only.
   */
  readonly zmqUrl?: string;
  /**
   * Who runs the provider: endpoints of one operator are one source for the quorum (issue 40).
   * Public providers name theirs; a configured provider without one counts as the gateway
   * operator's own (`OWN_OPERATOR`), so that all of them together are one source.
   */
  readonly operator?: string;
  /** Its request limits: requests are paced under them across instances (`ProviderBudget`). Absent: unlimited (an own node). */
  readonly limit?: ProviderRateLimit;
  /**
   * Whose limit `limit` is, where it is wider than this endpoint of this network: endpoints with
   * the same scope draw on one budget, whichever network they serve (a public operator's limit per
   * client address across its hosts: `publicnode.com`). Absent: a public endpoint's scope is its
   * URL's host (mempool.space serves mainnet and signet under one limit), a configured one's is
   * its own on its network.
   */
  readonly limitScope?: string;
  /** `public`: from the chain's data (`NetworkDefinition.publicProviders`); `configured`: from the config file. */
  readonly origin?: 'public' | 'configured';
}

/** The operator of configured providers that name none: the gateway operator's own, one source for the quorum. */
export const OWN_OPERATOR = 'own';

/** Who runs `endpoint`, for the quorum's independence. */
export function operatorOf(endpoint: ProviderEndpoint): string {
  return endpoint.operator ?? OWN_OPERATOR;
}

/**
 * Paces the requests of endpoints with a `limit`, shared by every instance of the gateway (the
 * watchers plugin keeps it in PostgreSQL), and rests an endpoint that answered 429.
 */
export interface ProviderBudget {
  /**
   * Called before each request to an endpoint with a `limit`, with the number of calls the request
   * carries (1 unless given: a JSON-RPC batch carries one per call, and providers count them, not
   * HTTP requests). Resolves once the request may be sent under the limit (waiting for its turn
   * when the pace asks for it; a request of N calls takes N turns: it goes at the first, and the
   * next request waits for the other N − 1), or answers `{ restingUntil }` without waiting when the
   * endpoint rests (after a 429, or its day's requests are used up) or its turn is further off than
   * the budget lets a request wait: the pool then moves on to the next endpoint as if this one had
   * answered 429, without sending anything.
   */
  acquire(endpoint: ProviderEndpoint, calls?: number): Promise<{ readonly restingUntil?: Date }>;
  /** The endpoint answered 429: it rests for `retryAfterMs` when it gave one, else a backoff that doubles per 429 in a row. */
  rateLimited(endpoint: ProviderEndpoint, retryAfterMs: number | undefined): Promise<void>;
  /** The endpoint answered: a streak of 429s is over. */
  answered(endpoint: ProviderEndpoint): Promise<void>;
}

/** The `Authorization` header of an endpoint's Basic auth, or undefined when it has none. */
export async function basicAuthHeader(endpoint: ProviderEndpoint): Promise<string | undefined> {
  let credentials: string | undefined;
  if (endpoint.cookieFile !== undefined) {
    try {
      credentials = (await readFile(endpoint.cookieFile, 'utf8')).trim();
    } catch (error) {
      throw new ProviderError('network', endpoint.name, `cookie file ${endpoint.cookieFile} not read: ${(error as Error).message}`);
    }
  } else if (endpoint.username !== undefined || endpoint.password !== undefined) {
    credentials = `${endpoint.username ?? ''}:${endpoint.password ?? ''}`;
  }
  return credentials === undefined ? undefined : `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}`;
}

/** Why a provider call failed. */
export type ProviderFailure = 'timeout' | 'rate_limited' | 'http_error' | 'network' | 'malformed';

export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  constructor(
    readonly failure: ProviderFailure,
    readonly provider: string,
    message: string,
    /** From a 429's Retry-After, when it gave one. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/**
 * A failure on the gateway's own side during a provider call (the watched-address lookup in
 * PostgreSQL, say): not the provider's fault, so `ProviderPool.run` neither fails over nor counts
 * it against the provider; it reaches the caller as it is.
 */
export class WatcherLocalError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'WatcherLocalError';
  }
}

/** Throws `malformed` unless `ok`: how watchers reject a response of the wrong shape. */
export function expectShape(ok: unknown, what: string): asserts ok {
  if (!ok) throw new ProviderError('malformed', '', `malformed provider response: ${what}`);
}

/** Outcome of one attempt against one provider. */
export interface ProviderOutcome {
  readonly provider: string;
  readonly operation: string;
  readonly outcome: 'ok' | ProviderFailure;
  readonly durationMs: number;
  readonly error?: string;
}

/** JSON over HTTP against one endpoint, with the pool's timeout and error classification. */
export interface ProviderHttp {
  /**
   * Sends `method path` (`path` appended to the endpoint URL) with an optional JSON body and
   * returns the parsed JSON. 404 gives `undefined` when `allowNotFound`; any other non-2xx,
   * a timeout or a body that is not JSON throws a {@link ProviderError}.
   */
  json(method: 'GET' | 'POST', path: string, options?: RequestOptions): Promise<unknown>;
  /** As `json`, for endpoints that answer plain text (Esplora's `/blocks/tip/height`). */
  text(method: 'GET' | 'POST', path: string, options?: RequestOptions): Promise<string | undefined>;
}

export interface RequestOptions {
  /** A JSON body. */
  readonly body?: unknown;
  /** A plain-text body instead (Esplora's `POST /tx` takes the raw transaction in hex). */
  readonly textBody?: string;
  readonly allowNotFound?: boolean;
  /**
   * This request's timeout instead of the pool's `timeoutMs`, for the few calls known to take
   * long (Bitcoin Core's `scantxoutset`, a pass over the whole UTXO set).
   */
  readonly timeoutMs?: number;
  /**
   * The calls this request carries toward the endpoint's `limit` (its turns in the budget).
   * Default: the length of a JSON array body (a JSON-RPC batch), else 1.
   */
  readonly calls?: number;
}

/**
 * The most calls one request to `endpoint` should carry, `most` at the most: for an endpoint with a
 * `limit`, its documented requests per second (at least 1), so that a JSON-RPC batch never brings
 * the provider more calls at once than it allows in a second; `most` for one without.
 */
export function callsPerRequest(endpoint: ProviderEndpoint, most: number): number {
  if (endpoint.limit === undefined) return most;
  return Math.max(1, Math.min(most, Math.floor(endpoint.limit.requestsPerSecond)));
}

export interface ProviderPoolOptions {
  readonly chain: string;
  readonly network: string;
  readonly endpoints: readonly ProviderEndpoint[];
  /** Per request. */
  readonly timeoutMs: number;
  readonly onOutcome?: (outcome: ProviderOutcome) => void;
  readonly fetch?: typeof fetch;
  /** Pacing of endpoints with a `limit` and rest after 429s; without it, limits are not enforced. */
  readonly budget?: ProviderBudget;
}

export class ProviderPool {
  private preferred = 0;
  private readonly fetchImpl: typeof fetch;
  /** Endpoints caught reporting what the others do not have (issue 40): asked only when every other one failed. */
  private passedOver: ReadonlySet<string> = new Set();

  constructor(readonly options: ProviderPoolOptions) {
    if (options.endpoints.length === 0) throw new Error(`no providers configured for ${options.chain}/${options.network}`);
    this.fetchImpl = options.fetch ?? fetch;
  }

  get endpoints(): readonly ProviderEndpoint[] {
    return this.options.endpoints;
  }

  /** A pool of `endpoint` alone, with this pool's timeout, budget and outcome reports: how one provider is asked on its own (the quorum's attestations). */
  single(endpoint: ProviderEndpoint): ProviderPool {
    return new ProviderPool({ ...this.options, endpoints: [endpoint] });
  }

  /**
   * The endpoints (by name) marked for reporting what the others do not have: from now on they
   * come after every other endpoint, so they answer only when all the others failed. Replaces the
   * previous set (the watchers read the marks from PostgreSQL at each pass).
   */
  passOverMarked(names: ReadonlySet<string>): void {
    this.passedOver = names;
  }

  /**
   * Runs `call` against each provider in turn, starting from the one that last worked, until one
   * succeeds. Any error thrown by `call` counts as that provider's failure (a `ProviderError` keeps
   * its kind; anything else, e.g. a field missing from a response, is `malformed`), except a
   * `WatcherLocalError`, which is thrown on at once.
   */
  async run<T>(operation: string, call: (http: ProviderHttp, endpoint: ProviderEndpoint) => Promise<T>): Promise<T> {
    const { endpoints } = this.options;
    let last: ProviderError | undefined;
    for (const index of this.order()) {
      const endpoint = endpoints[index]!;
      const started = performance.now();
      // Time spent waiting for a turn under the endpoint's limit is not the provider's latency.
      const waited = { ms: 0 };
      const durationMs = () => performance.now() - started - waited.ms;
      try {
        const result = await call(this.http(endpoint, waited), endpoint);
        this.preferred = index;
        this.options.onOutcome?.({ provider: endpoint.name, operation, outcome: 'ok', durationMs: durationMs() });
        return result;
      } catch (error) {
        if (error instanceof WatcherLocalError) throw error;
        const failure =
          error instanceof ProviderError
            ? new ProviderError(error.failure, endpoint.name, error.message, error.retryAfterMs)
            : new ProviderError('malformed', endpoint.name, `malformed provider response: ${error instanceof Error ? error.message : String(error)}`);
        last = failure;
        this.options.onOutcome?.({
          provider: endpoint.name,
          operation,
          outcome: failure.failure,
          durationMs: durationMs(),
          error: failure.message,
        });
      }
    }
    throw last!;
  }

  /** Endpoint indexes in the order a call tries them: from the preferred one round, marked ones last. */
  private order(): number[] {
    const { endpoints } = this.options;
    const all = endpoints.map((_, i) => (this.preferred + i) % endpoints.length);
    return [...all.filter((i) => !this.passedOver.has(endpoints[i]!.name)), ...all.filter((i) => this.passedOver.has(endpoints[i]!.name))];
  }

  /**
   * The provider that answered last contradicts what was scanned before (its tip is below the
   * cursor, or it lacks a block it served): it is behind or lying, though each of its answers
   * looked fine. The next call starts with the next provider, so a healthy one takes over; with a
   * single provider nothing changes.
   */
  passOver(): void {
    this.preferred = (this.preferred + 1) % this.options.endpoints.length;
  }

  /**
   * Takes the turns of one request of `calls` calls to `endpoint` under its limit (waiting for them
   * when the pace asks, counted in `waited`); throws `rate_limited` without sending anything while
   * the endpoint rests. Endpoints without a `limit` (an own node) cost nothing here.
   */
  private async takeTurn(endpoint: ProviderEndpoint, what: string, calls: number, waited: { ms: number }): Promise<void> {
    const { budget } = this.options;
    if (budget === undefined || endpoint.limit === undefined) return;
    const asked = performance.now();
    const turn = await budget.acquire(endpoint, calls).catch((error: unknown) => {
      throw new WatcherLocalError(`${what}: the request budget of ${endpoint.name} is not available: ${(error as Error).message}`, { cause: error });
    });
    waited.ms += performance.now() - asked;
    if (turn.restingUntil !== undefined) {
      throw new ProviderError('rate_limited', endpoint.name, `${what}: not sent, ${endpoint.name} rests until ${turn.restingUntil.toISOString()}`);
    }
  }

  /** Tells the budget how `endpoint` answered: a 429 rests it, any other answer ends a streak of 429s. */
  private async reportAnswer(endpoint: ProviderEndpoint, what: string, status: number, retryAfterMs: number | undefined): Promise<void> {
    const { budget } = this.options;
    if (budget === undefined || endpoint.limit === undefined) return;
    await (status === 429 ? budget.rateLimited(endpoint, retryAfterMs) : budget.answered(endpoint)).catch((error: unknown) => {
      throw new WatcherLocalError(`${what}: the request budget of ${endpoint.name} was not updated: ${(error as Error).message}`, { cause: error });
    });
  }

  private http(endpoint: ProviderEndpoint, waited: { ms: number }): ProviderHttp {
    const text = async (method: 'GET' | 'POST', path: string, options: RequestOptions = {}): Promise<string | undefined> => {
      const url = trimTrailing(endpoint.url, '/') + path;
      const calls = options.calls ?? (Array.isArray(options.body) ? Math.max(1, options.body.length) : 1);
      await this.takeTurn(endpoint, `${method} ${path}`, calls, waited);
      const authorization = await basicAuthHeader(endpoint);
      let response: Response;
      try {
        response = await this.fetchImpl(url, {
          method,
          headers: {
            accept: 'application/json',
            ...(options.body !== undefined ? { 'content-type': 'application/json' } : options.textBody !== undefined ? { 'content-type': 'text/plain' } : {}),
            ...(authorization === undefined ? {} : { authorization }),
            ...(endpoint.headers ?? {}),
          },
          ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : options.textBody !== undefined ? { body: options.textBody } : {}),
          signal: AbortSignal.timeout(options.timeoutMs ?? this.options.timeoutMs),
          redirect: 'error',
        });
      } catch (error) {
        const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
        throw new ProviderError(
          timedOut ? 'timeout' : 'network',
          endpoint.name,
          `${method} ${path}: ${timedOut ? `no answer within ${options.timeoutMs ?? this.options.timeoutMs} ms` : (error as Error).message}`,
        );
      }
      let body: string;
      try {
        body = await response.text();
      } catch (error) {
        const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
        throw new ProviderError(timedOut ? 'timeout' : 'network', endpoint.name, `${method} ${path}: body not read: ${(error as Error).message}`);
      }
      const retryAfterMs = response.status === 429 ? parseRetryAfter(response.headers.get('retry-after')) : undefined;
      await this.reportAnswer(endpoint, `${method} ${path}`, response.status, retryAfterMs);
      if (response.status === 404 && options.allowNotFound) return undefined;
      if (response.status === 429) throw new ProviderError('rate_limited', endpoint.name, `${method} ${path}: 429`, retryAfterMs);
      if (response.status < 200 || response.status > 299)
        throw new ProviderError('http_error', endpoint.name, `${method} ${path}: HTTP ${response.status} ${body.slice(0, 200)}`);
      return body;
    };
    return {
      text,
      json: async (method, path, options = {}) => {
        const body = await text(method, path, options);
        if (body === undefined) return undefined;
        try {
          return JSON.parse(body) as unknown;
        } catch {
          throw new ProviderError('malformed', endpoint.name, `${method} ${path}: not JSON: ${body.slice(0, 200)}`);
        }
      },
    };
  }
}

/**
 * A 429's `Retry-After` in milliseconds: delay-seconds (`120`) or an HTTP date
 * (`Wed, 21 Oct 2015 07:28:00 GMT`, counted from now); undefined when absent, unreadable or not
 * in the future.
 */
export function parseRetryAfter(header: string | null, now: number = Date.now()): number | undefined {
  if (header === null) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) {
    const seconds = Number(value);
    return seconds > 0 ? seconds * 1000 : undefined;
  }
  const at = Date.parse(value);
  return Number.isFinite(at) && at > now ? at - now : undefined;
}
