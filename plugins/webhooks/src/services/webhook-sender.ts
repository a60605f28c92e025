import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP, type Socket } from 'node:net';
import { classifyAddress, type AddressClass, type ProjectKind } from '@gw/kernel';
import { DELIVERY_ATTEMPT_HEADER, EVENT_ID_HEADER, EVENT_TYPE_HEADER, SIGNATURE_HEADER, signWebhook, WEBHOOK_USER_AGENT } from '@gw/webhook-verify';
import { guardedLookup, PrivateTargetError, targetRefusal } from './target-guard.js';

/** What one POST produced. `ok` is a 2xx within the timeout. */
export interface SendOutcome {
  readonly ok: boolean;
  readonly httpStatus: number | null;
  readonly latencyMs: number;
  readonly error: string | null;
  readonly responseExcerpt: string | null;
  /**
   * The target resolved to, or the connection went to, an address that is not public (loopback,
   * private, link-local): what a partner sees of this attempt is reduced by `partnerView`.
   */
  readonly nonPublic?: boolean;
}

/** The error a partner sees of a failed attempt at a non-public address. */
export const WITHHELD_ERROR = 'delivery failed (the target is not a public address: no detail is recorded)';

/**
 * An outcome as the delivery log and test events record it (issue 33 finding 13). Of an attempt at
 * a non-public address only delivered or failed is kept, without status code, error text or
 * latency, unless the operator asked for them (`plugins.webhooks.privateAttemptDetails`, default
 * true only in development): those details would let a partner map the host's and network's
 * services (open, closed or filtered ports, what answers). The metrics keep the real latency.
 */
export function partnerView(outcome: SendOutcome, privateAttemptDetails: boolean): SendOutcome {
  if (!outcome.nonPublic || privateAttemptDetails) return outcome;
  return {
    ok: outcome.ok,
    httpStatus: null,
    latencyMs: 0,
    error: outcome.ok ? null : WITHHELD_ERROR,
    responseExcerpt: outcome.responseExcerpt,
    nonPublic: true,
  };
}

/** One signed webhook request: the envelope (`body`, sent as it is) and what its headers name. */
export interface SignedPost {
  readonly url: string;
  readonly body: string;
  readonly eventId: string;
  readonly eventType: string;
  /** The delivery attempt (1 for the first), sent as `X-Service-Delivery-Attempt`. */
  readonly attempt: number;
  readonly kind: ProjectKind;
}

/** The outcome of a signed post for a project without a live secret: nothing is sent. */
const NO_SECRET: Omit<SendOutcome, 'latencyMs'> = {
  ok: false,
  httpStatus: null,
  error: 'the project has no active API secret to sign with',
  responseExcerpt: null,
};

export interface SenderOptions {
  readonly timeoutMs: number;
  /** Private targets for production and testnet projects (sandbox: see `targetRefusal`). */
  readonly allowPrivateTargets: boolean;
  readonly maxSocketsPerHost: number;
  readonly responseExcerptBytes: number;
  /** Keep excerpts of non-public peers too (default false: no SSRF read-back). Status, error and latency: `partnerView`. */
  readonly privateResponseExcerpts?: boolean;
}

/**
 * POSTs webhook bodies over keep-alive connections. Never throws: every failure (refused target,
 * DNS, connect, timeout, non-2xx) becomes an outcome with its reason. Redirects are not followed
 * (a 3xx is a failed attempt): the partner's configured URL is the only target. Which addresses a
 * project may reach depends on its kind (`targetRefusal`); each kind has agents of its own, so a
 * kept-alive connection is never shared across kinds. A response excerpt is kept only from a
 * public address: a private target (allowed by the operator) must not be readable through the
 * delivery log (SSRF read-back).
 */
export class WebhookSender {
  private readonly agents = new Map<ProjectKind, { http: HttpAgent; https: HttpsAgent }>();
  private readonly targets = new Map<string, ParsedTarget | string>();
  /** Classes of the peer addresses seen (a handful: partners' hosts); bounded, only an optimisation. */
  private readonly peers = new Map<string, AddressClass>();

  constructor(private readonly options: SenderOptions) {}

