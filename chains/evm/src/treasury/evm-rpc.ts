import { expectShape, ProviderError, type JsonRpcAnswer, type NetworkDefinition, type ProviderPool } from '@gw/chain-api';
import { jsonRpcBatch } from '../json-rpc-batch.js';

/** A JSON-RPC batch holds at most this many calls: public providers cap batches (commonly at 100 to 1,000 calls). */
const BATCH_LIMIT = 100;

/**
 * The treasury's JSON-RPC over the watcher's providers: batches in chunks, each checked to come from
 * a node of the network's chain id (a node of another chain is a failing provider, as for the
 * watcher), and sent to a paced provider in requests of its size as the watcher's are
 * (`jsonRpcBatch`). Errors fail the provider unless the caller asks for them (`keepErrors`: a
 * broadcast refusal is the node's answer, not the provider failing).
 */
export class EvmRpc {
  constructor(
    private readonly providers: ProviderPool,
    private readonly network: NetworkDefinition,
  ) {}

  async batch(operation: string, calls: readonly (readonly [string, unknown[]])[], keepErrors = false): Promise<JsonRpcAnswer[]> {
    const answers: JsonRpcAnswer[] = [];
    for (let start = 0; start < calls.length; start += BATCH_LIMIT) {
      answers.push(...(await this.chunk(operation, calls.slice(start, start + BATCH_LIMIT), keepErrors)));
    }
    return answers;
  }

  /** One call; its result (errors fail the provider). */
  async call<T = unknown>(operation: string, method: string, params: unknown[]): Promise<T> {
    const [answer] = await this.batch(operation, [[method, params]]);
    return answer!.result as T;
  }

  private chunk(operation: string, calls: readonly (readonly [string, unknown[]])[], keepErrors: boolean): Promise<JsonRpcAnswer[]> {
    return this.providers.run(`treasury_${operation}`, async (http, endpoint) => {
      const answers = await jsonRpcBatch(http, endpoint, this.network, calls);
      return answers.map((answer, i) => {
        expectShape(answer !== undefined, `JSON-RPC answer to ${calls[i]![0]}`);
        if (answer!.error && !keepErrors) throw new ProviderError('http_error', '', `${calls[i]![0]}: ${answer!.error.message ?? 'JSON-RPC error'}`);
        return answer!;
      });
    });
  }
}

/** A quantity the node answered (`0x…`), as a bigint. */
export function quantity(answer: JsonRpcAnswer | undefined, what: string): bigint {
  expectShape(typeof answer?.result === 'string' && /^0x[0-9a-fA-F]*$/.test(answer.result), what);
  return answer!.result === '0x' ? 0n : BigInt(answer!.result as string);
}

export const toQuantity = (n: bigint | number): string => `0x${n.toString(16)}`;
