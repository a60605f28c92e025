import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { closeServer, listenOnLoopback } from './loopback.js';

/** One request a replay server received, as the provider would have seen it. */
export interface ReplayRequest {
  readonly method: string;
  /** The path below the provider's base path, with its query (`/blocks/tip/height`, `/api/v3/blocks?seqno=1`, `` for a JSON-RPC POST to the base). */
  readonly path: string;
  /** The request body as sent (JSON-RPC batches, java-tron's `{"num": N}`). */
  readonly body: string;
  /** When it arrived, milliseconds since the epoch (the machine's clock, which PostgreSQL's shares). */
  readonly at: number;
}

/** What a replay answers one request with. */
export interface ReplayAnswer {
  readonly status: number;
  readonly body: string;
  /** `application/json` unless said otherwise (Esplora answers heights and hashes as `text/plain`). */
  readonly contentType?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * Answers one request of a provider's API from recorded answers (see each chain's
 * `test/fixtures/README.md`); `null` leaves it unanswered (a provider that never answers, so the
 * caller's timeout fires).
 */
export type ReplayHandler = (request: ReplayRequest) => ReplayAnswer | null;

/** A local HTTP server standing in for one provider: it replays recorded answers and counts what it was asked. */
export interface ReplayServer {
  /** The provider's URL on this server: `http://127.0.0.1:<port>` followed by the provider's own path (`/signet/api`). */
  readonly url: string;
  /** Every request received under the provider's path, in order. */
  readonly requests: readonly ReplayRequest[];
  /** Requests that came outside the provider's path (answered 404): a watcher that dropped the path. */
  readonly outside: readonly ReplayRequest[];
  /** JSON-RPC calls received: each element of a batch counts once (an HTTP request holds one or many). */
  readonly calls: number;
  /** Forgets what was counted so far (the bench measures one step at a time). */
  reset(): void;
  close(): Promise<void>;
}

/** A JSON answer. */
export function jsonAnswer(value: unknown, status = 200): ReplayAnswer {
  return { status, body: typeof value === 'string' ? value : JSON.stringify(value) };
}

/** A plain-text answer (Esplora's heights and hashes). */
export function textAnswer(text: string, status = 200): ReplayAnswer {
  return { status, body: text, contentType: 'text/plain' };
}

/** A rate limiter's HTTP 429 `Too Many Requests`, with `headers` (`retry-after`); providers answer it as plain text. */
export function tooManyRequestsAnswer(headers: Readonly<Record<string, string>> = {}): ReplayAnswer {
  return { status: 429, body: 'Too Many Requests', contentType: 'text/plain', headers };
}

/**
 * Starts a replay server for a provider whose URL has the path `basePath` (`/signet/api`, `/`, ``):
 * requests under that path go to `handler` with the path below it; any other path is answered
 * 404 and kept in `outside`, so a test can tell that the provider's path was kept.
 */
export async function startReplayServer(basePath: string, handler: ReplayHandler): Promise<ReplayServer> {
  const base = basePath.replace(/\/+$/, '');
  const requests: ReplayRequest[] = [];
  const outside: ReplayRequest[] = [];
  let calls = 0;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const at = Date.now();
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const full = req.url ?? '/';
      const below = full === base ? '' : full.startsWith(`${base}/`) || full.startsWith(`${base}?`) ? full.slice(base.length) : undefined;
      const request: ReplayRequest = { method: req.method ?? 'GET', path: below ?? full, body, at };
      if (below === undefined) {
        outside.push(request);
        res.writeHead(404, { 'content-type': 'text/plain' }).end(`not under the provider's path ${base || '/'}`);
        return;
      }
      requests.push(request);
      calls += jsonRpcCalls(body);
      let answer: ReplayAnswer | null;
      try {
        answer = handler(request);
      } catch (error) {
        answer = { status: 500, body: `replay failed: ${(error as Error).message}`, contentType: 'text/plain' };
      }
      if (answer === null) return;
      res.writeHead(answer.status, { 'content-type': answer.contentType ?? 'application/json', ...(answer.headers ?? {}) }).end(answer.body);
    });
  });
  const port = await listenOnLoopback(server);
  return {
    url: `http://127.0.0.1:${port}${base}`,
    requests,
    outside,
    get calls() {
      return calls;
    },
    reset() {
      requests.length = 0;
      outside.length = 0;
      calls = 0;
    },
    close: () => closeServer(server),
  };
}

/** How many JSON-RPC calls a body holds: a batch's length, 1 for a single call, 0 for anything else. */
function jsonRpcCalls(body: string): number {
  if (!body) return 0;
  try {
    const parsed = JSON.parse(body) as unknown;
    if (Array.isArray(parsed)) return parsed.length;
    return typeof parsed === 'object' && parsed !== null && 'jsonrpc' in parsed ? 1 : 0;
  } catch {
    return 0;
  }
}
