/**
 * Test support (not exported from the package root): plans built the way the gateway builds them,
 * from account public keys only, and the signer run as a process. Used by the package's tests.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import * as ecc from '@bitcoinerlab/secp256k1';
import type { ExecutionContext } from 'ava';
import CSL from '@emurgo/cardano-serialization-lib-nodejs';
import { mnemonicToEntropy, mnemonicToSeedSync } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english';
import { BIP32Factory, type BIP32Interface } from 'bip32';
import * as bitcoin from 'bitcoinjs-lib';
import { p2wpkhVsize, type PlanFile, type PlanFileOutput } from '@gw/chain-api';
import { BTC, type Bip84Chain } from './chains.js';
import { runSigner } from './cli.js';

bitcoin.initEccLib(ecc);
const bip32 = BIP32Factory(ecc);

/** The BIP 39 test mnemonic ("abandon … about") and another one. */
export const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
export const OTHER_MNEMONIC = 'legal winner thank year wave sausage worth useful legal winner thank yellow';

export const SIGNER_BIN = fileURLToPath(new URL('../bin/gateway-signer.mjs', import.meta.url));

/** The account-level keys of a mnemonic on a BIP 84 chain: what a wallet exports to the gateway, and the private side. */
export function bip84Account(chain: Bip84Chain, networkId: string, mnemonic = MNEMONIC, account = 0, coinType?: number, passphrase = '') {
  const { params, kind } = chain.networks[networkId]!;
  const root = bip32.fromSeed(mnemonicToSeedSync(mnemonic, passphrase), params);
  const path = `m/84'/${coinType ?? chain.coinType[kind]}'/${account}'`;
  const node = root.derivePath(path);
  return { params, path, fingerprint: Buffer.from(root.fingerprint).toString('hex'), xpub: node.neutered().toBase58(), xprv: node.toBase58() };
}

export interface BtcPlanOptions {
  readonly chain: Bip84Chain;
  readonly network: string;
  /** Receive indexes of the inputs, and their values. */
  readonly inputs: readonly { index: number; value: bigint }[];
  /** Outputs: to an external address, or to the account's change chain at an index. */
  readonly outputs: readonly ({ external: string; value: bigint } | { change: number; value: bigint })[];
  readonly fee: bigint;
  /**
   * A wallet registered without key origin: no bip32Derivation and no fingerprint; the paths the
   * gateway writes are under the chain's account path for the key's own account number (its
   * child index), as chains/btc `deriveBip84Address` writes them.
   */
  readonly withoutOrigin?: boolean;
  /** The BIP 39 passphrase of the seed (default none). */
  readonly passphrase?: string;
  /** No previous transaction (nonWitnessUtxo) in the PSBT: a plan of a gateway that does not carry them. */
  readonly withoutPreviousTransaction?: boolean;
  /** The account of the registered key (default 0). */
  readonly account?: number;
  /** The coin type of the registered key's path (default: the network's). */
  readonly coinType?: number;
  readonly withoutWitnessUtxo?: boolean;
}

