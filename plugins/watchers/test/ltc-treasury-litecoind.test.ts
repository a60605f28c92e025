/**
 * The Litecoin treasury (the BTC adapter's `createTreasury` with Litecoin's parameters) against a
 * real Litecoin Core node: Debian's litecoind 0.21.2.1 on regtest (litecoind.ts, with `-txindex`
 * so `getrawtransaction` finds mined transactions), read as a `bitcoin-core` provider. The node is
 * the independent implementation: its own `decodepsbt` and `analyzepsbt` read the unsigned PSBT
 * (amounts, BIP 32 derivations, fee, the next role: signer), its `finalizepsbt` completes the PSBT a
 * wallet of the test mnemonic signed, and `testmempoolaccept` takes the result; a PSBT its own
 * wallet signs (`walletprocesspsbt`, the keys imported) passes `verifySigned`. A replacement plan
 * over the same inputs at a higher fee replaces the first (BIP 125) on a node started with
 * `-mempoolreplacement=1`; Litecoin Core's default (off) refuses it, as a second node shows. Its dust threshold is the one
 * the treasury enforces (2,940 litoshi for P2WPKH). Lives with the watchers' real-node tests
 * because chain packages take no dependency on @gw/testing.
 */
import test from 'ava';
import { ProviderError, ProviderPool, type ChainAdapterDeps, type ChainTreasury, type SpendInput } from '@gw/kernel';
import { createBip84Adapter } from '@gw/chain-btc';
import { TestSeedWallet } from '@gw/chain-btc/testing';
import { litecoinParams, ltcDefinition } from '@gw/chain-ltc';
import { Litecoind, litecoindInstalled } from '@gw/testing';

if (!litecoindInstalled()) throw new Error('litecoind is not installed: apt-get install -y litecoind (.ci/run installs it)');

let node: Litecoind;
let treasury: ChainTreasury;
const adapter = createBip84Adapter(litecoinParams)({ logger: {} as ChainAdapterDeps['logger'] }, ltcDefinition);
const wallet = new TestSeedWallet(litecoinParams, 'regtest');
const key = adapter.parseAccountKey(wallet.accountKeyWithOrigin, 'testnet');
const regtest = ltcDefinition.networks.testnets.find((n) => n.id === 'regtest')!;
const FINGERPRINT = '73c5da0a';

/** The Litecoin treasury reading `on` (a litecoind regtest node) as its one `bitcoin-core` provider. */
const treasuryOn = (on: Litecoind): ChainTreasury =>
  adapter.createTreasury!({
    network: regtest,
    providers: new ProviderPool({
      chain: 'ltc',
      network: 'regtest',
      endpoints: [{ name: 'litecoind', url: on.url, kind: 'bitcoin-core', username: on.username, password: on.password }],
      timeoutMs: 30_000,
    }),
  });

test.before(async () => {
  node = await Litecoind.start({ txindex: true, mempoolReplacement: true });
  // Coinbase outputs mature after 100 blocks (and mining stops at 432, where MWEB activates).
  await node.mine(101);
  treasury = treasuryOn(node);
});
test.after.always(async () => {
  await node?.stop();
});

/** Pays each amount to the next receive address of the account and mines it; returns the plan inputs `unspentAt` reports (Core: `scantxoutset`). */
async function fund(
  amounts: readonly bigint[],
  firstIndex: number,
  on: { node: Litecoind; treasury: ChainTreasury } = { node, treasury },
): Promise<SpendInput[]> {
  const { node, treasury } = on;
  const addresses = amounts.map((_, i) => wallet.address(0, firstIndex + i));
  for (const [i, amount] of amounts.entries()) await node.send(addresses[i]!, amount);
  await node.mine(1);
  const unspent = await treasury.unspentAt(addresses);
  const outputs = addresses.flatMap((address, i) =>
    (unspent.get(address) ?? []).map(({ txHash, outputIndex, amountUnits }) => ({ txHash, outputIndex, amountUnits, address, index: firstIndex + i })),
  );
  // The previous transactions the PSBT carries (nonWitnessUtxo), as the treasury plugin asks for them before build.
  const previous = await treasury.rawTransactions(outputs.map((output) => output.txHash));
  return outputs.map((output) => ({ ...output, key, branch: 0 as const, previousTransaction: previous.get(output.txHash)! }));
}

