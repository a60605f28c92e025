import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the proxy does with the next request instead of forwarding it. */
export type Fault = { readonly kind: 'reset' } | { readonly kind: 'status'; readonly status: number; readonly retryAfter?: string; readonly body?: unknown };

/**
 * A reverse proxy in front of the real gateway that answers the next requests with the queued
 * faults (a dropped connection, a 429/503) and forwards everything else untouched, so the client's
 * retry rules are exercised against the real gateway's answers.
 */
export class FaultProxy {
  readonly faults: Fault[] = [];
  /** Every request that reached the proxy, as `METHOD path`. */
  readonly seen: string[] = [];
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(target: string): Promise<FaultProxy> {
    let proxy: FaultProxy | undefined;
    const upstream = new URL(target);
    const server = createServer((req, res) => {
      proxy!.seen.push(`${req.method} ${req.url}`);
      const fault = proxy!.faults.shift();
      if (fault?.kind === 'reset') return void req.socket.resetAndDestroy();
      if (fault?.kind === 'status') {
        req.resume();
        const body = JSON.stringify(
          fault.body ?? { error_code: fault.status === 429 ? 'rate_limit_exceeded' : 'service_unavailable', message: 'injected', request_id: 'proxy' },
        );
        res.writeHead(fault.status, { 'content-type': 'application/json', ...(fault.retryAfter === undefined ? {} : { 'retry-after': fault.retryAfter }) });
        return void res.end(body);
      }
      const forward = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      forward.on('error', () => res.destroy());
      req.pipe(forward);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    proxy = new FaultProxy(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return proxy;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
