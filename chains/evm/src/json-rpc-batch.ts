import {
  expectShape,
  ProviderError,
  sendJsonRpcBatch,
  type JsonRpcAnswer,
  type JsonRpcCall,
  type NetworkDefinition,
  type ProviderEndpoint,
  type ProviderHttp,
} from '@gw/chain-api';

/**
 * Sends `calls` to `endpoint` as JSON-RPC batches (`sendJsonRpcBatch`: paced endpoints asked in
 * requests of their size), answers in call order. The first call of the batch checks the node's
 * `eth_chainId` against the network's: a node of another chain is a failing provider, never a
 * source of answers.
 */
export function jsonRpcBatch(
  http: ProviderHttp,
  endpoint: ProviderEndpoint,
  network: Pick<NetworkDefinition, 'id' | 'evmChainId'>,
  calls: readonly JsonRpcCall[],
): Promise<(JsonRpcAnswer | undefined)[]> {
  const expected = network.evmChainId;
  if (expected === undefined) return sendJsonRpcBatch(http, endpoint, calls);
  return sendJsonRpcBatch(http, endpoint, calls, {
    call: ['eth_chainId', []],
    check: (answer) => {
      expectShape(typeof answer?.result === 'string', 'eth_chainId');
      const actual = Number(BigInt(answer!.result as string));
      if (actual !== expected) throw new ProviderError('http_error', '', `provider is on chain ${actual}, not ${expected} (${network.id})`);
    },
  });
}
