import { callsPerRequest, expectShape, ProviderError, type NetworkDefinition, type ProviderEndpoint, type ProviderHttp } from '@gw/chain-api';

/** One JSON-RPC answer: a result, or the node's error. */
export interface JsonRpcAnswer {
  readonly result?: unknown;
  readonly error?: { readonly message?: string; readonly code?: number };
}

/**
 * Sends `calls` to `endpoint` as a JSON-RPC batch and answers them in call order (undefined where
 * the node left a call unanswered; errors are the caller's to judge). The first call of the batch
 * checks the node's `eth_chainId` against the network's: a node of another chain is a failing
 * provider, never a source of answers.
 *
 * To a paced endpoint (one with a `limit`) the calls go in requests of at most its requests per
 * second (`callsPerRequest`), one after the other: its budget paces calls, not requests (a request
 * of N calls takes N turns), and no request brings the provider more calls at once than it allows
 * in a second. An own node takes them all in one request.
 */
export async function jsonRpcBatch(
  http: ProviderHttp,
  endpoint: ProviderEndpoint,
  network: Pick<NetworkDefinition, 'id' | 'evmChainId'>,
  calls: readonly (readonly [string, readonly unknown[]])[],
): Promise<(JsonRpcAnswer | undefined)[]> {
  const expected = network.evmChainId;
  const all = expected === undefined ? calls : [['eth_chainId', []] as const, ...calls];
  const size = callsPerRequest(endpoint, all.length);
  const answers: (JsonRpcAnswer | undefined)[] = [];
  for (let start = 0; start < all.length; start += size) {
    const body = all.slice(start, start + size).map(([method, params], i) => ({ jsonrpc: '2.0', id: start + i, method, params }));
    const response = await http.json('POST', '', { body });
    expectShape(Array.isArray(response), 'JSON-RPC batch');
    const byId = new Map((response as (JsonRpcAnswer & { id: number })[]).map((r) => [r.id, r]));
    answers.push(...body.map(({ id }) => byId.get(id)));
    // A node of another chain is found at the first request, before the next ones are sent.
    if (start === 0 && expected !== undefined) {
      const chainId = answers.shift();
      expectShape(typeof chainId?.result === 'string', 'eth_chainId');
      const actual = Number(BigInt(chainId!.result as string));
      if (actual !== expected) throw new ProviderError('http_error', '', `provider is on chain ${actual}, not ${expected} (${network.id})`);
    }
  }
  return answers;
}