/** A plan as the gateway writes it: a PSBT built from the account xpub only. */
export function btcPlan(options: BtcPlanOptions): { plan: PlanFile; psbt: bitcoin.Psbt } {
  const { chain, network } = options;
  const account = bip84Account(chain, network, MNEMONIC, options.account ?? 0, options.coinType, options.passphrase);
  const accountPath = account.path;
  const xpub = bip32.fromBase58(account.xpub, account.params);
  const keyAt = (branch: number, index: number): BIP32Interface => xpub.derive(branch).derive(index);
  const addressOf = (key: BIP32Interface) => bitcoin.payments.p2wpkh({ pubkey: key.publicKey, network: account.params }).address!;
  const psbt = new bitcoin.Psbt({ network: account.params });
  const inputs = options.inputs.map(({ index, value }) => {
    const key = keyAt(0, index);
    const address = addressOf(key);
    const script = bitcoin.address.toOutputScript(address, account.params);
    // The transaction that paid the address (output 1; output 0 is somebody's change).
    const previous = new bitcoin.Transaction();
    previous.version = 2;
    previous.addInput(randomBytes(32), 0, 0xfffffffd);
    previous.addOutput(bitcoin.address.toOutputScript(externalAddress(account.params), account.params), 12_345n);
    previous.addOutput(script, value);
    const hash = previous.getHash();
    const path = `${accountPath}/0/${index}`;
    psbt.addInput({
      hash,
      index: 1,
      sequence: 0xfffffffd,
      ...(options.withoutWitnessUtxo ? {} : { witnessUtxo: { script, value } }),
      ...(options.withoutPreviousTransaction ? {} : { nonWitnessUtxo: Buffer.from(previous.toBuffer()) }),
      ...(options.withoutOrigin ? {} : { bip32Derivation: [{ masterFingerprint: Buffer.from(account.fingerprint, 'hex'), path, pubkey: key.publicKey }] }),
    });
    return { tx_hash: Buffer.from(hash).reverse().toString('hex'), output_index: 1, address, amount_units: String(value), account: 0, path };
  });
  const outputs = options.outputs.map((output): PlanFileOutput => {
    if ('external' in output) {
      psbt.addOutput({ address: output.external, value: output.value });
      return { address: output.external, amount_units: String(output.value), destination: { kind: 'external' } };
    }
    const address = addressOf(keyAt(1, output.change));
    psbt.addOutput({ address, value: output.value });
    return { address, amount_units: String(output.value), destination: { kind: 'own', account: 0, path: `${accountPath}/1/${output.change}` } };
  });
  const unsignedTx = bitcoin.Transaction.fromBuffer((psbt.data.globalMap.unsignedTx as unknown as { toBuffer(): Uint8Array }).toBuffer());
  // The rate the gateway would state: the fee over the signed size, in hundredths.
  const rate =
    (options.fee * 100n) /
    BigInt(
      p2wpkhVsize(
        unsignedTx.ins.length,
        unsignedTx.outs.map((o) => o.script),
      ),
    );
  const plan: PlanFile = {
    format: 'gateway-treasury-plan',
    version: 1,
    plan_id: `plan-${randomBytes(4).toString('hex')}`,
    chain: chain.id,
    network,
    coin: chain.id,
    kind: 'sweep',
    accounts: [{ key: account.xpub, fingerprint: options.withoutOrigin ? null : account.fingerprint, path: accountPath }],
    inputs,
    outputs,
    fee_units: String(options.fee),
    fee_rate: `${rate / 100n}.${(rate % 100n).toString().padStart(2, '0')}`,
    unsigned: { format: 'psbt', data: psbt.toBase64(), txid: unsignedTx.getId() },
    created_at: new Date(0).toISOString(),
  };
  return { plan, psbt };
}

/** A P2WPKH address of a random key: somebody else's. */
export function externalAddress(params: bitcoin.Network): string {
  return bitcoin.payments.p2wpkh({ pubkey: bip32.fromSeed(randomBytes(32), params).publicKey, network: params }).address!;
}

const h = (n: number) => 0x80000000 + n;

/** A Cardano account of a mnemonic: the account public key the gateway holds (128 hex), and the private side. */
export function cardanoAccount(mnemonic = MNEMONIC, account = 0) {
  const root = CSL.Bip32PrivateKey.from_bip39_entropy(mnemonicToEntropy(mnemonic, wordlist), new Uint8Array(0));
  const prv = root.derive(h(1852)).derive(h(1815)).derive(h(account));
  return { prv, publicHex: Buffer.from(prv.to_public().as_bytes()).toString('hex'), path: `m/1852'/1815'/${account}'` };
}

