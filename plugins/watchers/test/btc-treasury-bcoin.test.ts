/**
 * The Bitcoin treasury (`createTreasury` of @gw/chain-btc) against a real Bitcoin node: bcoin 1.0.2
 * on regtest (bcoin.ts), read as a `bitcoin-core` provider like the watcher reads it, with
 * `replace-by-fee` so its mempool takes transactions that signal BIP 125. Addresses of the BIP84
 * test mnemonic's testnet account receive real wallet payments; the treasury finds them
 * (`unspentAt`, bcoin's `/coin/address`), builds a plan to the node wallet's address, a wallet of
 * the mnemonic signs it here (the test is the signer: the gateway holds no key), the treasury
 * verifies it, broadcasts it and follows it to its confirmation. Lives with the watchers' real-node
 * tests because chain packages take no dependency on @gw/testing (which depends on them).
 */
import test from 'ava';
import { ProviderError, ProviderPool, type ChainAdapterDeps, type ChainTreasury, type SpendInput } from '@gw/kernel';
import { bitcoinParams, btcChain } from '@gw/chain-btc';
import { TestSeedWallet } from '@gw/chain-btc/testing';
import { waitFor } from '@gw/kernel/testing';
import { Bcoin } from '@gw/testing';

let node: Bcoin;
let treasury: ChainTreasury;
const adapter = btcChain.createAdapter({ logger: {} as ChainAdapterDeps['logger'] }, btcChain.definition);
const wallet = new TestSeedWallet(bitcoinParams, 'regtest');
const key = adapter.parseAccountKey(wallet.accountKeyWithOrigin, 'testnet');
const regtest = btcChain.definition.networks.testnets.find((n) => n.id === 'regtest')!;

test.before(async () => {
  node = await Bcoin.startMature({ replaceByFee: true });
  const providers = new ProviderPool({
    chain: 'btc',
    network: 'regtest',
    endpoints: [{ name: 'bcoin', url: node.url, kind: 'bitcoin-core', username: 'gateway', password: node.apiKey }],
    timeoutMs: 10_000,
  });
  treasury = adapter.createTreasury!({ network: regtest, providers });
});
test.after.always(async () => {
  await node?.stop();
});

/** Pays each amount to the next receive address of the account and mines it; returns the plan inputs the provider reports. */
async function fund(amounts: readonly bigint[], firstIndex: number): Promise<(SpendInput & { blockHeight: number | null })[]> {
  const addresses = amounts.map((_, i) => wallet.address(0, firstIndex + i));
  for (const [i, amount] of amounts.entries()) await node.send(addresses[i]!, amount);
  await node.mine(1);
  const unspent = await treasury.unspentAt(addresses);
  const outputs = addresses.flatMap((address, i) => (unspent.get(address) ?? []).map((output) => ({ ...output, address, index: firstIndex + i })));
  // The previous transactions the PSBT carries (nonWitnessUtxo), as the treasury plugin asks for them before build.
  const previous = await treasury.rawTransactions(outputs.map((output) => output.txHash));
  return outputs.map((output) => ({ ...output, key, branch: 0 as const, previousTransaction: previous.get(output.txHash)! }));
}

