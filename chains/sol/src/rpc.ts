import {
  ProviderError,
  sendJsonRpcBatch,
  type JsonRpcAnswer,
  type JsonRpcCall,
  type JsonRpcNetworkProbe,
  type NetworkDefinition,
  type ProviderEndpoint,
  type ProviderPool,
} from '@gw/chain-api';

/**
 * Solana JSON-RPC over the watchers' provider pool (failover, pacing, metrics): the few methods
 * this chain reads, sent as JSON-RPC batches.
 */

/**
 * Genesis hashes of the public clusters (https://solana.com/docs/references/clusters): a provider
 * of another cluster fails over as a bad provider, never answers for this one. A local validator
 * has a genesis of its own, so `localnet` is not checked.
 */
export const GENESIS_HASHES: Readonly<Record<string, string>> = {
  'mainnet-beta': '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d',
  devnet: 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG',
};

/**
 * The node's errors that mean "no block at this slot" (skipped, or not kept): -32004 block not
 * available, -32007 skipped or missing after a snapshot jump, -32009 missing in long-term storage.
 */
export const NO_BLOCK_ERRORS: ReadonlySet<number> = new Set([-32004, -32007, -32009]);

export class SolRpc {
  /** Endpoints whose genesis hash was seen to be this network's (a cache: a URL does not change cluster). */
  private readonly checked = new Set<string>();

  constructor(
    readonly providers: ProviderPool,
    readonly network: Pick<NetworkDefinition, 'id'>,
  ) {}

  /** Runs `calls` as one operation of the pool: answers in call order (undefined where unanswered). */
  batch(operation: string, calls: readonly JsonRpcCall[]): Promise<(JsonRpcAnswer | undefined)[]> {
    return this.providers.run(operation, (http, endpoint) => sendJsonRpcBatch(http, endpoint, calls, this.genesisProbe(endpoint)));
  }

  /** One call whose error is a provider failure: its result. */
  async call(operation: string, method: string, params: readonly unknown[]): Promise<unknown> {
    const [answer] = await this.batch(operation, [[method, params]]);
    return resultOf(answer, method);
  }

  /**
   * The `getGenesisHash` call that goes first to `endpoint` (paced by `sendJsonRpcBatch` like the
   * others) until it has shown it is on this network; none for a network without a known genesis.
   */
  private genesisProbe(endpoint: ProviderEndpoint): JsonRpcNetworkProbe | undefined {
    const genesis = GENESIS_HASHES[this.network.id];
    if (genesis === undefined || this.checked.has(endpoint.url)) return undefined;
    return {
      call: ['getGenesisHash', []],
      check: (answer) => {
        const actual = answer?.result;
        if (actual !== genesis) throw new ProviderError('http_error', endpoint.name, `provider's genesis hash is ${String(actual)}, not ${this.network.id}'s`);
        this.checked.add(endpoint.url);
      },
    };
  }
}

/** The result of an answer; a missing answer or a node error is a provider failure. */
export function resultOf(answer: JsonRpcAnswer | undefined, method: string): unknown {
  if (answer === undefined) throw new ProviderError('malformed', '', `no answer to ${method}`);
  if (answer.error !== undefined) throw new ProviderError('http_error', '', `${method}: ${answer.error.message ?? 'error'} (${answer.error.code ?? '?'})`);
  return answer.result;
}
