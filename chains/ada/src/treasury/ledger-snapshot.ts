import { expectShape, isCount, isJsonObject } from '@gw/chain-api';

/**
 * What building a Cardano transaction needs from the chain, read by `AdaTreasury.feeEstimate()`
 * from `GET /epochs/latest/parameters` and `GET /blocks/latest` (one provider answers both):
 * the linear fee, the min-ADA rate of outputs, the largest transaction, and the slot of the tip
 * (the validity interval's end is counted from it).
 */
export interface LedgerSnapshot {
  /** `min_fee_a`: lovelace per byte of the signed transaction. */
  readonly minFeeA: bigint;
  /** `min_fee_b`: lovelace added to every transaction. */
  readonly minFeeB: bigint;
  /** `coins_per_utxo_size` (Babbage and later): lovelace per byte of an output, its min-ADA. */
  readonly coinsPerUtxoByte: bigint;
  /** `max_tx_size`, bytes. */
  readonly maxTxSize: number;
  /** Slot of the tip when it was read. */
  readonly tipSlot: number;
  /** Local clock (ms) when it was read: the tip slot has advanced one slot per second since. */
  readonly readAtMs: number;
}

const DIGITS = /^\d+$/;

/** Blockfrost gives lovelace amounts as strings and the fee coefficients as numbers; either is read. */
function lovelace(value: unknown, what: string): bigint {
  if (isCount(value)) return BigInt(value);
  expectShape(typeof value === 'string' && DIGITS.test(value), what);
  return BigInt(value as string);
}

/** `GET /epochs/latest/parameters` and the tip's `GET /blocks/latest`, checked field by field. */
export function parseLedgerSnapshot(parameters: unknown, tip: unknown, readAtMs: number): LedgerSnapshot {
  expectShape(isJsonObject(parameters), 'epochs/latest/parameters: not an object');
  expectShape(isJsonObject(tip), 'blocks/latest: not an object');
  const coinsPerUtxoByte = lovelace(parameters['coins_per_utxo_size'], 'epochs/latest/parameters: coins_per_utxo_size (a Babbage-era or later network)');
  expectShape(coinsPerUtxoByte > 0n, 'epochs/latest/parameters: coins_per_utxo_size is 0');
  expectShape(isCount(parameters['max_tx_size']), 'epochs/latest/parameters: max_tx_size');
  expectShape(isCount(tip['slot']), 'blocks/latest: slot');
  return {
    minFeeA: lovelace(parameters['min_fee_a'], 'epochs/latest/parameters: min_fee_a'),
    minFeeB: lovelace(parameters['min_fee_b'], 'epochs/latest/parameters: min_fee_b'),
    coinsPerUtxoByte,
    maxTxSize: parameters['max_tx_size'] as number,
    tipSlot: tip['slot'] as number,
    readAtMs,
  };
}