test.serial(
  'litecoind regtest: the node decodes and analyzes the unsigned PSBT, finalizes the signed one into a transaction it accepts; the treasury verifies the same transaction, broadcasts and tracks it',
  async (t) => {
    const inputs = await fund([30_000_000n, 12_000_000n], 0);
    t.is(inputs.length, 2);
    const destination = await node.rpc<string>('getnewaddress', ['', 'bech32']);
    const plan = treasury.build({
      inputs,
      outputs: [
        { address: destination, amountUnits: 20_000_000n },
        { address: wallet.address(1, 0), own: { branch: 1, index: 0 } },
      ],
      feeRate: 2n,
    });

    const decoded = await node.rpc('decodepsbt', [plan.data]);
    t.is(decoded.tx.txid, plan.txid);
    t.deepEqual(
      decoded.tx.vin.map((v: { txid: string; vout: number; sequence: number }) => [v.txid, v.vout, v.sequence]),
      inputs.map((i) => [i.txHash, i.outputIndex, 0xfffffffd]),
    );
    t.deepEqual(
      decoded.inputs.map((i: { witness_utxo: { amount: number } }) => Math.round(i.witness_utxo.amount * 1e8)),
      inputs.map((i) => Number(i.amountUnits)),
    );
    t.deepEqual(
      decoded.inputs.map((i: { bip32_derivs: { master_fingerprint: string; path: string }[] }) => i.bip32_derivs.map((d) => [d.master_fingerprint, d.path])),
      [[[FINGERPRINT, "m/84'/1'/0'/0/0"]], [[FINGERPRINT, "m/84'/1'/0'/0/1"]]],
    );
    t.deepEqual(decoded.outputs[1].bip32_derivs[0].path, "m/84'/1'/0'/1/0");
    t.is(Math.round(decoded.fee * 1e8), Number(plan.feeUnits));
    // Every input carries its previous transaction, as Litecoin Core reads it.
    t.deepEqual(
      decoded.inputs.map((i: { non_witness_utxo?: { txid: string } }) => i.non_witness_utxo?.txid),
      inputs.map((i) => i.txHash),
    );

    const analyzed = await node.rpc('analyzepsbt', [plan.data]);
    t.is(analyzed.next, 'signer');
    t.true(analyzed.inputs.every((i: { has_utxo: boolean; is_final: boolean; next: string }) => i.has_utxo && !i.is_final && i.next === 'signer'));
    t.is(Math.round(analyzed.fee * 1e8), Number(plan.feeUnits));
    t.true(analyzed.estimated_vsize <= plan.size, `node estimate ${analyzed.estimated_vsize}, plan ${plan.size}`);

    const signed = wallet.sign(plan.data);
    const finalized = await node.rpc<{ hex: string; complete: boolean }>('finalizepsbt', [signed]);
    t.true(finalized.complete);
    const [accepted] = await node.rpc('testmempoolaccept', [[finalized.hex]]);
    t.like(accepted, { txid: plan.txid, allowed: true });
    t.true(accepted.vsize <= plan.size);

    const verified = treasury.verifySigned(plan, signed);
    t.deepEqual(verified, { txid: plan.txid, hex: finalized.hex }, 'the treasury completes the PSBT exactly as the node does');
    t.is(await treasury.broadcast(verified), plan.txid);
    t.is(await treasury.broadcast(verified), plan.txid, 'sent again: the node has it');
    t.like(await treasury.transaction(plan.txid), { confirmations: 0, blockHeight: null, feeUnits: plan.feeUnits, size: accepted.vsize });
    const [blockHash] = await node.mine(1);
    t.like(await treasury.transaction(plan.txid), { confirmations: 1, blockHeight: await node.height(), blockHash });
    t.is(await treasury.broadcast(verified), plan.txid, 'sent once mined: already in the chain');
    const unspent = await treasury.unspentAt([destination, ...inputs.map((i) => i.address)]);
    t.deepEqual([...unspent.keys()], [destination], 'the inputs are spent');
    t.deepEqual(unspent.get(destination), [{ txHash: plan.txid, outputIndex: 0, amountUnits: 20_000_000n, blockHeight: await node.height() }]);
  },
);

