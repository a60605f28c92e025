/**
 * Watchers against a real Bitcoin node. Node: bcoin 1.0.2 on regtest (bcoin.ts, bcoin-launcher.cjs),
 * read through the `bitcoin-core` JSON-RPC provider kind as btc/regtest (its addresses are encoded
 * as Core's regtest, `bcrt1…`; config `chains.testNetworks` makes testnet projects derive them). Payments are
 * real wallet transactions: seen in the node's mempool, then mined into real blocks; the reorg is
 * `invalidateblock` followed by new blocks. Spends of what the gateway received are made as the
 * operator's own wallet would make them, outside the gateway: the test derives the pool address's
 * private key from the test mnemonic (whose tpub the project registered), and the node signs
 * (`signrawtransaction` with that key) and relays (`sendrawtransaction`) the transaction.
 */
import test from 'ava';
import { waitFor, type TestKernel } from '@gw/kernel/testing';
import { Receiver, type TestProject } from '@gw/plugin-webhooks/testing';
import { Bcoin, btcTestnetReceiveKey, stopAll } from '@gw/testing';
import { startRegtestGateway, watcherScenario } from './scenario.js';

let node: Bcoin;
let gw: TestKernel;
let receiver: Receiver;
let project: TestProject;

test.before(async () => {
  node = await Bcoin.startMature();
  receiver = await Receiver.start();
  ({ gw, project } = await startRegtestGateway({
    chain: 'btc',
    network: 'regtest',
    coin: 'btc',
    provider: { name: 'bcoin', url: node.url, username: 'gateway', password: node.apiKey },
    startHeight: (await node.height()) + 1,
    receiver,
    config: { 'chains.testNetworks': { btc: 'regtest' } },
  }));
});
test.after.always(() => stopAll(gw, receiver, node));

const { scan, invoice, get, eventsOf, payToPaid, invalidatePaid, underpayToPartial, strayToAttributed } = watcherScenario(
  () => ({ gw, project, receiver }),
  'btc',
  'regtest',
);

test.serial(
  'bcoin regtest: a payment to the invoice address is detected from the mempool, confirms to paid with a signed webhook; invalidateblock and new blocks revert it; rebroadcast and re-mined it is paid again',
  async (t) => {
    const inv = await invoice({ coin: 'btc', amount_crypto: '0.25' });
    t.regex(inv.address, /^bcrt1q/);
    const { txid, blockHash } = await payToPaid(t, node, inv, 25_000_000n);

    // The block holding the payment is invalidated and a longer branch without it is mined.
    const forkHeight = await invalidatePaid(t, node, inv, blockHash);
    // bcoin puts a disconnected transaction back into an empty mempool only when its wallet rebroadcasts it.
    t.deepEqual(await node.mempool(), []);
    await node.mine(inv.confirmation_threshold + 1);
    const report = await scan();
    t.is(report.reorgedTo, forkHeight);
    const reverted = await get(inv.id);
    t.is(reverted.status, 'reverted');
    t.is(reverted.transactions[0].status, 'reverted');
    await waitFor(async () => eventsOf(inv.id).some((e) => e.event_type === 'invoice.reverted'), 20_000);

    // The payer's wallet rebroadcasts the payment: back in the mempool, mined on the new branch, paid again.
    // The wallet follows the disconnected block on its own schedule: resend until the node takes it back.
    await waitFor(async () => {
      await node.wallet('POST', '/wallet/primary/resend');
      return (await node.mempool()).includes(txid);
    }, 20_000);
    await node.mine(inv.confirmation_threshold);
    await scan();
    const repaid = await get(inv.id);
    t.is(repaid.status, 'paid');
    await waitFor(async () => eventsOf(inv.id).filter((e) => e.event_type === 'invoice.paid').length === 2, 20_000);
  },
);

test.serial(
  'bcoin regtest: transactionIn through a node reads the block it names (getblockheader, getblock): the payment with its height; null for a block the node does not have',
  async (t) => {
    const inv = await invoice({ coin: 'btc', amount_crypto: '0.02' });
    const { txid, blockHash } = await payToPaid(t, node, inv, 2_000_000n);
    const { watcher } = gw.kernel.cradle.watchersRegistry.get('btc', 'regtest')!;
    const only = { filter: async (candidates: readonly string[]) => new Set(candidates.filter((a) => a === inv.address)), active: async () => [inv.address] };
    const found = await watcher.transactionIn!(txid, blockHash, only);
    t.is(found?.blockHash, blockHash);
    t.is(found?.height, (await node.rpc<{ height: number }>('getblockheader', [blockHash])).height);
    t.deepEqual(
      found?.transfers.map((transfer) => [transfer.toAddress, transfer.amountUnits]),
      [[inv.address, 2_000_000n]],
    );
    t.is(await watcher.transactionIn!(txid, 'ab'.repeat(32), only), null, 'a block the node never had');
  },
);

test.serial('bcoin regtest: an under-payment ends partial', (t) => underpayToPartial(t, node, 'btc'));

test.serial('bcoin regtest: a stray payment to a free pool address is an orphan, seen in the mempool, attributed to a new paid invoice', (t) =>
  strayToAttributed(t, node, 'btc'),
);

/** bcoin's regtest version byte of a private key in WIF (Core's regtest uses testnet's 0xef). */
const BCOIN_REGTEST_WIF = 0x5a;

/** A free pool address of the project that was never paid, with its derivation index (receive branch). */
async function freePoolAddress(): Promise<{ address: string; index: number }> {
  const { db } = gw.kernel.cradle;
  const [row] = (await db('address_pool_addresses')
    .where({ project_id: project.projectId, chain: 'btc', state: 'available' })
    .whereNotIn('address', db('watchers_transfers').select('to_address'))
    .orderBy('derivation_index', 'desc')
    .select('address', 'derivation_index')) as { address: string; derivation_index: number }[];
  return { address: row!.address, index: Number(row!.derivation_index) };
}

