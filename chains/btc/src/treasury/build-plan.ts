import * as bitcoin from 'bitcoinjs-lib';
import {
  isJsonObject,
  chainErrors,
  outputScriptType,
  treasuryChainErrors,
  type BuildRequest,
  type KeyOrigin,
  type PlanOutput,
  type SpendInput,
  type UnsignedTransaction,
} from '@gw/chain-api';
import { addressKey, type AddressKey } from './account-derivation.js';
import { planKeyOrigin } from './plan-key.js';
import { psbtOf } from './psbt-transaction.js';
import { dustThreshold, estimateVsize } from './transaction-size.js';
import type { TreasuryNetwork } from './treasury-network.js';

/** BIP 125: a sequence below 0xfffffffe signals that the transaction may be replaced. */
export const RBF_SEQUENCE = 0xfffffffd;
const TXID = /^[0-9a-f]{64}$/;
const MAX_INDEX = 0x7fffffff;
/** A P2WPKH output script's shape (its dust threshold is the tolerance of a fee without an output taking the rest). */
const P2WPKH_SHAPE = Uint8Array.from([0x00, 0x14, ...new Uint8Array(20)]);

/**
 * Builds the BIP 174 PSBT (version 0, transaction version 2, lock time 0) of a plan. Each input
 * carries its `witnessUtxo` (the P2WPKH script of its address and its amount), its
 * `nonWitnessUtxo` when the request gives its `previousTransaction` (hardware wallets and
 * gateway-signer require it), and its `bip32Derivation` (see `addressKey` for the convention),
 * and signals RBF; outputs keep the
 * request's order, and an `own` output (an address of the first input's account, checked by
 * derivation) carries its derivation too.
 *
 * The fee is `feeRate` × the estimated virtual size of the signed transaction, or `feeUnits` when
 * given (never below rate × size). The output without an amount takes what remains. Without such an
 * output the inputs must pay exactly the outputs and that fee: with `feeUnits`, to the unit; with a
 * rate, the fee may exceed rate × size by less than the dust threshold of a P2WPKH output (an excess
 * that could not have been an output anyway); a larger remainder is `validation_error`, never
 * silently paid to the miners.
 *
 * Refused: a request of the wrong shape (not arrays of objects, an amount that is not a bigint or
 * above the chain's `maxMoney`, an index outside 0..2^31-1, a branch other than 0 or 1, an account
 * key of another chain or network or that does not parse, a malformed key origin: see
 * `planKeyOrigin`), an input whose address is not its key's address at its branch and index, an
 * outpoint given twice, or a previous transaction that is not the outpoint's transaction or whose
 * output there is not the input's amount and address (`validation_error`); a destination that is not a standard address of this
 * network (`treasury_wrong_network`); an output below Core's dust threshold for its script type
 * (`treasury_dust_output`); inputs that do not cover the outputs and the fee
 * (`treasury_insufficient_value`).
 */
