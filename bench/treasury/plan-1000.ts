/**
 * A Bitcoin treasury plan over 1,000 inputs (issue 35: "built and verified in under 1 s"): builds
 * the PSBT (each input's address checked against the account key, its BIP 32 derivation), signs it
 * here with the BIP84 test mnemonic's keys (not measured: the gateway never signs), and verifies
 * the signed PSBT against the plan (1,000 public keys, 1,000 BIP 143 digests, 1,000 signature
 * checks). Prints milliseconds for build and verify per round, and the machine's load average.
 * Run: npx -y pnpm@10.34.9 exec tsx bench/treasury/plan-1000.ts [inputs] [rounds]
 */
import { pbkdf2Sync } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { BIP32Factory } from 'bip32';
import * as bitcoin from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { ProviderPool, type ChainAdapterDeps } from '@gw/kernel';
import { btcChain } from '../../chains/btc/src/index.js';

const INPUTS = Number(process.argv[2] ?? 1000);
const ROUNDS = Number(process.argv[3] ?? 3);
const REGTEST = bitcoin.networks.regtest;
const bip32 = BIP32Factory(ecc);
const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const account = bip32.fromSeed(pbkdf2Sync(MNEMONIC, 'mnemonic', 2048, 64, 'sha512'), REGTEST).derivePath("m/84'/1'/0'");

const definition = btcChain.definition;
const network = definition.networks.testnets.find((n) => n.id === 'regtest')!;
const adapter = btcChain.createAdapter({ logger: {} as ChainAdapterDeps['logger'] }, definition);
// Building and verifying do no I/O: the provider is never asked.
const providers = new ProviderPool({ chain: 'btc', network: 'regtest', endpoints: [{ name: 'unused', url: 'http://127.0.0.1:9' }], timeoutMs: 1000 });
const treasury = adapter.createTreasury!({ network, providers });
const key = adapter.parseAccountKey(`[73c5da0a/84'/1'/0']${account.neutered().toBase58()}`, 'testnet');
const EXTERNAL = bitcoin.payments.p2wpkh({ pubkey: bip32.fromSeed(Buffer.alloc(32, 7), REGTEST).publicKey, network: REGTEST }).address!;

console.log(`treasury plan over ${INPUTS} inputs, ${ROUNDS} rounds; ${cpus().length} CPUs (${cpus()[0]?.model}), node ${process.version}`);
for (let round = 1; round <= ROUNDS; round++) {
  // Fresh indexes each round: no public key the process derived before.
  const branch = account.derive(0);
  const first = (round - 1) * INPUTS;
  const signers = Array.from({ length: INPUTS }, (_, i) => branch.derive(first + i));
  const inputs = signers.map((signer, i) => ({
    txHash: (round * 1_000_000 + i + 1).toString(16).padStart(64, '0'),
    outputIndex: 0,
    address: bitcoin.payments.p2wpkh({ pubkey: signer.publicKey, network: REGTEST }).address!,
    amountUnits: 10_000n,
    key,
    branch: 0 as const,
    index: first + i,
  }));
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  let start = performance.now();
  const plan = treasury.build({ inputs, outputs: [{ address: EXTERNAL }], feeRate: 2n });
  const buildMs = performance.now() - start;
  const psbt = bitcoin.Psbt.fromBase64(plan.data, { network: REGTEST });
  signers.forEach((signer, i) => psbt.signInput(i, signer));
  const signed = psbt.toBase64();
  start = performance.now();
  const verified = treasury.verifySigned(plan, signed);
  const verifyMs = performance.now() - start;
  if (verified.txid !== plan.txid) throw new Error('the verified transaction is not the plan');
  console.log(
    `round ${round}: build ${Math.round(buildMs)} ms, verify ${Math.round(verifyMs)} ms, total ${Math.round(buildMs + verifyMs)} ms; load average ${load}`,
  );
}