  /**
   * A webhook as receivers get it, deliveries and test events alike: `body` signed now with every
   * secret in `secrets` (`X-Service-Signature`, one `v1` each, so a receiver holding either secret
   * of a rotation verifies it), with the user agent and the event id, type and attempt headers.
   * Without a secret nothing is sent (an unsigned body could not be verified): a failed outcome.
   */
  async postSigned(request: SignedPost, secrets: readonly string[]): Promise<SendOutcome> {
    if (secrets.length === 0) return { ...NO_SECRET, latencyMs: 0 };
    const signature = signWebhook({ secrets, rawBody: request.body, timestamp: Math.floor(Date.now() / 1000) });
    return this.post(
      request.url,
      request.body,
      {
        'user-agent': WEBHOOK_USER_AGENT,
        [SIGNATURE_HEADER]: signature,
        [EVENT_ID_HEADER]: request.eventId,
        [EVENT_TYPE_HEADER]: request.eventType,
        [DELIVERY_ATTEMPT_HEADER]: String(request.attempt),
      },
      request.kind,
    );
  }

  /**
   * A protocol delivery (`WEBHOOK_SIGNERS`): `body` with the headers its signer made (its own
   * signature scheme, e.g. `BTCPay-Sig`) and the user agent; none of the gateway's `X-Service-*`
   * headers, whose signature the receiver does not expect.
   */
  async postProtocol(url: string, body: string, headers: Readonly<Record<string, string>>, kind: ProjectKind): Promise<SendOutcome> {
    return this.post(url, body, { 'user-agent': WEBHOOK_USER_AGENT, ...headers }, kind);
  }

  async post(url: string, body: string, headers: Record<string, string>, kind: ProjectKind): Promise<SendOutcome> {
    const started = performance.now();
    // Set when an address this attempt resolved to or connected to is not public.
    let nonPublic = false;
    const note = (address: string | undefined) => {
      if (address && this.classify(address) !== 'public') nonPublic = true;
    };
    const done = (outcome: Omit<SendOutcome, 'latencyMs'>): SendOutcome => ({ ...outcome, latencyMs: Math.round(performance.now() - started), nonPublic });
    const target = this.target(url, kind);
    if (typeof target === 'string') return done({ ok: false, httpStatus: null, error: target, responseExcerpt: null });
    if (target.literal) note(target.options.hostname);
    const isHttps = target.protocol === 'https:';
    return new Promise<SendOutcome>((resolve) => {
      let settled = false;
      let socket: Socket | undefined;
      const onLookup = (_error: Error | null, address: string) => note(address);
      const finish = (outcome: Omit<SendOutcome, 'latencyMs'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        socket?.off('lookup', onLookup);
        resolve(done(outcome));
      };
      const request = (isHttps ? httpsRequest : httpRequest)(
        {
          ...target.options,
          agent: isHttps ? this.agentsFor(kind).https : this.agentsFor(kind).http,
          headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
        },
        (response) => {
          note(response.socket?.remoteAddress);
          this.readResponse(response, finish);
        },
      );
      // A kept-alive socket knows its peer; a new one reports every address it resolves (one
      // per family tried) before connecting, so a refused or silent private port is known too.
      // Only a connecting socket gets the listener: a kept-alive one resolves nothing more.
      request.on('socket', (s: Socket) => {
        note(s.remoteAddress);
        if (!s.connecting) return;
        socket = s;
        s.on('lookup', onLookup);
      });
      const timer = setTimeout(() => {
        request.destroy(new Error(`no complete response within ${this.options.timeoutMs} ms`));
      }, this.options.timeoutMs);
      request.on('error', (error) => finish({ ok: false, httpStatus: null, error: describe(error), responseExcerpt: null }));
      request.end(body);
    });
  }

  /**
   * The request options of a target URL, or why it cannot be a target. Parsed once per URL (a
   * batch mostly goes to a handful of partner URLs); the cache is bounded and only an
   * optimisation.
   */
  private target(url: string, kind: ProjectKind): ParsedTarget | string {
    return remembered(this.targets, `${kind} ${url}`, () => parseTarget(url, kind, this.options.allowPrivateTargets));
  }

