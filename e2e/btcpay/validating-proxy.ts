/**
 * A local HTTP server between a Greenfield client (BTCPay's PHP client, a shop plugin) and the
 * gateway: it forwards every request unchanged and checks every answer under the Greenfield prefix
 * against BTCPay's published document (`greenfield-validator.ts`): the operation (method + path
 * template), the status, the JSON body. Each problem is recorded as a violation; a test fails on any.
 * Answers outside the prefix (the hosted checkout page, a claim page) pass through unchecked.
 */
import { createServer, request, type IncomingHttpHeaders, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GreenfieldValidator } from './greenfield-validator.js';

/** One request through the proxy and what the check found. */
export interface ProxyExchange {
  readonly method: string;
  /** Path and query as the client sent them. */
  readonly path: string;
  readonly status: number;
  /** `METHOD template` of the document's operation, undefined when the document has none. */
  readonly operation: string | undefined;
  readonly problems: readonly string[];
}

/** One answer that is not what BTCPay's document says. */
export interface GreenfieldViolation {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly operation: string | undefined;
  readonly problem: string;
}

export interface ValidatingProxy {
  /** The proxy's base URL (`http://127.0.0.1:<port>`). */
  readonly url: string;
  /** The URL a client is given as its BTCPay server: `url` + the Greenfield prefix. */
  readonly greenfieldUrl: string;
  /** Every request under the prefix, in order. */
  readonly exchanges: readonly ProxyExchange[];
  /** Every problem found, in order. */
  readonly violations: readonly GreenfieldViolation[];
  close(): Promise<void>;
}

/** Hop-by-hop headers (and curl's `expect: 100-continue`, which the proxy answers itself): they describe one connection, so the proxy sets its own. */
const HOP_BY_HOP = new Set(['expect', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te', 'trailer', 'content-length']);

/**
 * Starts the proxy on a free loopback port in front of `upstream` (the gateway's base URL), checking
 * the answers under `prefix` (the btcpay plugin's `pathPrefix`, `/btcpay` by default).
 */
export async function startValidatingProxy(options: { upstream: string; validator: GreenfieldValidator; prefix?: string }): Promise<ValidatingProxy> {
  const { validator } = options;
  const prefix = options.prefix ?? '/btcpay';
  const upstream = new URL(options.upstream);
  const exchanges: ProxyExchange[] = [];
  const violations: GreenfieldViolation[] = [];

  const server: Server = createServer((req, res) => {
    void (async () => {
      const method = req.method ?? 'GET';
      const path = req.url ?? '/';
      const requestBody = await readAll(req);
      let answer: { status: number; headers: IncomingHttpHeaders; body: Buffer };
      try {
        answer = await forward(upstream, method, path, req.headers, requestBody);
      } catch (error) {
        res.writeHead(502, { 'content-type': 'text/plain' }).end(`proxy: the gateway did not answer: ${String(error)}`);
        return;
      }
      const headers: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(answer.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
      res.writeHead(answer.status, { ...headers, 'content-length': String(answer.body.length) }).end(answer.body);

      const pathname = new URL(path, 'http://proxy.invalid').pathname;
      if (pathname !== prefix && !pathname.startsWith(`${prefix}/`)) return;
      const below = pathname.slice(prefix.length) || '/';
      const operation = validator.operation(method, below);
      const problems = operation
        ? validator.checkResponse(operation, answer.status, headerValue(answer.headers['content-type']), answer.body.toString('utf8'))
        : [`${method} ${below} is no operation of BTCPay's Greenfield document`];
      const name = operation ? `${operation.method} ${operation.template}` : undefined;
      exchanges.push({ method, path, status: answer.status, operation: name, problems });
      for (const problem of problems) violations.push({ method, path, status: answer.status, operation: name, problem });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    greenfieldUrl: `${url}${prefix}`,
    exchanges,
    violations,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The request as the client sent it, to `upstream`; the whole answer, redirects not followed. */
function forward(
  upstream: URL,
  method: string,
  path: string,
  headers: IncomingHttpHeaders,
  body: Buffer,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  const sent: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) sent[name] = value;
  sent['host'] = upstream.host;
  if (body.length > 0) sent['content-length'] = String(body.length);
  return new Promise((resolve, reject) => {
    const req = request({ hostname: upstream.hostname, port: upstream.port, method, path, headers: sent }, (res) => {
      readAll(res).then((answer) => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: answer }), reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

function readAll(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
