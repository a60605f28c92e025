/**
 * Sends one signed request, retrying when that is safe: on 429, 503 and network errors, and only
 * for idempotent operations (reads, and creates keyed by `external_id`). Every attempt is signed
 * afresh (new timestamp). A `Retry-After` answer is honoured; without one the wait grows
 * exponentially with jitter.
 */
import { GatewayConnectionError, GatewayError } from './errors.js';
import { signRequest } from './signing.js';

export interface TransportOptions {
  /** The gateway's base URL, e.g. `https://pay.example.com`. */
  readonly baseUrl: string;
  /** The project's id (`X-Project-Id`). */
  readonly projectId: string;
  /** The project's API secret (production: 64 hex characters; sandbox: `sk_sandbox_...`). */
  readonly apiSecret: string;
  /** Retries after the first attempt, for idempotent calls; default 2. 0 disables retries. */
  readonly maxRetries?: number;
  /** A `Retry-After` longer than this (seconds) is not waited for: the error is thrown; default 60. */
  readonly maxRetryAfterSeconds?: number;
  /** Per-attempt timeout in milliseconds; default 30000. */
  readonly timeoutMs?: number;
  /** The `fetch` to use; default `globalThis.fetch`. */
  readonly fetch?: typeof fetch;
  /** Added to the `User-Agent` where the runtime lets it be set. */
  readonly userAgent?: string;
}

export interface TransportRequest {
  readonly method: string;
  /** Path with the query already applied, e.g. `/api/v1/invoices?limit=10`. */
  readonly path: string;
  readonly body?: unknown;
  /** Whether repeating the call cannot have a second effect. */
  readonly idempotent: boolean;
  /** Extra request headers (e.g. `Idempotency-Key`); not covered by the signature (spec 5.1 signs method, target, time and body). */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface TransportResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
}

const RETRYABLE_STATUSES = new Set([429, 503]);

/** How long a write's timestamp is remembered: past the gateway's 300-second window either side. */
const WRITE_MEMORY_SECONDS = 660;

export class Transport {
  private readonly base: URL;
  private readonly fetchImpl: typeof fetch;
  /** Per write (method, URL, body): the last timestamp signed, so a repeat never reuses a signature. */
  private readonly lastWrite = new Map<string, number>();

  constructor(private readonly options: TransportOptions) {
    if (!options.baseUrl) throw new TypeError('baseUrl is required');
    if (!options.projectId) throw new TypeError('projectId is required');
    if (!options.apiSecret) throw new TypeError('apiSecret is required');
    this.base = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
    const fetchImpl = options.fetch ?? globalThis.fetch;
    if (typeof fetchImpl !== 'function') throw new TypeError('no fetch: pass options.fetch');
    this.fetchImpl = fetchImpl.bind(globalThis);
  }

  /** The project the client signs for. */
  get projectId(): string {
    return this.options.projectId;
  }

  async send(request: TransportRequest): Promise<TransportResponse> {
    const url = new URL(request.path.replace(/^\//, ''), this.base);
    const rawBody = request.body === undefined ? '' : JSON.stringify(request.body);
    const maxAttempts = request.idempotent ? 1 + Math.max(0, this.options.maxRetries ?? 2) : 1;
    for (let attempt = 1; ; attempt += 1) {
      let response: Response;
      try {
        response = await this.attempt(request.method, url, rawBody, request.headers);
      } catch (error) {
        if (attempt >= maxAttempts) throw new GatewayConnectionError(request.method, url.pathname, attempt, error);
        await sleep(backoffMs(attempt));
        continue;
      }
      const body = await readBody(response);
      if (response.ok) return { status: response.status, headers: response.headers, body };
      const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
      const error = new GatewayError({
        status: response.status,
        body,
        requestId: response.headers.get('x-request-id') ?? undefined,
        retryAfter,
        method: request.method,
        path: url.pathname,
      });
      const waitSeconds = retryAfter ?? backoffMs(attempt) / 1000;
      if (!RETRYABLE_STATUSES.has(response.status) || attempt >= maxAttempts || waitSeconds > (this.options.maxRetryAfterSeconds ?? 60)) throw error;
      await sleep(waitSeconds * 1000);
    }
  }

  /**
   * The timestamp to sign with. The gateway answers a copy of a signed write (same signature) with
   * the first answer, without running it, so an identical write the caller repeats within the same
   * second (two equal clock advances, a create retried) is signed with the next unused second
   * instead, well inside the 300-second window: it is a request of its own.
   */
  private timestampFor(method: string, url: URL, rawBody: string): number {
    const now = Math.floor(Date.now() / 1000);
    if (method === 'GET' || method === 'HEAD') return now;
    for (const [key, at] of this.lastWrite) if (at < now - WRITE_MEMORY_SECONDS) this.lastWrite.delete(key);
    const key = `${method}\n${url.href}\n${rawBody}`;
    const previous = this.lastWrite.get(key);
    const timestamp = previous !== undefined && previous >= now ? previous + 1 : now;
    this.lastWrite.set(key, timestamp);
    return timestamp;
  }

  private async attempt(method: string, url: URL, rawBody: string, extra: Readonly<Record<string, string>> = {}): Promise<Response> {
    const signed = await signRequest({
      projectId: this.options.projectId,
      secret: this.options.apiSecret,
      method,
      url,
      rawBody,
      timestamp: this.timestampFor(method, url, rawBody),
    });
    const headers: Record<string, string> = { ...extra, ...signed, Accept: 'application/json' };
    if (rawBody !== '') headers['Content-Type'] = 'application/json';
    if (this.options.userAgent) headers['User-Agent'] = this.options.userAgent;
    return this.fetchImpl(url, {
      method,
      headers,
      signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000),
      ...(rawBody === '' ? {} : { body: rawBody }),
    });
  }
}

/** `Retry-After` in seconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

function backoffMs(attempt: number): number {
  const ceiling = Math.min(8_000, 500 * 2 ** (attempt - 1));
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