test.serial(
  'litecoind regtest: a PSBT signed by Litecoin Core’s own wallet (the account’s keys imported) is accepted by verifySigned and broadcast',
  async (t) => {
    const inputs = await fund([4_000_000n, 1_000_000n], 30);
    await node.rpc('createwallet', ['core-signer']);
    for (const input of inputs) {
      await node.rpc('importprivkey', [wallet.account.derive(input.branch).derive(input.index).toWIF(), '', false], 'core-signer');
    }
    const destination = await node.rpc<string>('getnewaddress', ['', 'bech32']);
    const plan = treasury.build({ inputs, outputs: [{ address: destination }], feeRate: 2n });
    // Litecoin Core 0.21 signs and, once complete, finalizes in the same call.
    const signed = await node.rpc<{ psbt: string; complete: boolean }>('walletprocesspsbt', [plan.data, true, 'ALL', true], 'core-signer');
    t.true(signed.complete);
    const verified = treasury.verifySigned(plan, signed.psbt);
    t.is(verified.txid, plan.txid);
    await treasury.broadcast(verified);
    t.true((await node.mempool()).includes(plan.txid));
    await node.mine(1);
  },
);

test.serial(
  'litecoind regtest (-mempoolreplacement=1): a replacement over the same inputs at a higher fee (feeUnits) replaces the first plan in the mempool',
  async (t) => {
    const inputs = await fund([5_000_000n, 3_000_000n], 10);
    const destination = await node.rpc<string>('getnewaddress', ['', 'bech32']);
    const first = treasury.build({ inputs, outputs: [{ address: destination }], feeRate: 1n });
    await treasury.broadcast(treasury.verifySigned(first, wallet.sign(first.data)));
    t.deepEqual(await node.mempool(), [first.txid]);

    const bump = treasury.build({ inputs, outputs: [{ address: destination }], feeRate: 5n, feeUnits: first.feeUnits * 5n });
    t.not(bump.txid, first.txid);
    await treasury.broadcast(treasury.verifySigned(bump, wallet.sign(bump.data)));
    t.deepEqual(await node.mempool(), [bump.txid], 'the replacement took the first one’s place');
    t.is(await treasury.transaction(first.txid), null, 'the replaced transaction is unknown to the node');
    t.like(await treasury.transaction(bump.txid), { confirmations: 0, feeUnits: first.feeUnits * 5n });

    // The first one again: the node refuses it now (it pays less than what replaced it).
    const error = await t.throwsAsync(treasury.broadcast(treasury.verifySigned(first, wallet.sign(first.data))));
    t.is((error as { code?: string }).code, 'treasury_broadcast_rejected');
    await node.mine(1);
    t.is((await treasury.transaction(bump.txid))!.confirmations, 1);
  },
);

test.serial(
  'litecoind regtest with Litecoin Core’s default policy (no mempool replacement): the replacement is refused as a conflict, the first stays',
  async (t) => {
    const plain = await Litecoind.start({ txindex: true });
    t.teardown(() => plain.stop());
    await plain.mine(101);
    const own = treasuryOn(plain);
    const inputs = await fund([5_000_000n], 0, { node: plain, treasury: own });
    const destination = await plain.rpc<string>('getnewaddress', ['', 'bech32']);
    const first = own.build({ inputs, outputs: [{ address: destination }], feeRate: 1n });
    await own.broadcast(own.verifySigned(first, wallet.sign(first.data)));
    const bump = own.build({ inputs, outputs: [{ address: destination }], feeRate: 1n, feeUnits: first.feeUnits * 5n });
    const error = await t.throwsAsync(own.broadcast(own.verifySigned(bump, wallet.sign(bump.data))));
    t.like(error, { code: 'treasury_broadcast_rejected', details: { txid: bump.txid, reason: 'sendrawtransaction: RPC error -26: txn-mempool-conflict' } });
    t.deepEqual(await plain.mempool(), [first.txid]);
  },
);

test.serial(
  'litecoind regtest: Litecoin’s dust threshold (2,940 litoshi for P2WPKH) is the node’s; fee estimates without data are a provider error',
  async (t) => {
    const inputs = await fund([1_000_000n], 20);
    const destination = await node.rpc<string>('getnewaddress', ['', 'bech32']);
    t.like(
      t.throws(() => treasury.build({ inputs, outputs: [{ address: destination, amountUnits: 2_939n }, { address: wallet.address(1, 1) }], feeRate: 1n })),
      {
        code: 'treasury_dust_output',
      },
    );
    const plan = treasury.build({ inputs, outputs: [{ address: destination, amountUnits: 2_940n }, { address: wallet.address(1, 1) }], feeRate: 1n });
    const { hex } = treasury.verifySigned(plan, wallet.sign(plan.data));
    const [accepted] = await node.rpc('testmempoolaccept', [[hex]]);
    t.like(accepted, { allowed: true });
    await t.throwsAsync(treasury.feeEstimate(), { instanceOf: ProviderError, message: /estimatesmartfee 1: Insufficient data/ });
  },
);
