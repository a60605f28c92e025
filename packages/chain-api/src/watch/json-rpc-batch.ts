import { callsPerRequest, expectShape, type ProviderEndpoint, type ProviderHttp } from './provider-pool.js';

/** One JSON-RPC call: method and params. */
export type JsonRpcCall = readonly [method: string, params: readonly unknown[]];

/** One JSON-RPC answer: a result, or the node's error. */
export interface JsonRpcAnswer {
  readonly result?: unknown;
  readonly error?: { readonly message?: string; readonly code?: number };
}

/**
 * A call that shows which network a node serves (EVM `eth_chainId`, Solana `getGenesisHash`), sent
 * first; `check` throws a ProviderError when the answer is another network's.
 */
export interface JsonRpcNetworkProbe {
  readonly call: JsonRpcCall;
  readonly check: (answer: JsonRpcAnswer | undefined) => void;
}

/**
 * Sends `calls` to `endpoint` as JSON-RPC batches and answers them in call order (undefined where
 * the node left a call unanswered; errors are the caller's to judge). With a `probe`, its call goes
 * first and is checked at the first request, before the next ones are sent: a node of another
 * network is a failing provider, never a source of answers.
 *
 * To a paced endpoint (one with a `limit`) the calls go in requests of at most its requests per
 * second (`callsPerRequest`), one after the other: its budget paces calls, not requests (a request
 * of N calls takes N turns), and no request brings the provider more calls at once than it allows
 * in a second. An own node takes them all in one request.
 */
export async function sendJsonRpcBatch(
  http: ProviderHttp,
  endpoint: ProviderEndpoint,
  calls: readonly JsonRpcCall[],
  probe?: JsonRpcNetworkProbe,
): Promise<(JsonRpcAnswer | undefined)[]> {
  const all = probe === undefined ? calls : [probe.call, ...calls];
  const size = callsPerRequest(endpoint, Math.max(1, all.length));
  const answers: (JsonRpcAnswer | undefined)[] = [];
  for (let start = 0; start < all.length; start += size) {
    const body = all.slice(start, start + size).map(([method, params], i) => ({ jsonrpc: '2.0', id: start + i, method, params }));
    const response = await http.json('POST', '', { body });
    expectShape(Array.isArray(response), 'JSON-RPC batch');
    const byId = new Map((response as (JsonRpcAnswer & { id: number })[]).map((r) => [r.id, r]));
    answers.push(...body.map(({ id }) => byId.get(id)));
    if (start === 0 && probe !== undefined) probe.check(answers.shift());
  }
  return answers;
}
