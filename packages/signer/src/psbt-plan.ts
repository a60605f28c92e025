import * as ecc from '@bitcoinerlab/secp256k1';
import type { BIP32Interface } from 'bip32';
import * as bitcoin from 'bitcoinjs-lib';
import type { PlanFile } from '@gw/chain-api';
// The gateway's own script types and size formula: chain-api's one file for them (the package root would load its logger).
import { outputScriptType, p2wpkhVsize } from '@gw/chain-api/utxo-transaction';
import type { Bip84Chain } from './chains.js';
import { bip84Keyring, isSameAccountKey, p2wpkhAddress, type Bip84Keyring } from './bip84-keyring.js';
import { formatPath, isUnderAccount, parseAccountPath, parseAddressPath, type AddressPath } from './derivation-path.js';
import type { PlanAmounts } from './read-plan.js';
import { planReview, type Review } from './review.js';
import type { Secret } from './secret.js';
import { refuse } from './signer-error.js';
import { futureWitnessVersion } from './output-script.js';

const SIGHASH_ALL = bitcoin.Transaction.SIGHASH_ALL;
/** What the gateway's builder writes (chains/btc `buildPlan`): version 2, no lock time. */
const TX_VERSION = 2;
const TX_LOCKTIME = 0;
/** BIP 125 RBF (0xfffffffd), final without RBF (0xfffffffe, 0xffffffff): no relative lock time (BIP 68). */
const SEQUENCES = new Set([0xfffffffd, 0xfffffffe, 0xffffffff]);
/** The PSBT input fields a P2WPKH plan needs; any other (taproot keys and scripts, redeem scripts, partial signatures, unknown keys) is refused. */
const INPUT_FIELDS = new Set(['witnessUtxo', 'nonWitnessUtxo', 'bip32Derivation', 'sighashType']);
/** An own output beyond this address index is pointed out: a wallet scanning with a gap limit would not find it. */
const HIGH_INDEX = 10_000;

/** A PSBT plan checked against its summary, with the key of each input: ready to show and sign. */
export interface CheckedPsbt {
  readonly review: Review;
  readonly psbt: bitcoin.Psbt;
  readonly keys: readonly BIP32Interface[];
}

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const same = (a: Uint8Array, b: Uint8Array): boolean => Buffer.from(a).equals(Buffer.from(b));

function outputScript(address: string, keyring: Bip84Keyring, network: string, where: string): Uint8Array {
  try {
    return bitcoin.address.toOutputScript(address, keyring.params);
  } catch {
    return refuse('wrong_network', `${where}: ${address} is not a ${keyring.chain.name} address of network ${network}.`);
  }
}

/**
 * Reads the plan's PSBT and checks it against the plan, trusting nothing in the summary:
 * the same inputs in order (outpoint, `witnessUtxo` value and script = the plan's amount and
 * address), the same outputs in order (script and value), inputs minus outputs = `fee_units`, the
 * same transaction id; every input's key, derived from the secret at the plan's path, pays the
 * input's address; every output the plan calls own derives from the secret at its path; and the
 * secret is the key of the plan's accounts, at the chain's coin type for the plan's network kind.
 *
 * Every input must carry its previous transaction (`nonWitnessUtxo`), whose id is the outpoint's
 * and whose output is the `witnessUtxo`: a segwit v0 signature commits to its own input's amount
 * only, so a gateway that lied about another input's amount in each of two signing sessions
 * could combine the two signatures into a transaction paying a fee the operator never saw.
 * The transaction is version 2 with lock time 0 and sequences without relative lock time; outputs
 * pay standard scripts only (no witness version 2 and above, which anyone could spend once
 * defined); inputs carry no field but those above. Anything else is refused.
 */
