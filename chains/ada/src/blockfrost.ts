import { expectShape, isCount, isJsonObject } from '@gw/chain-api';
import { normaliseAdaAddress } from './address.js';
import type { BlockHeader, TxInput, TxMoves, TxOutput } from './read-block.js';

/**
 * The parts of Blockfrost's Cardano responses the watcher reads, checked field by field: a
 * response of another shape throws (`malformed`), so the provider pool moves to the next provider
 * instead of the watcher guessing.
 */

const HASH = /^[0-9a-f]{64}$/;
const DIGITS = /^\d+$/;

/** A block or transaction hash as Blockfrost writes it: 64 lowercase hex digits. */
export const isHash = (value: unknown): value is string => typeof value === 'string' && HASH.test(value);

/** `GET /blocks/latest`, `GET /blocks/{hash_or_number}`. */
export function parseBlock(body: unknown, what: string): BlockHeader {
  expectShape(isJsonObject(body), `${what}: not an object`);
  const { height, hash, previous_block: previous, time, tx_count: txCount } = body;
  // Byron epoch-boundary blocks have a null height; no height-indexed read ever returns one.
  expectShape(isCount(height), `${what}: height`);
  expectShape(isHash(hash), `${what}: hash`);
  expectShape(isHash(previous), `${what}: previous_block`);
  expectShape(isCount(time), `${what}: time`);
  expectShape(isCount(txCount), `${what}: tx_count`);
  return { height, hash, previousBlock: previous, time, txCount };
}

/** `GET /blocks/{hash}/txs?page=N&count=M`: one page of transaction hashes. */
export function parseTxHashPage(body: unknown, what: string): string[] {
  expectShape(Array.isArray(body), `${what}: not an array`);
  for (const hash of body) expectShape(isHash(hash), `${what}: transaction hash`);
  return body as string[];
}

function lovelaceOf(amount: unknown, what: string): bigint {
  expectShape(Array.isArray(amount), `${what}: amount`);
  let total = 0n;
  for (const entry of amount) {
    expectShape(isJsonObject(entry) && typeof entry['unit'] === 'string' && typeof entry['quantity'] === 'string', `${what}: amount entry`);
    // Native assets ride along in the same output; only the ada is a payment here.
    if (entry['unit'] !== 'lovelace') continue;
    expectShape(DIGITS.test(entry['quantity'] as string), `${what}: lovelace quantity`);
    total += BigInt(entry['quantity'] as string);
  }
  return total;
}

/** `GET /txs/{hash}/utxos`, reduced to what payments and spends need. */
export function parseTxUtxos(body: unknown, txHash: string): TxMoves {
  const what = `txs/${txHash}/utxos`;
  expectShape(isJsonObject(body), `${what}: not an object`);
  expectShape(body['hash'] === undefined || body['hash'] === txHash, `${what}: hash of another transaction`);
  const { inputs, outputs } = body;
  expectShape(Array.isArray(inputs) && Array.isArray(outputs), `${what}: inputs/outputs`);
  let fromAddress: string | undefined;
  const consumed: TxInput[] = [];
  for (const input of inputs) {
    expectShape(isJsonObject(input) && typeof input['address'] === 'string', `${what}: input`);
    expectShape(isHash(input['tx_hash']) && isCount(input['output_index']), `${what}: input outpoint`);
    if (input['reference'] === true) continue;
    const address = normaliseAdaAddress(input['address'] as string);
    const collateral = input['collateral'] === true;
    if (fromAddress === undefined && !collateral) fromAddress = address;
    consumed.push({ address, txHash: input['tx_hash'] as string, outputIndex: input['output_index'] as number, collateral });
  }
  const parsed: TxOutput[] = [];
  for (const output of outputs) {
    expectShape(isJsonObject(output) && typeof output['address'] === 'string' && isCount(output['output_index']), `${what}: output`);
    // A collateral-return output only exists when the transaction failed its scripts; it returns
    // the submitter's own collateral and is never a payment.
    if (output['collateral'] === true) continue;
    const lovelace = lovelaceOf(output['amount'], what);
    if (lovelace === 0n) continue;
    parsed.push({ address: normaliseAdaAddress(output['address'] as string), outputIndex: output['output_index'] as number, lovelace });
  }
  return { ...(fromAddress === undefined ? {} : { fromAddress }), inputs: consumed, outputs: parsed };
}

/** `GET /txs/{hash}`: where the transaction is and whether its scripts passed (phase 2). */
export interface BlockfrostTx {
  readonly block: string;
  readonly blockHeight: number;
  readonly validContract: boolean;
}

export function parseTx(body: unknown, txHash: string): BlockfrostTx {
  const what = `txs/${txHash}`;
  expectShape(isJsonObject(body), `${what}: not an object`);
  expectShape(body['hash'] === txHash, `${what}: hash`);
  expectShape(isHash(body['block']), `${what}: block`);
  expectShape(isCount(body['block_height']), `${what}: block_height`);
  expectShape(typeof body['valid_contract'] === 'boolean', `${what}: valid_contract`);
  return { block: body['block'] as string, blockHeight: body['block_height'] as number, validContract: body['valid_contract'] as boolean };
}
