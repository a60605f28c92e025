/**
 * Watchers against a real Litecoin node. Node: Debian's litecoind 0.21.2.1 on regtest
 * (litecoind.ts; a fresh node for this file: mining stops at height 432, where MWEB activates),
 * read through the `bitcoin-core` provider kind as ltc/regtest (config `chains.testNetworks.ltc`:
 * testnet projects derive `rltc1…` addresses). Payments are real wallet transactions: seen in the node's mempool,
 * then mined into real blocks. The reorg is `invalidateblock` followed by blocks mined with
 * `generateblock` and no transactions (Core returns the disconnected payment to its mempool, and
 * a plain `generatetoaddress` would mine it again at once). The last test restarts the node with
 * its mempool lost.
 */
import test from 'ava';
import { waitFor, type TestKernel } from '@gw/kernel/testing';
import { verifyWebhook } from '@gw/webhook-verify';
import { FIXED_RATES, Litecoind, litecoindInstalled, stopAll } from '@gw/testing';
import { Receiver, type TestProject } from '@gw/plugin-webhooks/testing';
import { startRegtestGateway, watcherScenario } from './scenario.js';

let node: Litecoind;
let gw: TestKernel;
let receiver: Receiver;
let project: TestProject;

if (!litecoindInstalled()) throw new Error('litecoind is not installed: apt-get install -y litecoind (.ci/run installs it)');

test.before(async () => {
  node = await Litecoind.start({ persistMempool: false });
  // Coinbase outputs mature after 100 blocks.
  await node.mine(101);
  receiver = await Receiver.start();
  ({ gw, project } = await startRegtestGateway({
    chain: 'ltc',
    network: 'regtest',
    coin: 'ltc',
    provider: { name: 'litecoind', url: node.url, username: node.username, password: node.password },
    startHeight: (await node.height()) + 1,
    receiver,
    config: {
      'chains.enabled': ['btc', 'eth', 'tron', 'ada', 'polygon', 'bsc', 'ton', 'ltc'],
      'chains.testNetworks': { ltc: 'regtest' },
      'plugins.rates.fixed': { ...FIXED_RATES, LTC: '80' },
    },
  }));
});
test.after.always(() => stopAll(gw, receiver, node));

const { scan, invoice, get, eventsOf, payToPaid, invalidatePaid, underpayToPartial, strayToAttributed } = watcherScenario(
  () => ({ gw, project, receiver }),
  'ltc',
  'regtest',
);
/** Blocks mined with no transaction from the mempool (`generateblock`, Core 0.21+). */
const mineEmpty = async (blocks: number) => {
  const address = await node.rpc<string>('getnewaddress', []);
  for (let i = 0; i < blocks; i += 1) await node.rpc('generateblock', [address, []]);
};

test.serial(
  'litecoind regtest: a payment is detected from the mempool, confirms to paid with a signed webhook; invalidateblock and a longer branch without it revert it; mined again it is paid again',
  async (t) => {
    const inv = await invoice({ coin: 'ltc', amount_crypto: '0.25' });
    t.regex(inv.address, /^rltc1q/);
    const { txid, blockHash } = await payToPaid(t, node, inv, 25_000_000n);

    // The block holding the payment is invalidated; Core puts the payment back into its mempool.
    const forkHeight = await invalidatePaid(t, node, inv, blockHash);
    t.deepEqual(await node.mempool(), [txid], 'the disconnected payment is back in the mempool');
    await mineEmpty(inv.confirmation_threshold + 1);
    const report = await scan();
    t.is(report.reorgedTo, forkHeight);
    await waitFor(async () => eventsOf(inv.id).some((e) => e.event_type === 'invoice.reverted'), 20_000);
    t.true(
      verifyWebhook({
        rawBody: eventsOf(inv.id).find((e) => e.event_type === 'invoice.reverted')!.raw,
        header: eventsOf(inv.id).find((e) => e.event_type === 'invoice.reverted')!.signature,
        secrets: [project.secret],
      }).ok,
    );

    // Still in the mempool, the payment is mined on the new branch: paid again, once more.
    await node.mine(inv.confirmation_threshold);
    await scan();
    t.is((await get(inv.id)).status, 'paid');
    await waitFor(async () => eventsOf(inv.id).filter((e) => e.event_type === 'invoice.paid').length === 2, 20_000);
    const transfers = (await gw.kernel.cradle
      .db('watchers_transfers')
      .where({ chain: 'ltc', network: 'regtest', tx_hash: txid })
      .select('status', 'block_hash')) as { status: string; block_hash: string | null }[];
    t.is(transfers.length, 1, 'one transfer row for the payment, moved between blocks');
    // It now sits in the new branch's block that holds the payment, not the invalidated one.
    const holding = await node.rpc<{ blockhash?: string }>('gettransaction', [txid]);
    t.like(transfers[0], { status: 'in_block', block_hash: holding.blockhash });
    t.not(transfers[0]!.block_hash, blockHash);
  },
);

