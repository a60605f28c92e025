import CSL from '@emurgo/cardano-serialization-lib-nodejs';
import type { PlanFile } from '@gw/chain-api';
import type { CardanoChain } from './chains.js';
import { cardanoKeyring, CARDANO_COIN_TYPE, CARDANO_PURPOSE, isSameCardanoAccount, type CardanoKeyring } from './cardano-keyring.js';
import { formatPath, isUnderAccount, parseAccountPath, parseAddressPath, type AddressPath } from './derivation-path.js';
import type { PlanAmounts } from './read-plan.js';
import { planReview, type Review } from './review.js';
import type { Secret } from './secret.js';
import { refuse } from './signer-error.js';

/** A Cardano plan checked against its summary, with the payment key of each input. */
export interface CheckedCardanoTx {
  readonly review: Review;
  readonly tx: CSL.FixedTransaction;
  readonly keys: readonly CSL.PrivateKey[];
}

const EXPECTED = { purpose: CARDANO_PURPOSE, branches: [0, 1] } as const;

function parseAddress(address: string, networkId: number, network: string, where: string): CSL.Address {
  let parsed: CSL.Address;
  try {
    parsed = CSL.Address.from_bech32(address);
  } catch {
    return refuse('plan_unreadable', `${where}: ${address} is not a Cardano address.`);
  }
  if (parsed.network_id() !== networkId) refuse('wrong_network', `${where}: ${address} is not an address of Cardano ${network}.`);
  return parsed;
}

function paymentKeyHash(address: CSL.Address): string | null {
  const credential = CSL.BaseAddress.from_address(address)?.payment_cred() ?? CSL.EnterpriseAddress.from_address(address)?.payment_cred();
  return credential?.to_keyhash()?.to_hex() ?? null;
}

/**
 * Reads the plan's unsigned Cardano transaction and checks it against the plan: the body spends
 * exactly the plan's inputs (a set: builders sort them), pays exactly the plan's outputs in order
 * (address and lovelace, nothing else: no tokens, datums or scripts), its fee is `fee_units`, the
 * plan's input amounts minus the outputs are that fee, and the body does nothing else (no
 * certificates, withdrawals, minting, collateral, votes, metadata). Every input's payment key,
 * derived from the secret at the plan's path, is the key of the input's address; own outputs are
 * the secret's base addresses.
 *
 * Cardano inputs carry no amounts: the plan's are shown, and a transaction whose inputs are worth
 * something else is not valid on the chain (the ledger requires inputs = outputs + fee).
 */
