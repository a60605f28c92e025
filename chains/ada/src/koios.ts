import { expectShape, isCount, isJsonObject } from '@gw/chain-api';
import { normaliseAdaAddress } from './address.js';
import { isHash } from './blockfrost.js';
import type { BlockHeader, TxInput, TxMoves, TxOutput } from './read-block.js';

/**
 * The parts of Koios's Cardano answers (API v1, PostgREST over cardano-db-sync) the watcher reads,
 * checked field by field: an answer of another shape throws (`malformed`), so the provider pool
 * moves to the next provider instead of the watcher guessing.
 */

const DIGITS = /^\d+$/;
type Json = Record<string, unknown>;

/**
 * `GET /tip`: one row, the latest block the instance's db-sync holds. Its height is `block_height`
 * (Koios 1.4 and later) or `block_no` (earlier releases, still sent as a deprecated alias).
 */
export function parseKoiosTip(body: unknown): { readonly height: number; readonly hash: string } {
  expectShape(Array.isArray(body) && body.length === 1 && isJsonObject(body[0]), 'tip: not one row');
  const row = (body as Json[])[0]!;
  const height = row['block_height'] ?? row['block_no'];
  expectShape(isCount(height), 'tip: block_height');
  expectShape(isHash(row['hash']), 'tip: hash');
  return { height, hash: row['hash'] as string };
}

/** `GET /blocks?…`: rows of the block list (newest first unless ordered), each checked. */
export function parseKoiosBlocks(body: unknown, what: string): BlockHeader[] {
  expectShape(Array.isArray(body), `${what}: not an array`);
  return (body as unknown[]).map((row) => {
    expectShape(isJsonObject(row), `${what}: row`);
    const { hash, block_height: height, block_time: time, tx_count: txCount, parent_hash: parent } = row;
    // Byron epoch-boundary blocks have no height; a height filter never returns one.
    expectShape(isCount(height), `${what}: block_height`);
    expectShape(isHash(hash), `${what}: hash`);
    expectShape(isHash(parent), `${what}: parent_hash`);
    expectShape(isCount(time), `${what}: block_time`);
    expectShape(isCount(txCount), `${what}: tx_count`);
    return { height, hash, previousBlock: parent, time, txCount };
  });
}

/** `POST /block_txs`: one row per transaction of the blocks asked for. */
export function parseKoiosBlockTxs(body: unknown, what: string): { readonly blockHash: string; readonly txHash: string }[] {
  expectShape(Array.isArray(body), `${what}: not an array`);
  return (body as unknown[]).map((row) => {
    expectShape(isJsonObject(row) && isHash(row['block_hash']) && isHash(row['tx_hash']), `${what}: row`);
    return { blockHash: (row as Json)['block_hash'] as string, txHash: (row as Json)['tx_hash'] as string };
  });
}

/** One input, output or collateral entry of `tx_info`: a transaction output and where it is. */
interface KoiosUtxo {
  readonly address: string;
  readonly txHash: string;
  readonly outputIndex: number;
  readonly lovelace: bigint;
}

function parseUtxo(entry: unknown, what: string): KoiosUtxo {
  expectShape(isJsonObject(entry), `${what}: not an object`);
  const address = (entry as Json)['payment_addr'];
  expectShape(isJsonObject(address) && typeof address['bech32'] === 'string', `${what}: payment_addr`);
  const { tx_hash: txHash, tx_index: outputIndex, value } = entry as Json;
  expectShape(isHash(txHash) && isCount(outputIndex), `${what}: outpoint`);
  // `value` is the lovelace alone; native assets are in `asset_list`, and never a payment here.
  expectShape(typeof value === 'string' && DIGITS.test(value), `${what}: value`);
  return {
    address: normaliseAdaAddress((address as Json)['bech32'] as string),
    txHash: txHash as string,
    outputIndex: outputIndex as number,
    lovelace: BigInt(value as string),
  };
}

function parseUtxos(list: unknown, what: string): KoiosUtxo[] {
  expectShape(Array.isArray(list), `${what}: not an array`);
  return (list as unknown[]).map((entry) => parseUtxo(entry, what));
}

const outpoint = (u: { txHash: string; outputIndex: number }): string => `${u.txHash}#${u.outputIndex}`;
const byOutpoint = (a: KoiosUtxo, b: KoiosUtxo): number => (a.txHash === b.txHash ? a.outputIndex - b.outputIndex : a.txHash < b.txHash ? -1 : 1);