test.serial('litecoind regtest: an under-payment ends partial', (t) => underpayToPartial(t, node, 'ltc'));

test.serial('litecoind regtest: a stray payment to a free pool address is an orphan, seen in the mempool, attributed to a new paid invoice', (t) =>
  strayToAttributed(t, node, 'ltc'),
);

test.serial(
  'litecoind regtest: the node restarts and has lost its mempool; passes fail while it is down and say so; the payment, sent again, is counted once',
  async (t) => {
    // A second wallet pays, and is unloaded before the restart, so nothing puts its payment back.
    await node.rpc('createwallet', ['payer']);
    const inv = await invoice({ coin: 'ltc', amount_crypto: '0.5' });
    const payer = <T>(method: string, params: unknown[]) => node.rpc<T>(method, params, 'payer');
    await node.rpc('sendtoaddress', [await payer<string>('getnewaddress', []), '2']);
    await node.mine(1);
    const raw = await payer<string>('createrawtransaction', [[], { [inv.address]: '0.5' }]);
    const funded = await payer<{ hex: string }>('fundrawtransaction', [raw]);
    const signed = await payer<{ hex: string }>('signrawtransactionwithwallet', [funded.hex]);
    const txid = await node.rpc<string>('sendrawtransaction', [signed.hex]);
    await scan();
    t.is((await get(inv.id)).status, 'detected');
    await payer('unloadwallet', []);

    const stopped = node.restart();
    // While it is down, a pass fails, is recorded on the cursor and leaves everything as it was.
    const target = gw.kernel.cradle.watchersRegistry.get('ltc', 'regtest')!;
    let failed = false;
    for (let i = 0; i < 50 && !failed; i += 1) {
      const report = await gw.kernel.cradle.watchersScanner.pass(target);
      failed = report.error !== undefined;
      if (!failed) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await stopped;
    const cursor = await gw.kernel.cradle.db('watchers_cursors').where({ chain: 'ltc', network: 'regtest' }).first();
    t.true(failed, 'a pass against the stopped node failed');
    t.true(Number(cursor.consecutive_failures) >= 1 && typeof cursor.last_error === 'string', 'and the cursor says so');
    t.deepEqual(await node.mempool(), [], 'the restarted node has lost the payment');

    // The next pass after the backoff recovers by itself; the invoice stays detected.
    await gw.kernel.cradle.db('watchers_cursors').where({ chain: 'ltc', network: 'regtest' }).update({ next_scan_at: null });
    await scan();
    t.is(Number((await gw.kernel.cradle.db('watchers_cursors').where({ chain: 'ltc', network: 'regtest' }).first()).consecutive_failures), 0);
    t.is((await get(inv.id)).status, 'detected', 'a transfer missing from the mempool is kept until mempoolTimeoutSeconds');

    // The payer's wallet comes back and sends it again; mined, it is paid once.
    t.deepEqual(await node.rpc('sendrawtransaction', [signed.hex]), txid);
    await node.mine(inv.confirmation_threshold);
    await scan();
    t.is((await get(inv.id)).status, 'paid');
    await waitFor(async () => eventsOf(inv.id).some((e) => e.event_type === 'invoice.paid'), 20_000);
    t.is(eventsOf(inv.id).filter((e) => e.event_type === 'invoice.detected').length, 1);
    t.is(eventsOf(inv.id).filter((e) => e.event_type === 'invoice.paid').length, 1);
    const tip = await node.height();
    const blocks = (await gw.kernel.cradle.db('watchers_blocks').where({ chain: 'ltc', network: 'regtest' }).orderBy('height').select('height', 'hash')) as {
      height: string;
      hash: string;
    }[];
    t.is(Number(blocks.at(-1)!.height), tip);
    // One request at a time: litecoind's RPC work queue holds 16 (more at once is HTTP 500 "Work queue depth exceeded").
    const nodeHashes: string[] = [];
    for (const b of blocks) nodeHashes.push(await node.rpc<string>('getblockhash', [Number(b.height)]));
    t.deepEqual(
      blocks.map((b) => b.hash),
      nodeHashes,
      'the stored blocks are the node`s',
    );
  },
);