/** The output of `txid` paying `address` (its vout), as the node reports the transaction. */
async function voutTo(txid: string, address: string): Promise<number> {
  const tx = await node.rpc<{ vout: { n: number; scriptPubKey: { addresses?: string[]; address?: string } }[] }>('getrawtransaction', [txid, true]);
  return tx.vout.find((o) => (o.scriptPubKey.address ?? o.scriptPubKey.addresses?.[0]) === address)!.n;
}

/**
 * Spends `txid:vout` (worth `sats`) to an address of the node's wallet, signed with the key of
 * pool address `index`, and sends it; the spending transaction's id and hex.
 */
async function spendAsOperator(txid: string, vout: number, sats: bigint, index: number): Promise<{ spendTxid: string; hex: string }> {
  const { address: destination } = await node.wallet<{ address: string }>('POST', '/wallet/primary/address', { account: 'default' });
  const amount = Number(sats - 10_000n) / 1e8;
  const unsigned = await node.rpc<string>('createrawtransaction', [[{ txid, vout }], { [destination]: amount }]);
  const signed = await node.rpc<{ hex: string; complete: boolean }>('signrawtransaction', [unsigned, [], [btcTestnetReceiveKey(index, BCOIN_REGTEST_WIF)]]);
  if (!signed.complete) throw new Error('the pool key did not sign the spend');
  return { spendTxid: await node.rpc<string>('sendrawtransaction', [signed.hex]), hex: signed.hex };
}

test.serial(
  'bcoin regtest: an output paid to a pool address is unspent in watchersOutputs, spent once the operator’s own wallet spends it, and unspent again when a reorg drops the spending block',
  async (t) => {
    const outputs = gw.kernel.cradle.watchersOutputs;
    const query = { chain: 'btc' as const, network: 'regtest', limit: 10 };
    const { address, index } = await freePoolAddress();
    const txid = await node.send(address, 30_000_000n);
    await node.mine(1);
    await scan();

    const [received] = (await outputs.list({ ...query, addresses: [address] })).outputs;
    const vout = await voutTo(txid, address);
    t.like(received, { txHash: txid, outputIndex: vout, address, amountUnits: 30_000_000n, status: 'in_block', spentBy: null, spentHeight: null });
    const before = await outputs.balances({ groupBy: 'address', chain: 'btc', network: 'regtest', projectId: project.projectId, limit: 100 });
    t.like(
      before.rows.find((r) => r.address === address),
      { confirmedUnits: 30_000_000n, unconfirmedUnits: 0n, outputs: 1, unclaimedUnits: 30_000_000n },
      'a payment to a free address is an orphan: unclaimed',
    );

    // The operator spends it from their own wallet: in the mempool only, it is still unspent.
    const { spendTxid, hex } = await spendAsOperator(txid, vout, 30_000_000n, index);
    await scan();
    t.is((await outputs.byOutpoints('btc', 'regtest', [received!]))[0]!.spentBy, null, 'a spend in the mempool is not a spend yet');

    const [spendBlock] = await node.mine(1);
    const spentHeight = await node.height();
    const report = await scan();
    t.is(report.spent, 1);
    const [spent] = await outputs.byOutpoints('btc', 'regtest', [received!]);
    t.like(spent, { spentBy: spendTxid, spentHeight });
    t.deepEqual((await outputs.list({ ...query, addresses: [address] })).outputs, [], 'gone from the unspent outputs');
    t.deepEqual(
      (await outputs.list({ ...query, addresses: [address], spent: 'spent' })).outputs.map((o) => o.spentBy),
      [spendTxid],
    );
    const after = await outputs.balances({ groupBy: 'address', chain: 'btc', network: 'regtest', projectId: project.projectId, limit: 100 });
    t.is(
      after.rows.find((r) => r.address === address),
      undefined,
      'gone from the balances',
    );

    // A longer branch without the spending block: the output is unspent again, still in its own block.
    await node.rpc('invalidateblock', [spendBlock]);
    await node.mine(2);
    const reorg = await scan();
    t.is(reorg.reorgedTo, spentHeight - 1);
    t.like((await outputs.byOutpoints('btc', 'regtest', [received!]))[0], { status: 'in_block', spentBy: null, spentHeight: null });
    t.deepEqual(
      (await outputs.list({ ...query, addresses: [address] })).outputs.map((o) => o.txHash),
      [txid],
    );

    // The same spend, relayed again and mined on the new branch, spends it again.
    t.is(await node.rpc<string>('sendrawtransaction', [hex]), spendTxid);
    await node.mine(1);
    t.is((await scan()).spent, 1);
    t.like((await outputs.byOutpoints('btc', 'regtest', [received!]))[0], { spentBy: spendTxid, spentHeight: await node.height() });
  },
);

test.serial('bcoin regtest: an output paid and spent within one block counts as spent', async (t) => {
  const outputs = gw.kernel.cradle.watchersOutputs;
  const { address, index } = await freePoolAddress();
  const txid = await node.send(address, 20_000_000n);
  const vout = await voutTo(txid, address);
  // The child spends the unconfirmed payment: both are mined in the next block, read in one pass.
  const { spendTxid } = await spendAsOperator(txid, vout, 20_000_000n, index);
  await node.mine(1);
  const report = await scan();
  t.is(report.spent, 1);
  const [output] = await outputs.byOutpoints('btc', 'regtest', [{ txHash: txid, outputIndex: vout }]);
  t.like(output, { address, amountUnits: 20_000_000n, status: 'in_block', spentBy: spendTxid, spentHeight: await node.height() });
});
