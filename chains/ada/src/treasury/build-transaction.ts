import CSL from '@emurgo/cardano-serialization-lib-nodejs';
import { chainErrors, treasuryChainErrors, type BuildRequest, type NetworkKind, type PlanOutput, type UnsignedTransaction } from '@gw/chain-api';
import { destinationAddress } from './destination-address.js';
import type { LedgerSnapshot } from './ledger-snapshot.js';
import { assertInputDerives, distinctSigningKeys, inputPaymentKey } from './spend-keys.js';

/**
 * How long a planned transaction stays valid: its TTL (the validity interval's end) is the tip's
 * slot plus this many slots (one slot a second on mainnet, preprod and preview). Long enough to
 * carry the plan to an offline signer and back the next day; after it, the signed transaction can
 * never be included and the plan must be made again (docs/decisions.md).
 */
export const TTL_MARGIN_SLOTS = 86_400;

const HASH = /^[0-9a-f]{64}$/;
const bn = (value: bigint): CSL.BigNum => CSL.BigNum.from_str(value.toString());

function invalid(message: string): never {
  throw chainErrors.validation_error({ message });
}

export interface BuildContext {
  readonly network: NetworkKind;
  readonly snapshot: LedgerSnapshot;
  /** Local clock, ms: the TTL counts the slots gone by since the snapshot was read. */
  readonly nowMs: number;
}

/**
 * Builds the unsigned Cardano transaction of a plan with cardano-serialization-lib (see
 * `ChainTreasury.build`): inputs and outputs in the request's order, the linear fee
 * `max(feeRate, min_fee_a) × size + min_fee_b` over the size the transaction will have once it
 * carries one vkey witness per distinct payment key (or `feeUnits`), and a TTL of the tip slot
 * plus {@link TTL_MARGIN_SLOTS}. Without an output that takes the rest, the fee is whatever the
 * inputs leave over the outputs (it must reach the minimum).
 */
