import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ProviderPool, type ChainAdapterDeps, type ChainTreasury } from '@gw/chain-api';
import { btcChain } from '../index.js';

/** A request as the local provider received it. */
export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  readonly contentType: string | undefined;
  readonly body: string;
}

/** What the local provider answers a request with. */
export interface LocalAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

/** A Bitcoin Core JSON-RPC reply to one call of a batch. */
export interface JsonRpcReply {
  readonly result?: unknown;
  readonly error?: { readonly code: number; readonly message: string } | null;
}

/** Bitcoin's mainnet treasury over a provider on this machine, and how to stop that provider. */
export interface LocalProviderTreasury {
  readonly treasury: ChainTreasury;
  close(): void;
}

/**
 * Bitcoin's mainnet treasury whose one provider, of `kind`, is an HTTP server on 127.0.0.1 that
 * answers each request with `answer`: HANDWRITTEN answers in the provider's documented format, for
 * what a regtest node cannot show (the real nodes run in plugins/watchers/test).
 */
export async function treasuryOnLocalProvider(
  kind: 'esplora' | 'bitcoin-core',
  answer: (request: ReceivedRequest) => LocalAnswer,
): Promise<LocalProviderTreasury> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const reply = answer({ method: req.method!, path: req.url!, contentType: req.headers['content-type'], body });
      res.writeHead(reply.status, { 'content-type': reply.contentType }).end(reply.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const adapter = btcChain.createAdapter({ logger: {} as ChainAdapterDeps['logger'] }, btcChain.definition);
  const endpoint = kind === 'esplora' ? { name: 'esplora', url } : { name: 'core', url, kind };
  const providers = new ProviderPool({ chain: 'btc', network: 'bitcoin', endpoints: [endpoint], timeoutMs: 5000 });
  return { treasury: adapter.createTreasury!({ network: btcChain.definition.networks.mainnet, providers }), close: () => server.close() };
}

/** An `answer` for Bitcoin Core's JSON-RPC batches: each call of a batch answered by `reply`. */
export function jsonRpcBatch(reply: (method: string, params: unknown[]) => JsonRpcReply): (request: ReceivedRequest) => LocalAnswer {
  return ({ body }) => {
    const calls = JSON.parse(body) as { id: number; method: string; params: unknown[] }[];
    const replies = calls.map(({ id, method, params }) => {
      const { result = null, error = null } = reply(method, params);
      return { id, result, error };
    });
    return { status: 200, contentType: 'application/json', body: JSON.stringify(replies) };
  };
}