export function checkPsbtPlan(plan: PlanFile, amounts: PlanAmounts, chain: Bip84Chain, secret: Secret): CheckedPsbt {
  if (plan.unsigned.format !== 'psbt') refuse('plan_unreadable', `A ${chain.name} plan carries a PSBT, not "${plan.unsigned.format}".`);
  const network = chain.networks[plan.network];
  if (!network) return refuse('wrong_network', `${chain.name} has no network "${plan.network}"; known: ${Object.keys(chain.networks).join(', ')}.`);
  const keyring = bip84Keyring(secret, chain, plan.network);
  const expected = { purpose: 84, branches: [0, 1] };
  const warnings: string[] = [];

  let psbt: bitcoin.Psbt;
  try {
    psbt = bitcoin.Psbt.fromBase64(plan.unsigned.data, { network: keyring.params });
  } catch {
    return refuse('plan_unreadable', 'unsigned.data is not a BIP 174 PSBT in base64.');
  }

  checkAccounts(plan, keyring, warnings);

  const tx = psbt.txInputs;
  if (tx.length !== plan.inputs.length) refuse('plan_mismatch', `The PSBT spends ${tx.length} inputs; the plan lists ${plan.inputs.length}.`);
  const keys: BIP32Interface[] = [];
  let totalIn = 0n;
  plan.inputs.forEach((input, i) => {
    const where = `input #${i}`;
    const txInput = tx[i]!;
    const outpoint = hex(Uint8Array.from(txInput.hash).reverse());
    if (outpoint !== input.tx_hash || txInput.index !== input.output_index) {
      refuse('plan_mismatch', `${where}: the PSBT spends ${outpoint}:${txInput.index}; the plan says ${input.tx_hash}:${input.output_index}.`);
    }
    if (!SEQUENCES.has(txInput.sequence ?? 0xffffffff)) {
      refuse(
        'unsupported',
        `${where}: sequence 0x${(txInput.sequence ?? 0).toString(16)} sets a relative lock time; this signer signs 0xfffffffd (RBF), 0xfffffffe or 0xffffffff only.`,
      );
    }
    const data = psbt.data.inputs[i]!;
    checkInputFields(data, where);
    if (!data.witnessUtxo) refuse('input_value_missing', `${where}: the PSBT carries no witnessUtxo, so the value it spends cannot be checked.`);
    const { value, script } = data.witnessUtxo;
    if (value !== amounts.inputs[i]) refuse('plan_mismatch', `${where}: the PSBT spends ${value} ${chain.unit}; the plan says ${amounts.inputs[i]}.`);
    if (!same(script, outputScript(input.address, keyring, plan.network, where))) {
      refuse('plan_mismatch', `${where}: the PSBT's witnessUtxo pays another script than the plan's address ${input.address}.`);
    }
    checkPreviousTransaction(data, input.tx_hash, input.output_index, value, script, where);
    if (data.sighashType !== undefined && data.sighashType !== SIGHASH_ALL) {
      refuse('unsupported', `${where}: the PSBT asks for sighash type ${data.sighashType}; this signer signs SIGHASH_ALL only.`);
    }

    const path = parseAddressPath(input.path, expected, where);
    checkPathInAccount(plan, input.account, path, where);
    const key = keyring.keyAt(path);
    const derived = p2wpkhAddress(key.publicKey, keyring.params);
    if (derived !== input.address) {
      refuse(
        'input_key_mismatch',
        `${where}: the secret's key at ${input.path} pays ${derived}, not the input's address ${input.address} (another seed, passphrase or account key?).`,
      );
    }
    const derivations = data.bip32Derivation ?? [];
    if (derivations.length > 0 && !derivations.some((d) => same(d.pubkey, key.publicKey))) {
      refuse('plan_mismatch', `${where}: the PSBT's bip32Derivation names another public key than the secret's key at ${input.path}.`);
    }
    keys.push(key);
    totalIn += value;
  });

  const txOutputs = psbt.txOutputs;
  if (psbt.version !== TX_VERSION)
    refuse('unsupported', `The transaction is version ${psbt.version}; the gateway writes version ${TX_VERSION}, the only one this signer signs.`);
  if (psbt.locktime !== TX_LOCKTIME) {
    refuse('unsupported', `The transaction has lock time ${psbt.locktime}: it could not be mined before then. This signer signs lock time 0 only.`);
  }
  if (txOutputs.length !== plan.outputs.length) refuse('plan_mismatch', `The PSBT has ${txOutputs.length} outputs; the plan lists ${plan.outputs.length}.`);
  let totalOut = 0n;
  const outputs = plan.outputs.map((output, j) => {
    const where = `output #${j}`;
    const txOutput = txOutputs[j]!;
    const version = futureWitnessVersion(txOutput.script);
    if (version !== null) {
      refuse(
        'unsupported',
        `${where}: ${output.address} is a segwit version ${version} address, which no rule protects yet: anyone could spend what it is paid. This signer pays P2WPKH, P2WSH, P2TR, P2SH and P2PKH only.`,
      );
    }
    const scriptType = outputScriptType(txOutput.script)?.toUpperCase();
    if (scriptType === undefined)
      refuse('unsupported', `${where}: the PSBT pays a nonstandard script; this signer pays P2WPKH, P2WSH, P2TR, P2SH and P2PKH only.`);
    if (!same(txOutput.script, outputScript(output.address, keyring, plan.network, where))) {
      refuse('plan_mismatch', `${where}: the PSBT pays another script than the plan's address ${output.address}.`);
    }
    if (txOutput.value !== amounts.outputs[j]) {
      refuse('plan_mismatch', `${where}: the PSBT pays ${txOutput.value} ${chain.unit}; the plan says ${amounts.outputs[j]}.`);
    }
    totalOut += txOutput.value;
    if (output.destination.kind === 'external') return { address: output.address, amountUnits: txOutput.value, own: null, scriptType };
    const path = parseAddressPath(output.destination.path, expected, where);
    checkPathInAccount(plan, output.destination.account, path, where);
    const derived = p2wpkhAddress(keyring.keyAt(path).publicKey, keyring.params);
    if (derived !== output.address) {
      refuse('own_output_mismatch', `${where}: the plan calls ${output.address} own at ${output.destination.path}, but the secret derives ${derived} there.`);
    }
    if (path.branch === 0) {
      warnings.push(`output #${j} pays own receive address ${formatPath(path)}: change goes to the change branch (1); a receive address may be an invoice's.`);
    }
    if (path.index > HIGH_INDEX) {
      warnings.push(`output #${j} pays own address index ${path.index}, beyond ${HIGH_INDEX}: a wallet scanning with a gap limit will not find it.`);
    }
    return { address: output.address, amountUnits: txOutput.value, own: formatPath(path), scriptType };
  });

  if (totalIn - totalOut !== amounts.fee) {
    refuse(
      'fee_mismatch',
      `The inputs (${totalIn} ${chain.unit}) minus the outputs (${totalOut}) are ${totalIn - totalOut}, not the plan's fee of ${amounts.fee}.`,
    );
  }
  const txid = unsignedTxid(psbt);
  if (txid !== plan.unsigned.txid) refuse('plan_mismatch', `The PSBT's transaction id is ${txid}; the plan says ${plan.unsigned.txid}.`);

  return {
    psbt,
    keys,
    review: planReview(chain, plan, amounts, {
      txid,
      outputs,
      feeUnits: amounts.fee,
      size: p2wpkhVsize(
        txInputsCount(psbt),
        txOutputs.map((o) => o.script),
      ),
      sizeUnit: 'vB',
      validity: null,
      warnings,
    }),
  };
}

