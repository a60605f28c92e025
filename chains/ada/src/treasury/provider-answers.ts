import { expectShape, isCount, isJsonObject, type NativeAsset, type ProviderOutput } from '@gw/chain-api';
import { isHash, parseTx } from '../blockfrost.js';

/**
 * The parts of Blockfrost's answers the treasury reads (besides those of the watcher in
 * `../blockfrost.ts`), checked field by field: a wrongly shaped answer throws `malformed` and the
 * provider pool asks the next provider.
 */

const DIGITS = /^\d+$/;
type Json = Record<string, unknown>;

/** `GET /txs/{hash}`: the block a transaction is in, its fee and size. */
export interface IncludedTransaction {
  readonly blockHash: string;
  readonly blockHeight: number;
  readonly feeUnits: bigint;
  readonly size: number;
}

export function parseIncludedTransaction(body: unknown, txid: string): IncludedTransaction {
  // The watcher's reading of the same answer checks where the transaction is.
  const { block, blockHeight } = parseTx(body, txid);
  const fields = body as Json;
  expectShape(typeof fields['fees'] === 'string' && DIGITS.test(fields['fees']), `txs/${txid}: fees`);
  expectShape(isCount(fields['size']), `txs/${txid}: size`);
  return { blockHash: block, blockHeight, feeUnits: BigInt(fields['fees']), size: fields['size'] };
}

/** `GET /mempool/{hash}`: a transaction waiting in the provider's mempool, with its fee and size. */
export function parseMempoolTransaction(body: unknown, txid: string): { readonly feeUnits: bigint; readonly size: number } {
  const what = `mempool/${txid}`;
  expectShape(isJsonObject(body) && isJsonObject(body['tx']), `${what}: tx`);
  const tx = (body as { tx: Json }).tx;
  expectShape(tx['hash'] === txid, `${what}: hash`);
  expectShape(typeof tx['fees'] === 'string' && DIGITS.test(tx['fees']), `${what}: fees`);
  expectShape(isCount(tx['size']), `${what}: size`);
  return { feeUnits: BigInt(tx['fees'] as string), size: tx['size'] as number };
}

/** `GET /blocks/{hash}` (and `/blocks/latest`), reduced to the height. */
export function parseBlockHeight(body: unknown, what: string): number {
  expectShape(isJsonObject(body) && isCount(body['height']), `${what}: height`);
  return (body as Json)['height'] as number;
}

/** One unspent output of `GET /addresses/{address}/utxos`, with the hash of its block. */
export interface AddressUtxo extends Omit<ProviderOutput, 'blockHeight' | 'assets'> {
  readonly block: string;
  /** The native tokens it holds besides its lovelace (empty when none). */
  readonly assets: readonly NativeAsset[];
}

/** Blockfrost's asset `unit`: the 28-byte policy id, then an asset name of up to 32 bytes, in hex. */
const ASSET_UNIT = /^[0-9a-f]{56}(?:[0-9a-f]{2}){0,32}$/;

/**
 * One page of `GET /addresses/{address}/utxos`, each entry at `address` (an answer about another
 * address is malformed): its lovelace as `amountUnits` and every other unit as a native asset.
 */
export function parseAddressUtxoPage(body: unknown, address: string, what: string): AddressUtxo[] {
  expectShape(Array.isArray(body), `${what}: not an array`);
  return (body as unknown[]).map((entry) => {
    expectShape(isJsonObject(entry) && isHash(entry['tx_hash']) && isCount(entry['output_index']) && isHash(entry['block']), `${what}: utxo`);
    expectShape(entry['address'] === address, `${what}: an output at ${String(entry['address']).slice(0, 120)}, not the address asked for`);
    expectShape(Array.isArray(entry['amount']), `${what}: amount`);
    let lovelace = 0n;
    const assets: NativeAsset[] = [];
    for (const amount of entry['amount'] as unknown[]) {
      expectShape(
        isJsonObject(amount) && typeof amount['unit'] === 'string' && typeof amount['quantity'] === 'string' && DIGITS.test(amount['quantity']),
        `${what}: amount entry`,
      );
      const unit = (amount as Json)['unit'] as string;
      const quantity = BigInt((amount as Json)['quantity'] as string);
      if (unit === 'lovelace') lovelace += quantity;
      else {
        expectShape(ASSET_UNIT.test(unit), `${what}: asset unit ${unit.slice(0, 130)}`);
        assets.push({ unit, quantity });
      }
    }
    return { txHash: entry['tx_hash'] as string, outputIndex: entry['output_index'] as number, amountUnits: lovelace, block: entry['block'] as string, assets };
  });
}