export function buildPlan(request: BuildRequest, net: TreasuryNetwork): UnsignedTransaction {
  const { inputs, outputs, feeRate, feeUnits } = request;
  if (!Array.isArray(inputs) || !inputs.every(isRecord)) throw chainErrors.validation_error({ message: 'The inputs must be a list of outputs to spend.' });
  if (!Array.isArray(outputs) || !outputs.every(isRecord)) throw chainErrors.validation_error({ message: 'The outputs must be a list of destinations.' });
  if (inputs.length === 0) throw chainErrors.validation_error({ message: 'A plan needs at least one input.' });
  if (outputs.length === 0) throw chainErrors.validation_error({ message: 'A plan needs at least one output.' });
  if (typeof feeRate !== 'bigint' || feeRate < 1n) throw chainErrors.validation_error({ message: 'The fee rate must be at least 1 base unit per vbyte.' });
  if (feeUnits !== undefined && (typeof feeUnits !== 'bigint' || feeUnits < 0n)) {
    throw chainErrors.validation_error({ message: 'The fee must be a non-negative amount of base units.' });
  }

  const tx = new bitcoin.Transaction();
  tx.version = 2;
  tx.locktime = 0;
  const inputKeys: AddressKey[] = [];
  const previousTransactions: (Uint8Array | undefined)[] = [];
  const origins: (KeyOrigin | undefined)[] = [];
  const seen = new Set<string>();
  let inputTotal = 0n;
  for (const input of inputs) {
    const origin = checkInput(input, net);
    origins.push(origin);
    const outpoint = `${input.txHash}:${input.outputIndex}`;
    if (seen.has(outpoint)) throw chainErrors.validation_error({ message: `The output ${outpoint} is an input twice.` });
    seen.add(outpoint);
    const key = addressKey(input.key, origin, input.branch, input.index, net.network);
    if (!sameBytes(key.script, scriptOf(input.address, net))) {
      throw chainErrors.validation_error({
        message: `The input ${outpoint}: ${input.address} is not the account key's address at ${input.branch}/${input.index}.`,
      });
    }
    tx.addInput(Buffer.from(input.txHash, 'hex').reverse(), input.outputIndex, input.sequence ?? RBF_SEQUENCE);
    inputKeys.push(key);
    previousTransactions.push(input.previousTransaction === undefined ? undefined : previousTransactionOf(input, key.script, outpoint));
    inputTotal += input.amountUnits;
  }
  if (inputTotal > net.params.maxMoney) throw chainErrors.validation_error({ message: `The inputs hold ${inputTotal}, more than there can be.` });

  for (const output of outputs) {
    const where = `The output to ${String(output.address)}`;
    if (output.amountUnits !== undefined && (typeof output.amountUnits !== 'bigint' || output.amountUnits <= 0n || output.amountUnits > net.params.maxMoney)) {
      throw chainErrors.validation_error({ message: `${where} must have a positive amount of base units, at most ${net.params.maxMoney}.` });
    }
    if (output.own !== undefined) {
      const own = output.own as { branch: unknown; index: unknown } | null;
      if (!isJsonObject(own) || (own.branch !== 0 && own.branch !== 1) || !isIndex(own.index)) {
        throw chainErrors.validation_error({ message: `${where}: "own" must be { branch: 0 or 1, index: an integer from 0 to ${MAX_INDEX} }.` });
      }
    }
  }
  const rest = outputs.filter((o) => o.amountUnits === undefined);
  if (rest.length > 1) throw chainErrors.validation_error({ message: 'Only one output may take the rest (have no amount).' });
  const scripts = outputs.map((output) => destinationScript(output, net));
  const vsize = estimateVsize(inputs.length, scripts);
  const minimumFee = feeRate * BigInt(vsize);
  if (feeUnits !== undefined && feeUnits < minimumFee) {
    throw chainErrors.validation_error({
      message: `The fee ${feeUnits} is below the fee rate ${feeRate} × ${vsize} vbytes = ${minimumFee}.`,
      details: { fee_units: feeUnits.toString(), minimum_fee_units: minimumFee.toString(), size: vsize },
    });
  }
  const fee = feeUnits ?? minimumFee;
  const fixedTotal = outputs.reduce((sum, o) => sum + (o.amountUnits ?? 0n), 0n);
  const remainder = inputTotal - fixedTotal - fee;
  if (remainder < 0n) {
    throw treasuryChainErrors.treasury_insufficient_value({
      message: `The inputs hold ${inputTotal}; the outputs need ${fixedTotal} and the fee ${fee}.`,
      details: { input_units: inputTotal.toString(), output_units: fixedTotal.toString(), fee_units: fee.toString() },
    });
  }

  const planned = outputs.map((output) => ({ ...output, amountUnits: output.amountUnits ?? remainder }));
  const ownKeys = planned.map((output, i) => {
    const script = scripts[i]!;
    const dust = dustThreshold(script, net.params.dustRelayFeePerKvb);
    if (output.amountUnits < dust) {
      throw treasuryChainErrors.treasury_dust_output({
        message: `The output to ${output.address} would be ${output.amountUnits}, below the dust limit ${dust} of its script type.`,
        details: { address: output.address, amount_units: output.amountUnits.toString(), dust_units: dust.toString() },
      });
    }
    const own = output.own && addressKey(inputs[0]!.key, origins[0], output.own.branch, output.own.index, net.network);
    if (own && !sameBytes(own.script, script)) {
      throw chainErrors.validation_error({
        message: `The output to ${output.address} is not the account's address at ${output.own!.branch}/${output.own!.index}.`,
      });
    }
    tx.addOutput(script, output.amountUnits);
    return own;
  });

  if (rest.length === 0 && remainder > 0n) {
    // Without an output taking the rest, the fee is what is left: only an excess too small to be an
    // output (below a P2WPKH output's dust threshold) may go to it, and nothing with an exact fee.
    const tolerance = feeUnits === undefined ? dustThreshold(P2WPKH_SHAPE, net.params.dustRelayFeePerKvb) : 1n;
    if (remainder >= tolerance) {
      throw chainErrors.validation_error({
        message: `The inputs hold ${remainder} more than the outputs and the fee ${fee}; without an output taking the rest (one without an amount) it would go to the fee. Add one, or lower the inputs.`,
        details: { input_units: inputTotal.toString(), output_units: fixedTotal.toString(), fee_units: fee.toString(), excess_units: remainder.toString() },
      });
    }
  }

  const psbt = psbtOf(tx, net.network);
  inputKeys.forEach((key, i) => {
    const previous = previousTransactions[i];
    psbt.updateInput(i, {
      witnessUtxo: { script: key.script, value: inputs[i]!.amountUnits },
      ...(previous ? { nonWitnessUtxo: previous } : {}),
      bip32Derivation: [{ masterFingerprint: key.masterFingerprint, pubkey: key.pubkey, path: key.path }],
    });
  });
  ownKeys.forEach((own, i) => {
    if (own) psbt.updateOutput(i, { bip32Derivation: [{ masterFingerprint: own.masterFingerprint, pubkey: own.pubkey, path: own.path }] });
  });

  const outputTotal = planned.reduce((sum, o) => sum + o.amountUnits, 0n);
  return {
    format: 'psbt',
    data: psbt.toBase64(),
    txid: tx.getId(),
    size: vsize,
    feeUnits: inputTotal - outputTotal,
    inputs: [...inputs],
    outputs: planned,
  };
}