const txInputsCount = (psbt: bitcoin.Psbt): number => psbt.txInputs.length;

/** Only the fields a P2WPKH input needs: a taproot key or script, a redeem script, a signature already made, are refused. */
function checkInputFields(data: bitcoin.Psbt['data']['inputs'][number], where: string): void {
  const extra = Object.entries(data)
    .filter(([name, value]) => value !== undefined && !INPUT_FIELDS.has(name) && !(name === 'unknownKeyVals' && Array.isArray(value) && value.length === 0))
    .map(([name]) => name);
  if (data.finalScriptWitness || data.finalScriptSig) refuse('unsupported', `${where}: the PSBT input is already finalized.`);
  if (extra.length > 0) {
    refuse(
      'unsupported',
      `${where}: the PSBT input carries ${extra.join(', ')}; this signer accepts witnessUtxo, nonWitnessUtxo, bip32Derivation and sighashType only.`,
    );
  }
}

/**
 * The previous transaction (`nonWitnessUtxo`) must be there, be the transaction the input spends
 * (its id is the outpoint's) and its output there the `witnessUtxo` (value and script).
 */
function checkPreviousTransaction(
  data: bitcoin.Psbt['data']['inputs'][number],
  txHash: string,
  outputIndex: number,
  value: bigint,
  script: Uint8Array,
  where: string,
): void {
  if (!data.nonWitnessUtxo) {
    refuse(
      'input_value_missing',
      `${where}: the PSBT carries no previous transaction (nonWitnessUtxo). The plan must carry the previous transaction of every input: ` +
        'without it a segwit signature does not prove the amount the input spends (the input-amount attack). Plan again with a gateway that includes them.',
    );
  }
  let previous: bitcoin.Transaction;
  try {
    previous = bitcoin.Transaction.fromBuffer(data.nonWitnessUtxo);
  } catch {
    return refuse('plan_unreadable', `${where}: the PSBT's nonWitnessUtxo is not a transaction.`);
  }
  if (previous.getId() !== txHash)
    refuse('plan_mismatch', `${where}: the PSBT's previous transaction is ${previous.getId()}, not ${txHash}, the one the input spends.`);
  const spent = previous.outs[outputIndex];
  if (!spent || spent.value !== value || !same(spent.script, script)) {
    refuse(
      'plan_mismatch',
      `${where}: output ${outputIndex} of the previous transaction ${txHash} is not the one the PSBT's witnessUtxo describes (${spent ? `${spent.value} in the transaction, ${value} in witnessUtxo` : 'it has no such output'}).`,
    );
  }
}