/** The gateway's base address (payment key branch/index, stake key 2/0) from the account public key. */
export function cardanoAddress(publicHex: string, branch: number, index: number, networkId: number): string {
  const account = CSL.Bip32PublicKey.from_bytes(Buffer.from(publicHex, 'hex'));
  const payment = CSL.Credential.from_keyhash(account.derive(branch).derive(index).to_raw_key().hash());
  const stake = CSL.Credential.from_keyhash(account.derive(2).derive(0).to_raw_key().hash());
  return CSL.BaseAddress.new(networkId, payment, stake).to_address().to_bech32();
}

export interface AdaPlanOptions {
  readonly network: 'cardano' | 'preprod' | 'preview';
  readonly inputs: readonly { index: number; value: bigint }[];
  readonly outputs: readonly ({ external: string; value: bigint } | { change: number; value: bigint })[];
  readonly fee: bigint;
  /** Changes the body before it is serialized (a test's tampering). */
  readonly editBody?: (body: CSL.TransactionBody) => void;
}

/** A Cardano plan as the gateway writes it: an unsigned transaction (empty witness set) built with CSL from the account public key. */
export function adaPlan(options: AdaPlanOptions): { plan: PlanFile; txHex: string } {
  const account = cardanoAccount();
  const networkId = options.network === 'cardano' ? 1 : 0;
  const txInputs = CSL.TransactionInputs.new();
  const inputs = options.inputs.map(({ index, value }) => {
    const hash = randomBytes(32);
    txInputs.add(CSL.TransactionInput.new(CSL.TransactionHash.from_bytes(hash), 0));
    return {
      tx_hash: hash.toString('hex'),
      output_index: 0,
      address: cardanoAddress(account.publicHex, 0, index, networkId),
      amount_units: String(value),
      account: 0,
      path: `${account.path}/0/${index}`,
    };
  });
  const txOutputs = CSL.TransactionOutputs.new();
  const outputs = options.outputs.map((output): PlanFileOutput => {
    const address = 'external' in output ? output.external : cardanoAddress(account.publicHex, 1, output.change, networkId);
    txOutputs.add(CSL.TransactionOutput.new(CSL.Address.from_bech32(address), CSL.Value.new(CSL.BigNum.from_str(String(output.value)))));
    return {
      address,
      amount_units: String(output.value),
      destination: 'external' in output ? { kind: 'external' } : { kind: 'own', account: 0, path: `${account.path}/1/${output.change}` },
    };
  });
  const body = CSL.TransactionBody.new_tx_body(txInputs, txOutputs, CSL.BigNum.from_str(String(options.fee)));
  body.set_ttl(CSL.BigNum.from_str('90000000'));
  options.editBody?.(body);
  const tx = CSL.Transaction.new(body, CSL.TransactionWitnessSet.new());
  const txHex = tx.to_hex();
  const plan: PlanFile = {
    format: 'gateway-treasury-plan',
    version: 1,
    plan_id: `plan-${randomBytes(4).toString('hex')}`,
    chain: 'ada',
    network: options.network,
    coin: 'ada',
    kind: 'sweep',
    accounts: [{ key: account.publicHex, fingerprint: null, path: account.path }],
    inputs,
    outputs,
    fee_units: String(options.fee),
    fee_rate: '44',
    unsigned: { format: 'cardano-tx', data: txHex, txid: CSL.FixedTransaction.from_hex(txHex).transaction_hash().to_hex() },
    created_at: new Date(0).toISOString(),
  };
  return { plan, txHex };
}

/** An enterprise address of a random key: somebody else's Cardano address. */
export function externalCardanoAddress(networkId: number): string {
  const key = CSL.PrivateKey.generate_ed25519().to_public();
  return CSL.EnterpriseAddress.new(networkId, CSL.Credential.from_keyhash(key.hash())).to_address().to_bech32();
}

export interface SignerRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `gateway-signer` as a process (Node 24, through its launcher), optionally under a wrapper
 * command (`unshare --net`), in its own process group, killed as a group if it outlives `timeoutMs`.
 */