  private classify(address: string): AddressClass {
    return remembered(this.peers, address, () => classifyAddress(address));
  }

  private agentsFor(kind: ProjectKind): { http: HttpAgent; https: HttpsAgent } {
    let agents = this.agents.get(kind);
    if (!agents) {
      const agentOptions = { keepAlive: true, maxSockets: this.options.maxSocketsPerHost, lookup: guardedLookup(kind, this.options.allowPrivateTargets) };
      agents = { http: new HttpAgent(agentOptions), https: new HttpsAgent(agentOptions) };
      this.agents.set(kind, agents);
    }
    return agents;
  }

  private readResponse(response: IncomingMessage, finish: (outcome: Omit<SendOutcome, 'latencyMs'>) => void): void {
    const status = response.statusCode ?? 0;
    const limit = this.options.responseExcerptBytes;
    const chunks: Buffer[] = [];
    let kept = 0;
    response.on('data', (chunk: Buffer) => {
      if (kept < limit) {
        chunks.push(chunk.subarray(0, limit - kept));
        kept += Math.min(chunk.length, limit - kept);
      }
    });
    response.on('error', (error) => finish({ ok: false, httpStatus: status, error: describe(error), responseExcerpt: null }));
    const peer = response.socket?.remoteAddress;
    const readable = this.options.privateResponseExcerpts === true || (peer !== undefined && this.classify(peer) === 'public');
    response.on('end', () => {
      const excerpt =
        kept > 0 && readable
          ? Buffer.concat(chunks)
              .toString('utf8')
              .replace(/\u0000/g, '')
          : null;
      const ok = status >= 200 && status < 300;
      finish({ ok, httpStatus: status, error: ok ? null : `HTTP ${status}`, responseExcerpt: excerpt });
    });
  }

  /** Closes idle keep-alive connections (on shutdown). */
  close(): void {
    for (const { http, https } of this.agents.values()) {
      http.destroy();
      https.destroy();
    }
  }
}

/** Entries each of the sender's caches (parsed targets, peer classes) holds before it starts over. */
const CACHE_SIZE = 1000;

/** `cache`'s value of `key`, made by `make` the first time; a full cache starts over (only an optimisation). */
function remembered<V>(cache: Map<string, V>, key: string, make: () => V): V {
  const known = cache.get(key);
  if (known !== undefined) return known;
  const made = make();
  if (cache.size >= CACHE_SIZE) cache.clear();
  cache.set(key, made);
  return made;
}

interface ParsedTarget {
  readonly protocol: 'http:' | 'https:';
  /** The host is an IP literal (no lookup happens). */
  readonly literal: boolean;
  readonly options: { readonly method: 'POST'; readonly protocol: string; readonly hostname: string; readonly port: string; readonly path: string };
}

function parseTarget(url: string, kind: ProjectKind, allowPrivateTargets: boolean): ParsedTarget | string {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return 'invalid target URL';
  }
  if (target.protocol !== 'https:' && target.protocol !== 'http:') return `unsupported scheme ${target.protocol}`;
  // Webhook URLs are refused with credentials when set (validateWebhookUrl); never send them on.
  if (target.username || target.password) return 'target URL must not embed credentials';
  // An IP literal never goes through `lookup`, so it is checked here.
  const literal = isIP(target.hostname.replace(/^\[|\]$/g, '')) !== 0;
  const refusal = literal ? targetRefusal(target.hostname, kind, allowPrivateTargets) : undefined;
  if (refusal) return refusal;
  // Bracketed IPv6 literals lose their brackets, as node's own URL-to-options conversion does.
  const hostname = target.hostname.startsWith('[') ? target.hostname.slice(1, -1) : target.hostname;
  return {
    protocol: target.protocol,
    literal,
    options: { method: 'POST', protocol: target.protocol, hostname, port: target.port, path: `${target.pathname}${target.search}` },
  };
}

function describe(error: unknown): string {
  const err = error as NodeJS.ErrnoException;
  if (err instanceof PrivateTargetError) return err.message;
  // Messages may quote the target's own text (certificate names); PostgreSQL text refuses U+0000.
  return (err.code ? `${err.code}: ${err.message}` : err.message).replace(/\u0000/g, '');
}
