/**
 * Watchers against a real Bitcoin node. Node: bcoin 1.0.2 on regtest (bcoin.ts, bcoin-launcher.cjs),
 * read through the `bitcoin-core` JSON-RPC provider kind as btc/regtest (its addresses are encoded
 * as Core's regtest, `bcrt1…`; config `chains.testNetworks` makes testnet projects derive them). Payments are
 * real wallet transactions: seen in the node's mempool, then mined into real blocks; the reorg is
 * `invalidateblock` followed by new blocks.
 */
import test from 'ava';
import { waitFor, type TestKernel } from '@gw/kernel/testing';
import { Receiver, type TestProject } from '@gw/plugin-webhooks/testing';
import { Bcoin } from '@gw/testing';
import { startRegtestGateway, watcherScenario } from './scenario.js';

let node: Bcoin;
let gw: TestKernel;
let receiver: Receiver;
let project: TestProject;

test.before(async () => {
  node = await Bcoin.start();
  // Coinbase outputs mature after 100 blocks; segwit is active from height 432 on bcoin's regtest.
  await node.mine(440);
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
test.after.always(async () => {
  await gw?.close();
  await receiver?.close();
  await node?.stop();
});

const { scan, invoice, get, eventsOf, payToPaid, underpayToPartial, strayToAttributed } = watcherScenario(() => ({ gw, project, receiver }), 'btc', 'regtest');

test.serial(
  'bcoin regtest: a payment to the invoice address is detected from the mempool, confirms to paid with a signed webhook; invalidateblock and new blocks revert it; rebroadcast and re-mined it is paid again',
  async (t) => {
    const inv = await invoice({ coin: 'btc', amount_crypto: '0.25' });
    t.regex(inv.address, /^bcrt1q/);
    const { txid, blockHash } = await payToPaid(t, node, inv, 25_000_000n);

    // The block holding the payment is invalidated and a longer branch without it is mined.
    const paidHeight = await node.height();
    await node.rpc('invalidateblock', [blockHash]);
    const forkHeight = await node.height();
    t.is(forkHeight, paidHeight - inv.confirmation_threshold);
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

test.serial('bcoin regtest: an under-payment ends partial', (t) => underpayToPartial(t, node, 'btc'));

test.serial('bcoin regtest: a stray payment to a free pool address is an orphan, seen in the mempool, attributed to a new paid invoice', (t) =>
  strayToAttributed(t, node, 'btc'),
);