export function buildAdaTransaction(request: BuildRequest, context: BuildContext): UnsignedTransaction {
  const { inputs, outputs } = request;
  const { snapshot, network } = context;
  if (inputs.length === 0) invalid('A plan spends at least one input.');
  if (outputs.length === 0) invalid('A plan pays at least one output.');
  if (request.feeRate < 0n || (request.feeUnits !== undefined && request.feeUnits < 0n)) invalid('Fees are not negative.');

  const seen = new Set<string>();
  for (const input of inputs) {
    const outpoint = `${input.txHash}#${input.outputIndex}`;
    if (!HASH.test(input.txHash) || !Number.isSafeInteger(input.outputIndex) || input.outputIndex < 0)
      invalid(`Input ${outpoint} is not a transaction hash and output index.`);
    if (seen.has(outpoint)) invalid(`Input ${outpoint} is spent twice.`);
    seen.add(outpoint);
    if (input.amountUnits <= 0n) invalid(`Input ${outpoint} holds no lovelace.`);
    assertInputDerives(input, network);
  }
  const rest = outputs.filter((o) => o.amountUnits === undefined);
  if (rest.length > 1) invalid('At most one output takes the rest.');
  const addresses = outputs.map((o) => destinationAddress(o.address, network));
  for (const output of outputs) if (output.amountUnits !== undefined && output.amountUnits < 0n) invalid('Output amounts are not negative.');

  const totalIn = inputs.reduce((sum, i) => sum + i.amountUnits, 0n);
  const fixedOut = outputs.reduce((sum, o) => sum + (o.amountUnits ?? 0n), 0n);
  // Cardano has no fee market: the protocol's coefficient is the rate, and a lower one would be refused by every node.
  const rate = request.feeRate > snapshot.minFeeA ? request.feeRate : snapshot.minFeeA;
  const signers = distinctSigningKeys(inputs).map(inputPaymentKey);
  const ttl = snapshot.tipSlot + Math.max(0, Math.floor((context.nowMs - snapshot.readAtMs) / 1000)) + TTL_MARGIN_SLOTS;

  const txInputs = CSL.TransactionInputs.new();
  for (const input of inputs) txInputs.add(CSL.TransactionInput.new(CSL.TransactionHash.from_hex(input.txHash), input.outputIndex));

  const amountsFor = (fee: bigint): bigint[] => outputs.map((o) => o.amountUnits ?? totalIn - fixedOut - fee);
  const bodyFor = (amounts: readonly bigint[], fee: bigint): CSL.TransactionBody => {
    const txOutputs = CSL.TransactionOutputs.new();
    amounts.forEach((amount, i) => txOutputs.add(CSL.TransactionOutput.new(addresses[i]!, CSL.Value.new(bn(amount)))));
    const body = CSL.TransactionBody.new_tx_body(txInputs, txOutputs, bn(fee));
    body.set_ttl(bn(BigInt(ttl)));
    return body;
  };
  const insufficient = (fee: bigint): never => {
    throw treasuryChainErrors.treasury_insufficient_value({
      details: { inputs_units: totalIn.toString(), outputs_units: fixedOut.toString(), fee_units: fee.toString() },
    });
  };

  if (totalIn < fixedOut) insufficient(0n);
  let fee = rest.length === 0 ? totalIn - fixedOut : (request.feeUnits ?? snapshot.minFeeB + rate * 300n);
  if (rest.length === 0 && request.feeUnits !== undefined && request.feeUnits !== fee) {
    invalid(`Without an output that takes the rest, the fee is what the inputs leave: ${fee} lovelace, not ${request.feeUnits}.`);
  }
  let body: CSL.TransactionBody;
  let size: number;
  // The fee's own encoding changes the size by a byte or two: a few rounds settle it.
  for (let round = 0; ; round++) {
    if (totalIn - fixedOut - fee < 0n) insufficient(fee);
    body = bodyFor(amountsFor(fee), fee);
    size = signedSize(body, signers);
    const required = rate * BigInt(size) + snapshot.minFeeB;
    if (request.feeUnits !== undefined || rest.length === 0) {
      if (fee >= required) break;
      if (rest.length === 0) insufficient(required);
      invalid(`The fee ${fee} lovelace is below this transaction's minimum, ${required} lovelace.`);
    }
    if (fee === required || (fee > required && round >= 3)) break;
    fee = required;
  }
  if (size > snapshot.maxTxSize) {
    invalid(`The transaction would be ${size} bytes, above the network's limit of ${snapshot.maxTxSize}: plan fewer inputs.`);
  }

  const amounts = amountsFor(fee);
  const dataCost = CSL.DataCost.new_coins_per_byte(bn(snapshot.coinsPerUtxoByte));
  outputs.forEach((output, i) => {
    const minimum = BigInt(CSL.min_ada_for_output(CSL.TransactionOutput.new(addresses[i]!, CSL.Value.new(bn(amounts[i]!))), dataCost).to_str());
    if (amounts[i]! < minimum) {
      throw treasuryChainErrors.treasury_dust_output({
        message: `An output of ${amounts[i]} lovelace to ${output.address} is below its min-ADA, ${minimum} lovelace.`,
        details: { address: output.address, amount_units: amounts[i]!.toString(), minimum_units: minimum.toString() },
      });
    }
  });

  const tx = CSL.Transaction.new(body, CSL.TransactionWitnessSet.new());
  return {
    format: 'cardano-tx',
    data: tx.to_hex(),
    txid: CSL.FixedTransaction.new_from_body_bytes(body.to_bytes()).transaction_hash().to_hex(),
    size,
    feeUnits: fee,
    inputs: [...inputs],
    outputs: outputs.map((o: PlanOutput, i) => ({ ...o, amountUnits: amounts[i]! })),
  };
}

/**
 * Bytes of the transaction once signed: the body with a witness set of one vkey witness per
 * signing key (the real public keys, placeholder signatures of the same length).
 */
function signedSize(body: CSL.TransactionBody, signers: readonly CSL.PublicKey[]): number {
  const witnesses = CSL.Vkeywitnesses.new();
  const placeholder = CSL.Ed25519Signature.from_bytes(new Uint8Array(64));
  for (const key of signers) witnesses.add(CSL.Vkeywitness.new(CSL.Vkey.new(key), placeholder));
  const set = CSL.TransactionWitnessSet.new();
  set.set_vkeys(witnesses);
  return CSL.Transaction.new(body, set).to_bytes().length;
}
