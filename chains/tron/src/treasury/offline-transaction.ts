import { utils as tronUtils } from 'tronweb';
import bs58check from 'bs58check';
import { TRON_ADDRESS_PREFIX } from '../derive.js';
import type { NodeBlockRef } from './node-answers.js';

/**
 * TRON transactions built offline with `tronweb` (the library the signer uses too): the
 * `raw_data` JSON as java-tron prints it, its protobuf encoding (`raw_data_hex`, what is signed)
 * and its id (sha256 of that encoding). Nothing here asks a node: the reference block is read once
 * per plan and given in.
 */

/** The longest a transaction may wait between its reference block and inclusion: java-tron refuses `expiration` more than 24 h past its head. */
export const MAX_EXPIRATION_MS = 24n * 3_600_000n;
/** Kept off the 24 h limit, for a node whose head is a little ahead of the reference block when the plan is broadcast. */
export const EXPIRATION_MARGIN_MS = 5n * 60_000n;

/** The unsigned transaction a `tron-tx` step carries (the JSON `createtransaction` answers). */
export interface TronUnsignedTx {
  readonly visible: false;
  readonly txID: string;
  readonly raw_data: TronRawData;
  readonly raw_data_hex: string;
}

export interface TronRawData {
  readonly contract: readonly [{ readonly parameter: { readonly value: Record<string, unknown>; readonly type_url: string }; readonly type: TronContractType }];
  readonly ref_block_bytes: string;
  readonly ref_block_hash: string;
  readonly expiration: number;
  readonly timestamp: number;
  readonly fee_limit?: number;
}

export type TronContractType = 'TransferContract' | 'TriggerSmartContract' | 'DelegateResourceContract' | 'UnDelegateResourceContract';

/** The TAPoS fields and validity window every transaction of a plan shares. */
export interface ReferenceBlock {
  readonly ref_block_bytes: string;
  readonly ref_block_hash: string;
  readonly expiration: number;
  readonly timestamp: number;
}

/**
 * TAPoS of `block` (bytes 6–7 of its height, bytes 8–15 of its id), stamped with the block's time
 * and expiring 24 h (less a margin) later: the longest java-tron accepts, so an offline signer has
 * a day.
 */
export function referenceBlock(block: NodeBlockRef): ReferenceBlock {
  const height = block.height.toString(16).padStart(16, '0');
  return {
    ref_block_bytes: height.slice(12, 16),
    ref_block_hash: block.blockId.slice(16, 32),
    timestamp: safe(block.timestamp, 'timestamp'),
    expiration: safe(block.timestamp + MAX_EXPIRATION_MS - EXPIRATION_MARGIN_MS, 'expiration'),
  };
}

/** 21-byte `41…` hex of a T-address. */
export function hexAddress(address: string): string {
  const payload = bs58check.decode(address);
  if (payload.length !== 21 || payload[0] !== TRON_ADDRESS_PREFIX) throw new Error(`${address} is not a TRON address`);
  return Buffer.from(payload).toString('hex');
}

/** `tronweb` takes int64 fields as JavaScript numbers; no sun amount a pool address holds comes near 2^53. */
function safe(value: bigint, what: string): number {
  if (value < 0n || value > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`${what} ${value} is outside the range a TRON transaction is built with`);
  return Number(value);
}

function finish(type: TronContractType, value: Record<string, unknown>, ref: ReferenceBlock, feeLimit?: bigint): TronUnsignedTx {
  const raw_data: TronRawData = {
    contract: [{ parameter: { value, type_url: `type.googleapis.com/protocol.${type}` }, type }],
    ref_block_bytes: ref.ref_block_bytes,
    ref_block_hash: ref.ref_block_hash,
    expiration: ref.expiration,
    timestamp: ref.timestamp,
    ...(feeLimit === undefined ? {} : { fee_limit: safe(feeLimit, 'fee_limit') }),
  };
  const pb = tronUtils.transaction.txJsonToPb({ raw_data });
  return {
    visible: false,
    txID: tronUtils.transaction.txPbToTxID(pb).replace(/^0x/, '').toLowerCase(),
    raw_data,
    raw_data_hex: tronUtils.transaction.txPbToRawDataHex(pb).toLowerCase(),
  };
}

/** A TRX transfer (`TransferContract`) of `amount` sun. */
export function trxTransfer(from: string, to: string, amount: bigint, ref: ReferenceBlock): TronUnsignedTx {
  return finish('TransferContract', { amount: safe(amount, 'amount'), owner_address: hexAddress(from), to_address: hexAddress(to) }, ref);
}

/** `transfer(address,uint256)` call data. */
export function trc20TransferData(to: string, amount: bigint): string {
  return `a9059cbb${hexAddress(to).slice(2).padStart(64, '0')}${amount.toString(16).padStart(64, '0')}`;
}

/** A TRC-20 `transfer(to, amount)` on `contract` (`TriggerSmartContract`), burning at most `feeLimit` sun of energy. */
export function trc20Transfer(from: string, contract: string, to: string, amount: bigint, feeLimit: bigint, ref: ReferenceBlock): TronUnsignedTx {
  return finish(
    'TriggerSmartContract',
    { data: trc20TransferData(to, amount), owner_address: hexAddress(from), contract_address: hexAddress(contract) },
    ref,
    feeLimit,
  );
}

/** Stake 2.0 `DelegateResourceContract`: `balance` sun of `from`'s energy stake lent to `receiver`, unlocked (reclaimable at once). */
export function delegateEnergy(from: string, receiver: string, balance: bigint, ref: ReferenceBlock): TronUnsignedTx {
  return finish(
    'DelegateResourceContract',
    { owner_address: hexAddress(from), receiver_address: hexAddress(receiver), balance: safe(balance, 'balance'), resource: 'ENERGY' },
    ref,
  );
}

/** `UnDelegateResourceContract`: takes back what {@link delegateEnergy} lent. */
export function undelegateEnergy(from: string, receiver: string, balance: bigint, ref: ReferenceBlock): TronUnsignedTx {
  return finish(
    'UnDelegateResourceContract',
    { owner_address: hexAddress(from), receiver_address: hexAddress(receiver), balance: safe(balance, 'balance'), resource: 'ENERGY' },
    ref,
  );
}

/** Recomputes the protobuf encoding and id of a `raw_data` JSON (what a signed file claims it signed). */
export function encodeRawData(raw_data: unknown): { readonly txID: string; readonly rawDataHex: string } {
  const pb = tronUtils.transaction.txJsonToPb({ raw_data });
  return {
    txID: tronUtils.transaction.txPbToTxID(pb).replace(/^0x/, '').toLowerCase(),
    rawDataHex: tronUtils.transaction.txPbToRawDataHex(pb).toLowerCase(),
  };
}

/**
 * Bandwidth (bytes) a transaction of `rawDataHex` with one signature costs: java-tron charges the
 * serialized signed transaction (raw data with its field header, a 65-byte signature with its
 * 2-byte header) plus 64 bytes for the largest result it may carry.
 */
export function bandwidthBytes(rawDataHex: string): bigint {
  const raw = BigInt(rawDataHex.length / 2);
  const header = 1n + (raw < 128n ? 1n : raw < 16384n ? 2n : 3n);
  return raw + header + 67n + 64n;
}