export function runSignerProcess(
  args: readonly string[],
  options: { stdin?: string; wrapper?: readonly string[]; timeoutMs?: number } = {},
): Promise<SignerRun> {
  const command = [...(options.wrapper ?? []), process.execPath, SIGNER_BIN, ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(command[0]!, command.slice(1), { detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }, options.timeoutMs ?? 90_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.stdin ?? '');
  });
}

/**
 * A fresh temporary folder for a test file's plans: `path(name)` names a numbered file in it (not
 * written), `file(name, content)` writes one and resolves to its path.
 */
export function tempFolder(prefix: string): { dir: string; path: (name: string) => string; file: (name: string, content: string) => string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  let files = 0;
  const path = (name: string) => join(dir, `${files++}-${name}`);
  return {
    dir,
    path,
    file: (name, content) => {
      const written = path(name);
      writeFileSync(written, content);
      return written;
    },
  };
}

/**
 * A regtest BTC plan written as `plan.json` to a fresh folder (`prefix`), as an operator hands it to
 * the command: deposit address `input.index` holding `input.value` pays all but a 1,000 sat fee to an
 * external address. `signedPath` is where the signer writes the signed file by default.
 */
export function btcPlanOnDisk(
  prefix: string,
  input: { index: number; value: bigint },
  passphrase?: string,
): { dir: string; plan: PlanFile; planPath: string; signedPath: string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const { plan } = btcPlan({
    chain: BTC,
    network: 'regtest',
    inputs: [input],
    outputs: [{ external: externalAddress(BTC.networks['regtest']!.params), value: input.value - 1_000n }],
    fee: 1_000n,
    ...(passphrase === undefined ? {} : { passphrase }),
  });
  const planPath = join(dir, 'plan.json');
  writeFileSync(planPath, JSON.stringify(plan));
  return { dir, plan, planPath, signedPath: signedPathOf(planPath) };
}

/** Where the signer writes the signed file of the plan at `planPath` by default. */
export const signedPathOf = (planPath: string): string => planPath.replace(/\.json$/, '.signed.json');

/** A copy of `plan` changed by `change`: how the refusal tests make a plan inconsistent. */
export function editPlan(plan: PlanFile, change: (copy: { -readonly [K in keyof PlanFile]: any }) => void): PlanFile {
  const copy = structuredClone(plan) as { -readonly [K in keyof PlanFile]: any };
  change(copy);
  return copy as PlanFile;
}

/**
 * Signs `plan` (as given: possibly inconsistent; written to a file of its own) with `secret` and
 * expects the refusal `code`: nothing written, the plan not shown as signable. Resolves with what
 * the signer printed.
 */
export async function expectRefused(t: ExecutionContext, plan: PlanFile, code: string, secret = MNEMONIC, extra: readonly string[] = []): Promise<string> {
  const path = join(mkdtempSync(join(tmpdir(), 'gateway-signer-refused-')), 'plan.json');
  writeFileSync(path, JSON.stringify(plan, null, 2));
  const run = await runSignerHere(['sign', path, '--key-stdin', '--yes', ...extra], secret);
  t.is(run.code, 1, run.stderr);
  t.regex(run.stderr, new RegExp(`refused \\(${code}\\)`));
  t.false(existsSync(signedPathOf(path)), 'nothing is written');
  t.false(run.stderr.includes('Inputs ('), 'a refused plan is not shown as signable');
  return run.stderr;
}

/** Runs the signer in this process with standard input carrying `stdin` (not a terminal). */
export async function runSignerHere(args: readonly string[], stdin = ''): Promise<SignerRun> {
  let stdout = '';
  let stderr = '';
  const sink = (append: (text: string) => void) =>
    new Writable({
      write(chunk: Buffer, _encoding, callback) {
        append(chunk.toString());
        callback();
      },
    });
  const code = await runSigner(args, {
    stdin: Readable.from([Buffer.from(stdin)]),
    stdout: sink((text) => (stdout += text)),
    stderr: sink((text) => (stderr += text)),
  });
  return { code, stdout, stderr };
}