export function checkCardanoPlan(plan: PlanFile, amounts: PlanAmounts, chain: CardanoChain, secret: Secret): CheckedCardanoTx {
  if (plan.unsigned.format !== 'cardano-tx') refuse('plan_unreadable', `A Cardano plan carries a cardano-tx, not "${plan.unsigned.format}".`);
  const network = chain.networks[plan.network];
  if (!network) return refuse('wrong_network', `Cardano has no network "${plan.network}"; known: ${Object.keys(chain.networks).join(', ')}.`);
  const keyring = cardanoKeyring(secret);
  let tx: CSL.FixedTransaction;
  try {
    tx = CSL.FixedTransaction.from_hex(plan.unsigned.data);
  } catch {
    return refuse('plan_unreadable', 'unsigned.data is not a Cardano transaction in CBOR hex.');
  }
  const body = tx.body();
  refuseExtras(tx, body, network.networkId);
  checkAccounts(plan, keyring);

  const bodyInputs = body.inputs();
  if (bodyInputs.len() !== plan.inputs.length)
    refuse('plan_mismatch', `The transaction spends ${bodyInputs.len()} inputs; the plan lists ${plan.inputs.length}.`);
  const spent = new Set<string>();
  for (let i = 0; i < bodyInputs.len(); i++) {
    const input = bodyInputs.get(i);
    spent.add(`${input.transaction_id().to_hex()}#${input.index()}`);
  }
  const keys: CSL.PrivateKey[] = [];
  const planned = new Set<string>();
  plan.inputs.forEach((input, i) => {
    const where = `input #${i}`;
    const outpoint = `${input.tx_hash}#${input.output_index}`;
    if (!spent.has(outpoint) || planned.has(outpoint))
      refuse('plan_mismatch', `${where}: the transaction does not spend ${outpoint} (or the plan lists it twice).`);
    planned.add(outpoint);
    const address = parseAddress(input.address, network.networkId, plan.network, where);
    const path = parseAddressPath(input.path, EXPECTED, where);
    checkPathInAccount(plan, input.account, path, where);
    const key = keyring.keyAt(path).to_raw_key();
    if (paymentKeyHash(address) !== key.to_public().hash().to_hex()) {
      refuse(
        'input_key_mismatch',
        `${where}: the secret's key at ${input.path} is not the payment key of the input's address ${input.address} (another seed, passphrase or account key?).`,
      );
    }
    keys.push(key);
  });

  const bodyOutputs = body.outputs();
  if (bodyOutputs.len() !== plan.outputs.length)
    refuse('plan_mismatch', `The transaction has ${bodyOutputs.len()} outputs; the plan lists ${plan.outputs.length}.`);
  let totalOut = 0n;
  const outputs = plan.outputs.map((output, j) => {
    const where = `output #${j}`;
    const txOutput = bodyOutputs.get(j);
    const address = parseAddress(output.address, network.networkId, plan.network, where);
    if (txOutput.address().to_hex() !== address.to_hex())
      refuse('plan_mismatch', `${where}: the transaction pays another address than the plan's ${output.address}.`);
    const amount = txOutput.amount();
    if (amount.multiasset() && amount.multiasset()!.len() > 0)
      refuse('unsupported', `${where}: the output carries native tokens; this signer signs lovelace only.`);
    if (txOutput.has_data_hash() || txOutput.has_plutus_data() || txOutput.has_script_ref())
      refuse('unsupported', `${where}: the output carries a datum or a script.`);
    const lovelace = BigInt(amount.coin().to_str());
    if (lovelace !== amounts.outputs[j]) refuse('plan_mismatch', `${where}: the transaction pays ${lovelace} lovelace; the plan says ${amounts.outputs[j]}.`);
    totalOut += lovelace;
    if (output.destination.kind === 'external') return { address: output.address, amountUnits: lovelace, own: null };
    const path = parseAddressPath(output.destination.path, EXPECTED, where);
    checkPathInAccount(plan, output.destination.account, path, where);
    const derived = keyring.baseAddress(path, network.networkId);
    if (derived !== output.address) {
      refuse('own_output_mismatch', `${where}: the plan calls ${output.address} own at ${output.destination.path}, but the secret derives ${derived} there.`);
    }
    return { address: output.address, amountUnits: lovelace, own: formatPath(path) };
  });

  const fee = BigInt(body.fee().to_str());
  if (fee !== amounts.fee) refuse('fee_mismatch', `The transaction's fee is ${fee} lovelace; the plan says ${amounts.fee}.`);
  const totalIn = amounts.inputs.reduce((sum, amount) => sum + amount, 0n);
  if (totalIn - totalOut !== fee) {
    refuse('fee_mismatch', `The inputs (${totalIn} lovelace) minus the outputs (${totalOut}) are ${totalIn - totalOut}, not the fee of ${fee}.`);
  }
  const txid = tx.transaction_hash().to_hex();
  if (txid !== plan.unsigned.txid) refuse('plan_mismatch', `The transaction's id is ${txid}; the plan says ${plan.unsigned.txid}.`);

  return {
    tx,
    keys,
    review: planReview(chain, plan, amounts, {
      txid,
      outputs,
      feeUnits: fee,
      size: null,
      sizeUnit: 'byte',
      validity: validityOf(body),
      warnings: [],
    }),
  };
}

/**
 * The body's validity interval, shown before signing: from its validity start (key 8) until its
 * TTL (key 3, the first slot where it is no longer valid). Without a TTL a signed transaction stays
 * valid until its inputs are spent, which is pointed out.
 */