test.serial(
  'bcoin regtest: outputs found by unspentAt are gathered by a plan to an external address, signed by the seed, verified, broadcast, confirmed; the destination holds the sum less the fee',
  async (t) => {
    const inputs = await fund([40_000_000n, 25_000_000n, 1_500_000n], 0);
    t.is(inputs.length, 3);
    t.true(inputs.every((input) => input.blockHeight === (inputs[0]!.blockHeight ?? -1) && input.blockHeight !== null));
    const destination = (await node.wallet<{ address: string }>('POST', '/wallet/primary/address', { account: 'default' })).address;

    const plan = treasury.build({ inputs, outputs: [{ address: destination }], feeRate: 3n });
    t.true(
      inputs.every(
        (input) => typeof input.previousTransaction === 'string' && Buffer.from(plan.data, 'base64').toString('hex').includes(input.previousTransaction),
      ),
      'the node gave every previous transaction, and the PSBT carries them',
    );
    t.is(plan.outputs[0]!.amountUnits, 66_500_000n - plan.feeUnits);
    t.is(plan.feeUnits, 3n * BigInt(plan.size));

    const verified = treasury.verifySigned(plan, wallet.sign(plan.data));
    t.is(verified.txid, plan.txid);
    t.is(await treasury.broadcast(verified), plan.txid);
    // bcoin answers sendrawtransaction before its mempool has verified the transaction (slow on a loaded machine).
    t.true(await waitFor(async () => (await node.mempool()).includes(plan.txid), 20_000, 'the node took it into its mempool'));
    // Broadcast again: the provider has it, which counts as sent.
    t.is(await treasury.broadcast(verified), plan.txid);

    const pending = await treasury.transaction(plan.txid);
    t.like(pending, { txid: plan.txid, confirmations: 0, blockHeight: null, blockHash: null, feeUnits: plan.feeUnits });
    const [blockHash] = await node.mine(1);
    const mined = await treasury.transaction(plan.txid);
    t.like(mined, { txid: plan.txid, confirmations: 1, blockHeight: await node.height(), blockHash });
    await node.mine(2);
    t.is((await treasury.transaction(plan.txid))!.confirmations, 3);

    const after = await treasury.unspentAt([...inputs.map((i) => i.address), destination]);
    t.false(
      inputs.some((i) => after.has(i.address)),
      'the gathered outputs are spent',
    );
    t.deepEqual(
      after.get(destination)!.filter((o) => o.txHash === plan.txid),
      [{ txHash: plan.txid, outputIndex: 0, amountUnits: plan.outputs[0]!.amountUnits, blockHeight: mined!.blockHeight }],
    );
    t.is(await treasury.transaction('ab'.repeat(32)), null, 'a transaction the node does not know');
  },
);

test.serial(
  'bcoin regtest: a signed file with a higher fee than the plan is refused and nothing reaches the node; the plan, sent, signals RBF on every input',
  async (t) => {
    const inputs = await fund([10_000_000n, 2_000_000n], 10);
    const destination = wallet.address(1, 0);
    const plan = treasury.build({ inputs, outputs: [{ address: destination, own: { branch: 1, index: 0 } }], feeRate: 2n });
    const higherFee = treasury.build({
      inputs,
      outputs: [{ address: destination, own: { branch: 1, index: 0 } }],
      feeRate: 2n,
      feeUnits: plan.feeUnits + 10_000n,
    });
    t.is(higherFee.feeUnits, plan.feeUnits + 10_000n);
    t.throws(() => treasury.verifySigned(plan, wallet.sign(higherFee.data)), { instanceOf: Error, message: /differs from the plan: output 0 amount/ });
    t.deepEqual(await node.mempool(), []);
    // bcoin 1.0.2 keeps the first of two conflicting transactions (no BIP 125 replacement): the
    // replacement is exercised on litecoind (ltc-treasury-litecoind.test.ts).
    const verified = treasury.verifySigned(plan, wallet.sign(plan.data));
    await treasury.broadcast(verified);
    await waitFor(async () => (await node.mempool()).length > 0, 20_000, 'the node took it into its mempool');
    t.deepEqual(await node.mempool(), [plan.txid]);
    const sent = await node.rpc<{ vin: { sequence: number }[] }>('getrawtransaction', [plan.txid, true]);
    t.deepEqual(
      sent.vin.map((input) => input.sequence),
      [0xfffffffd, 0xfffffffd],
    );
  },
);

test.serial(
  'bcoin regtest: without fee data the estimate is a provider error (the treasury plugin falls back to its configured rates); an input costs 68 vbytes',
  async (t) => {
    await t.throwsAsync(treasury.feeEstimate(), { instanceOf: ProviderError, message: /estimatesmartfee 1/ });
    t.is(treasury.inputCost(4n), 272n);
  },
);
