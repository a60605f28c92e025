import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { KRAKEN_FIAT_PAIRS } from '@gw/plugin-rates';
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

/** What a request asks for: coin prices (`/simple/price`, Kraken's coin pairs) or fiat rates (`/exchange_rates`, Kraken's forex pairs). */
export type Endpoint = 'prices' | 'fiat';

const KRAKEN_FOREX = new Set(Object.values(KRAKEN_FIAT_PAIRS).map((p) => p.pair));

export interface RecordedRequest {
  readonly provider: ProviderName;
  readonly endpoint: Endpoint;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
}

export function fixture(name: string): string {
  return readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8').trim();
}

/**
 * A local stand-in for CoinGecko and Kraken (the test machine has no internet) replaying the
 * recorded answers in `fixtures/`. Base URLs: `${url}/coingecko` and `${url}/kraken`. A Kraken
 * Ticker request for forex pairs only is a fiat request.
 */
export class ProviderServer {
  readonly behaviour: Record<ProviderName, Behaviour> = { coingecko: 'ok', kraken: 'ok' };
  /** Overrides of `behaviour` for fiat requests only (unset: as `behaviour`). */
  readonly fiatBehaviour: Record<ProviderName, Behaviour | undefined> = { coingecko: undefined, kraken: undefined };
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

  /** Requests received by one provider so far (of one endpoint, or both). */
  count(provider: ProviderName, endpoint?: Endpoint): number {
    return this.requests.filter((r) => r.provider === provider && (endpoint === undefined || r.endpoint === endpoint)).length;
  }

  /** How each provider answers every request from now on (fiat overrides cleared). */
  set(coingecko: Behaviour, kraken: Behaviour): void {
    this.behaviour.coingecko = coingecko;
    this.behaviour.kraken = kraken;
    this.fiatBehaviour.coingecko = undefined;
    this.fiatBehaviour.kraken = undefined;
  }

  /** How each provider answers fiat requests from now on (after `set`, which clears this). */
  setFiat(coingecko: Behaviour, kraken: Behaviour): void {
    this.fiatBehaviour.coingecko = coingecko;
    this.fiatBehaviour.kraken = kraken;
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    await closeServer(this.server);
  }

  private handle(rawUrl: string, headers: IncomingHttpHeaders, res: ServerResponse): void {
    const url = new URL(rawUrl, 'http://stand-in');
    const route = routeOf(url);
    if (!route) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const { provider, endpoint } = route;
    this.requests.push({ provider, endpoint, query: url.searchParams, headers });
    const behaviour = (endpoint === 'fiat' ? this.fiatBehaviour[provider] : undefined) ?? this.behaviour[provider];
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
    if (endpoint === 'fiat') body = fixture(provider === 'kraken' ? 'kraken-fiat-ticker.json' : 'coingecko-exchange-rates.json');
    else if (provider === 'kraken') body = fixture('kraken-ticker.json');
    else {
      body = fixture('coingecko-simple-price.json');
      if (behaviour === 'ok') body = freshTimestamps(body);
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  }
}

function routeOf(url: URL): { provider: ProviderName; endpoint: Endpoint } | undefined {
  switch (url.pathname) {
    case '/coingecko/api/v3/simple/price':
      return { provider: 'coingecko', endpoint: 'prices' };
    case '/coingecko/api/v3/exchange_rates':
      return { provider: 'coingecko', endpoint: 'fiat' };
    case '/kraken/0/public/Ticker': {
      const pairs = (url.searchParams.get('pair') ?? '').split(',');
      return { provider: 'kraken', endpoint: pairs.every((pair) => KRAKEN_FOREX.has(pair)) ? 'fiat' : 'prices' };
    }
    default:
      return undefined;
  }
}

/** Rewrites CoinGecko's `last_updated_at` values to a few seconds ago, keeping everything else. */
export function freshTimestamps(body: string, secondsAgo = 5): string {
  const now = Math.floor(Date.now() / 1000) - secondsAgo;
  return body.replace(/"last_updated_at":\s*\d+/g, `"last_updated_at":${now}`);
}