/** `POST /tx_info` (`_inputs` and `_scripts` set), one row, reduced to what payments and spends need. */
export interface KoiosTx {
  readonly hash: string;
  readonly blockHash: string;
  readonly blockHeight: number;
  /** Its position in the block. */
  readonly blockIndex: number;
  /** Whether its scripts passed: what it did is `moves`. */
  readonly valid: boolean;
  readonly moves: TxMoves;
}

/**
 * One row of `POST /tx_info`. Koios answers from cardano-db-sync, which records what a transaction
 * did: for one whose scripts failed (phase 2) its `inputs` are the collateral it consumed and its
 * `outputs` the collateral return, if any (db-sync's `txInputs`/`txOutputs` of an invalid
 * transaction); reference inputs are apart (`reference_inputs`) and never consumed.
 *
 * Validity is `valid_contract` where the answer has it (Koios added it to `tx_info` in July 2026);
 * an older instance's answer is read by db-sync's rule: the transaction failed when its outputs
 * are its collateral return alone, or, without a collateral return, when it has no output and
 * every input it consumed is one of its collateral inputs. A failed transaction pays nobody (its
 * collateral return is never a payment, as on the Blockfrost path) and spends what it consumed,
 * flagged `collateral`. Inputs are listed in the ledger's order (by transaction hash, then index:
 * db-sync's JSON aggregation keeps none), so `fromAddress` is the first of them.
 */
export function parseKoiosTx(row: unknown, what: string): KoiosTx {
  expectShape(isJsonObject(row), `${what}: not an object`);
  const fields = row as Json;
  const hash = fields['tx_hash'];
  expectShape(isHash(hash), `${what}: tx_hash`);
  const where = `${what} ${hash}`;
  expectShape(isHash(fields['block_hash']), `${where}: block_hash`);
  expectShape(isCount(fields['block_height']), `${where}: block_height`);
  expectShape(isCount(fields['tx_block_index']), `${where}: tx_block_index`);
  const declared = fields['valid_contract'];
  expectShape(declared === undefined || declared === null || typeof declared === 'boolean', `${where}: valid_contract`);

  const inputs = parseUtxos(fields['inputs'], `${where}: inputs`).sort(byOutpoint);
  const outputs = parseUtxos(fields['outputs'], `${where}: outputs`);
  for (const output of outputs) expectShape(output.txHash === hash, `${where}: an output of transaction ${output.txHash}`);
  const collateralInputs = fields['collateral_inputs'] === undefined ? [] : parseUtxos(fields['collateral_inputs'], `${where}: collateral_inputs`);
  const collateralReturn =
    fields['collateral_output'] === undefined || fields['collateral_output'] === null
      ? undefined
      : parseUtxo(fields['collateral_output'], `${where}: collateral_output`);
  expectShape(new Set(outputs.map((o) => o.outputIndex)).size === outputs.length, `${where}: an output index twice`);
  expectShape(new Set(inputs.map(outpoint)).size === inputs.length, `${where}: an input twice`);

  let valid: boolean;
  if (typeof declared === 'boolean') valid = declared;
  else {
    const collateral = new Set(collateralInputs.map(outpoint));
    const onlyReturn = collateralReturn !== undefined && outputs.length > 0 && outputs.every((o) => o.outputIndex === collateralReturn.outputIndex);
    const consumedCollateral = outputs.length === 0 && collateral.size > 0 && inputs.every((i) => collateral.has(outpoint(i)));
    valid = !(onlyReturn || consumedCollateral);
  }

  const consumed: TxInput[] = inputs.map((i) => ({ address: i.address, txHash: i.txHash, outputIndex: i.outputIndex, collateral: !valid }));
  const paid: TxOutput[] = valid
    ? outputs
        .filter((o) => o.outputIndex !== collateralReturn?.outputIndex && o.lovelace > 0n)
        .sort((a, b) => a.outputIndex - b.outputIndex)
        .map((o) => ({ address: o.address, outputIndex: o.outputIndex, lovelace: o.lovelace }))
    : [];
  const fromAddress = valid ? consumed[0]?.address : undefined;
  return {
    hash,
    blockHash: fields['block_hash'] as string,
    blockHeight: fields['block_height'] as number,
    blockIndex: fields['tx_block_index'] as number,
    valid,
    moves: { ...(fromAddress === undefined ? {} : { fromAddress }), inputs: consumed, outputs: paid },
  };
}

/** `POST /tx_info`: one row per transaction the instance knows, each checked. */
export function parseKoiosTxInfo(body: unknown, what: string): KoiosTx[] {
  expectShape(Array.isArray(body), `${what}: not an array`);
  return (body as unknown[]).map((row) => parseKoiosTx(row, what));
}
