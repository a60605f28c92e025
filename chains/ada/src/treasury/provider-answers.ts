import { expectShape, type ProviderOutput } from '@gw/chain-api';

/**
 * The parts of Blockfrost's answers the treasury reads (besides those of the watcher in
 * `../blockfrost.ts`), checked field by field: a wrongly shaped answer throws `malformed` and the
 * provider pool asks the next provider.
 */

const HASH = /^[0-9a-f]{64}$/;
const DIGITS = /^\d+$/;
type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
const isHash = (value: unknown): value is string => typeof value === 'string' && HASH.test(value);

/** `GET /txs/{hash}`: the block a transaction is in, its fee and size. */
export interface IncludedTransaction {
  readonly blockHash: string;
  readonly blockHeight: number;
  readonly feeUnits: bigint;
  readonly size: number;
}

export function parseIncludedTransaction(body: unknown, txid: string): IncludedTransaction {
  const what = `txs/${txid}`;
  expectShape(isObject(body), `${what}: not an object`);
  expectShape(body['hash'] === txid, `${what}: hash`);
  expectShape(isHash(body['block']), `${what}: block`);
  expectShape(isCount(body['block_height']), `${what}: block_height`);
  expectShape(typeof body['fees'] === 'string' && DIGITS.test(body['fees']), `${what}: fees`);
  expectShape(isCount(body['size']), `${what}: size`);
  return {
    blockHash: body['block'] as string,
    blockHeight: body['block_height'] as number,
    feeUnits: BigInt(body['fees'] as string),
    size: body['size'] as number,
  };
}

/** `GET /mempool/{hash}`: a transaction waiting in the provider's mempool, with its fee and size. */
export function parseMempoolTransaction(body: unknown, txid: string): { readonly feeUnits: bigint; readonly size: number } {
  const what = `mempool/${txid}`;
  expectShape(isObject(body) && isObject(body['tx']), `${what}: tx`);
  const tx = (body as { tx: Json }).tx;
  expectShape(tx['hash'] === txid, `${what}: hash`);
  expectShape(typeof tx['fees'] === 'string' && DIGITS.test(tx['fees']), `${what}: fees`);
  expectShape(isCount(tx['size']), `${what}: size`);
  return { feeUnits: BigInt(tx['fees'] as string), size: tx['size'] as number };
}

/** `GET /blocks/{hash}` (and `/blocks/latest`), reduced to the height. */
export function parseBlockHeight(body: unknown, what: string): number {
  expectShape(isObject(body) && isCount(body['height']), `${what}: height`);
  return (body as Json)['height'] as number;
}

/** One unspent output of `GET /addresses/{address}/utxos`, with the hash of its block. */
export interface AddressUtxo extends Omit<ProviderOutput, 'blockHeight'> {
  readonly block: string;
}

/** One page of `GET /addresses/{address}/utxos`: lovelace only (native assets ride along, uncounted). */
export function parseAddressUtxoPage(body: unknown, what: string): AddressUtxo[] {
  expectShape(Array.isArray(body), `${what}: not an array`);
  return (body as unknown[]).map((entry) => {
    expectShape(isObject(entry) && isHash(entry['tx_hash']) && isCount(entry['output_index']) && isHash(entry['block']), `${what}: utxo`);
    expectShape(Array.isArray(entry['amount']), `${what}: amount`);
    let lovelace = 0n;
    for (const amount of entry['amount'] as unknown[]) {
      expectShape(
        isObject(amount) && typeof amount['unit'] === 'string' && typeof amount['quantity'] === 'string' && DIGITS.test(amount['quantity']),
        `${what}: amount entry`,
      );
      if ((amount as Json)['unit'] === 'lovelace') lovelace += BigInt((amount as Json)['quantity'] as string);
    }
    return { txHash: entry['tx_hash'] as string, outputIndex: entry['output_index'] as number, amountUnits: lovelace, block: entry['block'] as string };
  });
}