/**
 * Each account the plan names must be the secret's account at that path (for an account private
 * key: that key, and the path must name its account). The path's coin type must be the chain's
 * for the plan's network kind: a test-network plan under a mainnet coin type would have the
 * signer sign with mainnet keys, and the signature spends mainnet coins (the scripts are the same
 * on every network).
 */
function checkAccounts(plan: PlanFile, keyring: Bip84Keyring, warnings: string[]): void {
  const { chain } = keyring;
  const kind = chain.networks[plan.network]!.kind;
  plan.accounts.forEach((account, k) => {
    const path = parseAccountPath(account.path);
    if (!path || path.purpose !== 84) refuse('plan_unreadable', `accounts[${k}].path ${account.path} is not a BIP 84 account path (m/84'/coin'/account').`);
    if (path.coinType !== chain.coinType[kind]) {
      refuse(
        'wrong_network',
        `accounts[${k}].path ${account.path} has coin type ${path.coinType}', which is not ${chain.name}'s on a ${kind} network (${chain.coinType[kind]}'): ` +
          'its keys would sign for coins on another network or chain.',
      );
    }
    if (keyring.ownAccount !== null && path.account !== keyring.ownAccount) {
      refuse('wrong_key', `accounts[${k}].path ${account.path} names account ${path.account}'; the account private key is account ${keyring.ownAccount}'.`);
    }
    if (!isSameAccountKey(keyring.account(path.coinType, path.account), account.key)) {
      refuse(
        'wrong_key',
        keyring.ownAccount === null
          ? `The secret's account key at ${account.path} is not the plan's account key ${account.key} (another seed or passphrase?).`
          : `The account private key is not the plan's account key ${account.key} (another account or seed?).`,
      );
    }
    if (account.fingerprint !== null && keyring.masterFingerprint !== null && account.fingerprint.toLowerCase() !== keyring.masterFingerprint) {
      warnings.push(
        `the wallet was registered with master fingerprint ${account.fingerprint}, this seed's is ${keyring.masterFingerprint}; the account key matches, so the origin registered was wrong.`,
      );
    }
  });
}

function checkPathInAccount(plan: PlanFile, account: number, path: AddressPath, where: string): void {
  if (!isUnderAccount(path, plan.accounts[account]!.path)) {
    refuse('plan_mismatch', `${where}: the path ${formatPath(path)} is not under its account's path ${plan.accounts[account]!.path}.`);
  }
}

/** The id the transaction will have once signed (segwit ids cover no witness). */
function unsignedTxid(psbt: bitcoin.Psbt): string {
  const tx = new bitcoin.Transaction();
  tx.version = psbt.version;
  tx.locktime = psbt.locktime;
  for (const input of psbt.txInputs) tx.addInput(input.hash, input.index, input.sequence);
  for (const output of psbt.txOutputs) tx.addOutput(output.script, output.value);
  return tx.getId();
}

/**
 * Signs every input with its checked key (SIGHASH_ALL), verifies each signature, finalizes, and
 * returns the finalized PSBT in base64. The extracted transaction's id must be the plan's.
 */
export function signPsbt(checked: CheckedPsbt): string {
  const { psbt, keys, review } = checked;
  keys.forEach((key, i) => {
    psbt.signInput(i, key, [SIGHASH_ALL]);
    if (!psbt.validateSignaturesOfInput(i, (pubkey, hash, signature) => ecc.verify(hash, pubkey, signature))) {
      throw new Error(`input #${i}: the signature just made does not verify`);
    }
  });
  psbt.finalizeAllInputs();
  const txid = psbt.extractTransaction(true).getId();
  if (txid !== review.txid) throw new Error(`the signed transaction's id ${txid} is not the plan's ${review.txid}`);
  return psbt.toBase64();
}