/** Checks an input's fields; returns its key origin, normalised (`planKeyOrigin`). */
function checkInput(input: SpendInput, net: TreasuryNetwork): KeyOrigin | undefined {
  const where = `The input ${String(input.txHash)}:${String(input.outputIndex)}`;
  if (typeof input.txHash !== 'string' || !TXID.test(input.txHash)) throw chainErrors.validation_error({ message: `${where}: not a transaction id.` });
  if (!Number.isSafeInteger(input.outputIndex) || input.outputIndex < 0 || input.outputIndex > 0xffffffff) {
    throw chainErrors.validation_error({ message: `${where}: bad output index.` });
  }
  if (typeof input.amountUnits !== 'bigint' || input.amountUnits <= 0n || input.amountUnits > net.params.maxMoney) {
    throw chainErrors.validation_error({ message: `${where}: the amount must be a positive amount of base units, at most ${net.params.maxMoney}.` });
  }
  if (input.branch !== 0 && input.branch !== 1) throw chainErrors.validation_error({ message: `${where}: the branch must be 0 or 1.` });
  if (!isIndex(input.index)) throw chainErrors.validation_error({ message: `${where}: bad address index.` });
  if (input.sequence !== undefined && (!Number.isSafeInteger(input.sequence) || input.sequence < 0 || input.sequence > 0xffffffff)) {
    throw chainErrors.validation_error({ message: `${where}: bad sequence.` });
  }
  return planKeyOrigin(input.key, input.origin, net, where);
}

const isRecord = (value: unknown): boolean => isJsonObject(value);

/** A non-hardened BIP 32 child index. */
function isIndex(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= MAX_INDEX;
}

/**
 * The input's previous transaction, checked: raw transaction hex that hashes to the input's
 * `txHash`, whose output `outputIndex` pays `amountUnits` to the input's script.
 */
function previousTransactionOf(input: SpendInput, script: Uint8Array, outpoint: string): Uint8Array {
  const raw = input.previousTransaction;
  const where = `The input ${outpoint}`;
  let previous: bitcoin.Transaction | null = null;
  if (typeof raw === 'string' && raw.length <= 8_000_000 && /^(?:[0-9a-fA-F]{2})+$/.test(raw)) {
    try {
      previous = bitcoin.Transaction.fromHex(raw);
    } catch {
      previous = null;
    }
  }
  if (!previous) throw chainErrors.validation_error({ message: `${where}: previousTransaction is not a raw transaction in hex.` });
  if (previous.getId() !== input.txHash) {
    throw chainErrors.validation_error({ message: `${where}: previousTransaction is ${previous.getId()}, not ${input.txHash}.` });
  }
  const output = previous.outs[input.outputIndex];
  if (!output || output.value !== input.amountUnits || !sameBytes(output.script, script)) {
    throw chainErrors.validation_error({
      message: `${where}: output ${input.outputIndex} of previousTransaction does not pay ${input.amountUnits} to ${input.address}.`,
    });
  }
  return Buffer.from(raw!, 'hex');
}

function scriptOf(address: string, net: TreasuryNetwork): Uint8Array | null {
  try {
    return bitcoin.address.toOutputScript(address, net.network);
  } catch {
    return null;
  }
}

/** The output script of a destination: a standard address of this network, else `treasury_wrong_network`. */
function destinationScript(output: PlanOutput, net: TreasuryNetwork): Uint8Array {
  const script = typeof output.address === 'string' && output.address.length <= 100 ? scriptOf(output.address, net) : null;
  if (!script || outputScriptType(script) === null) {
    throw treasuryChainErrors.treasury_wrong_network({
      message: `${String(output.address)} is not a standard ${net.params.name} address of ${net.definition.name} (P2WPKH, P2WSH, P2TR, P2SH or P2PKH).`,
      details: { address: output.address, network: net.definition.id },
    });
  }
  return script;
}

function sameBytes(a: Uint8Array | null, b: Uint8Array | null): boolean {
  return a !== null && b !== null && Buffer.from(a).equals(Buffer.from(b));
}
