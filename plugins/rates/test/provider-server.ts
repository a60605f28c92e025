import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { closeServer, listenOnLoopback } from '@gw/testing';

/** How the stand-in answers one provider's requests. */
export type Behaviour =
  /** The recorded answer (CoinGecko timestamps rewritten to now). */
  | 'ok'
  /** CoinGecko: the recorded answer with its recorded (long past) timestamps. */
  | 'recorded-timestamps'
  | 'error500'
  /** Accept the request and never answer (the client's timeout must fire). */
  | 'hang'
  /** An HTML error page with status 200, as a captive portal or misrouted proxy would send. */
  | 'malformed'
  | { readonly status: number; readonly body: string };

export type ProviderName = 'coingecko' | 'kraken';

export interface RecordedRequest {
  readonly provider: ProviderName;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
}

export function fixture(name: string): string {
  return readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8').trim();
}

/**
 * A local stand-in for CoinGecko and Kraken (the test machine has no internet) replaying the
 * recorded answers in `fixtures/`. Base URLs: `${url}/coingecko` and `${url}/kraken`.
 */
export class ProviderServer {
  readonly behaviour: Record<ProviderName, Behaviour> = { coingecko: 'ok', kraken: 'ok' };
  readonly requests: RecordedRequest[] = [];
  private readonly hanging = new Set<ServerResponse>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<ProviderServer> {
    let instance: ProviderServer | undefined;
    const server = createServer((req, res) => instance!.handle(req.url ?? '/', req.headers, res));
    instance = new ProviderServer(server, `http://127.0.0.1:${await listenOnLoopback(server)}`);
    return instance;
  }

  get coingeckoUrl(): string {
    return `${this.url}/coingecko`;
  }

  get krakenUrl(): string {
    return `${this.url}/kraken`;
  }

  /** Requests received by one provider so far. */
  count(provider: ProviderName): number {
    return this.requests.filter((r) => r.provider === provider).length;
  }

  set(coingecko: Behaviour, kraken: Behaviour): void {
    this.behaviour.coingecko = coingecko;
    this.behaviour.kraken = kraken;
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    await closeServer(this.server);
  }

  private handle(rawUrl: string, headers: IncomingHttpHeaders, res: ServerResponse): void {
    const url = new URL(rawUrl, 'http://stand-in');
    const provider: ProviderName | undefined =
      url.pathname === '/coingecko/api/v3/simple/price' ? 'coingecko' : url.pathname === '/kraken/0/public/Ticker' ? 'kraken' : undefined;
    if (!provider) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    this.requests.push({ provider, query: url.searchParams, headers });
    const behaviour = this.behaviour[provider];
    if (behaviour === 'hang') {
      this.hanging.add(res);
      res.on('close', () => this.hanging.delete(res));
      return;
    }
    if (behaviour === 'error500') {
      res.writeHead(500, { 'content-type': 'text/html' }).end('<html><body>500 Internal Server Error</body></html>');
      return;
    }
    if (behaviour === 'malformed') {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!DOCTYPE html><html><head><title>Just a moment...</title></head></html>');
      return;
    }
    if (typeof behaviour === 'object') {
      res.writeHead(behaviour.status, { 'content-type': 'application/json' }).end(behaviour.body);
      return;
    }
    let body: string;
    if (provider === 'kraken') body = fixture('kraken-ticker.json');
    else {
      body = fixture('coingecko-simple-price.json');
      if (behaviour === 'ok') body = freshTimestamps(body);
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  }
}

/** Rewrites CoinGecko's `last_updated_at` values to a few seconds ago, keeping everything else. */
export function freshTimestamps(body: string, secondsAgo = 5): string {
  const now = Math.floor(Date.now() / 1000) - secondsAgo;
  return body.replace(/"last_updated_at":\s*\d+/g, `"last_updated_at":${now}`);
}