function validityOf(body: CSL.TransactionBody): string {
  const start = body.validity_start_interval_bignum()?.to_str();
  const ttl = body.ttl_bignum()?.to_str();
  return `${start === undefined ? 'from now' : `from slot ${start}`}, ${ttl === undefined ? 'with no time limit (no TTL)' : `until slot ${ttl} (TTL)`}`;
}

/** A body that does more than move lovelace from the inputs to the outputs is not signed. */
function refuseExtras(tx: CSL.FixedTransaction, body: CSL.TransactionBody, networkId: number): void {
  const extras: [string, unknown][] = [
    ['certificates', body.certs()],
    ['withdrawals', body.withdrawals()],
    ['a protocol update', body.update()],
    ['minting', body.mint()],
    ['reference inputs', body.reference_inputs()],
    ['a script data hash', body.script_data_hash()],
    ['collateral', body.collateral()],
    ['required signers', body.required_signers()],
    ['a collateral return', body.collateral_return()],
    ['total collateral', body.total_collateral()],
    ['votes', body.voting_procedures()],
    ['governance proposals', body.voting_proposals()],
    ['a treasury donation', body.donation()],
    ['a treasury value', body.current_treasury_value()],
    ['metadata', body.auxiliary_data_hash() ?? tx.auxiliary_data()],
  ];
  const found = extras.filter(([, value]) => value !== undefined).map(([name]) => name);
  if (found.length > 0) refuse('unsupported', `The transaction carries ${found.join(', ')}; this signer signs plain lovelace transfers only.`);
  const witnesses = tx.witness_set();
  if (witnesses.native_scripts() || witnesses.plutus_scripts() || witnesses.redeemers() || witnesses.plutus_data() || witnesses.bootstraps()) {
    refuse('unsupported', 'The transaction carries scripts or bootstrap witnesses; this signer adds key witnesses only.');
  }
  const bodyNetwork = body.network_id();
  if (bodyNetwork && bodyNetwork.kind() !== (networkId === 1 ? CSL.NetworkIdKind.Mainnet : CSL.NetworkIdKind.Testnet)) {
    refuse('wrong_network', "The transaction body's network id is another network's.");
  }
}

function checkAccounts(plan: PlanFile, keyring: CardanoKeyring): void {
  plan.accounts.forEach((account, k) => {
    const path = parseAccountPath(account.path);
    if (!path || path.purpose !== CARDANO_PURPOSE || path.coinType !== CARDANO_COIN_TYPE) {
      refuse('plan_unreadable', `accounts[${k}].path ${account.path} is not a CIP-1852 account path (m/1852'/1815'/account').`);
    }
    if (!isSameCardanoAccount(keyring.account(path.account), account.key)) {
      refuse('wrong_key', `The secret's account key at ${account.path} is not the plan's account key (another seed, passphrase or account key?).`);
    }
  });
}

function checkPathInAccount(plan: PlanFile, account: number, path: AddressPath, where: string): void {
  if (!isUnderAccount(path, plan.accounts[account]!.path)) {
    refuse('plan_mismatch', `${where}: the path ${formatPath(path)} is not under its account's path ${plan.accounts[account]!.path}.`);
  }
}

/** Adds a key witness per distinct input key, checks each against the transaction id, and returns the signed transaction in CBOR hex. */
export function signCardanoTx(checked: CheckedCardanoTx): string {
  const { tx, keys } = checked;
  const signedWith = new Set<string>();
  for (const key of keys) {
    const publicKey = key.to_public().to_hex();
    if (signedWith.has(publicKey)) continue;
    signedWith.add(publicKey);
    tx.sign_and_add_vkey_signature(key);
  }
  const hash = tx.transaction_hash().to_bytes();
  const vkeys = tx.witness_set().vkeys();
  for (let i = 0; i < (vkeys?.len() ?? 0); i++) {
    const witness = vkeys!.get(i);
    if (!witness.vkey().public_key().verify(hash, witness.signature())) throw new Error('a key witness just made does not verify');
  }
  return tx.to_hex();
}
