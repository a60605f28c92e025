/**
 * Detection by push through Bitcoin Core's ZMQ notifications, from a real Bitcoin node that is not
 * Core: Core itself is not in these tests, and the ZMQ messages are the test launcher's. Node: bcoin
 * 1.0.2 on regtest (bcoin.ts), read as a `bitcoin-core` provider, publishing Core's `hashblock`
 * and `rawtx` in Core's wire format from its own chain and mempool events (bcoin-launcher.cjs:
 * bcoin has no ZMQ of its own, and Debian's litecoind is built without it; docs/decisions.md).
 * Each test starts its own node. The first polls once an hour, so whatever is found was found
 * through a push (a reorg too: no `hashblock` for the disconnect, as in Core); the second cuts the ZMQ connection (a TCP relay closed and opened again) and
 * shows polling taking over, the subscription coming back by itself, and every block
 * scanned exactly once.
 */
import test from 'ava';
import { waitFor, type TestKernel } from '@gw/kernel/testing';
import { ProviderPool, type PushedHead, type PushedTransaction } from '@gw/kernel';
import { BtcWatcher, btcDefinition } from '@gw/chain-btc';
import { verifyWebhook } from '@gw/webhook-verify';
import { Receiver, type TestProject } from '@gw/plugin-webhooks/testing';
import { Bcoin } from '@gw/testing';
import { startRegtestGateway, watcherScenario } from './scenario.js';
import { payAcrossPushOutage } from './push-outage.js';
import { TcpProxy } from './tcp-proxy.js';

interface Setup {
  node: Bcoin;
  gw: TestKernel;
  receiver: Receiver;
  project: TestProject;
}

/** A node with mature coins and segwit active, publishing ZMQ notifications. */
const fundedNode = (): Promise<Bcoin> => Bcoin.startMature({ zmq: true });

async function setup(node: Bcoin, zmqUrl: string, scanIntervalSeconds: number): Promise<Setup> {
  const receiver = await Receiver.start();
  const { gw, project } = await startRegtestGateway({
    chain: 'btc',
    network: 'regtest',
    coin: 'btc',
    provider: { name: 'bcoin', url: node.url, username: 'gateway', password: node.apiKey, zmqUrl },
    startHeight: (await node.height()) + 1,
    receiver,
    config: {
      'plugins.address-pool.targetFree': 10,
      'plugins.address-pool.hardCap': 10,
      'plugins.watchers.scanIntervalSeconds': scanIntervalSeconds,
      'plugins.watchers.maxBackoffSeconds': 2,
      'chains.testNetworks': { btc: 'regtest' },
    },
  });
  return { node, gw, receiver, project };
}

async function teardown(s: Partial<Setup>) {
  await s.gw?.close();
  await s.receiver?.close();
}

const metric = async (s: Setup, name: 'pushConnected' | 'pushReconnects' | 'pushHeads' | 'pushTransactions') =>
  (await s.gw.kernel.cradle.watchersMetrics[name].get()).values.find((v) => v.labels.chain === 'btc' && v.labels.network === 'regtest')?.value ?? 0;
const cursorHeight = async (s: Setup) =>
  Number((await s.gw.kernel.cradle.db('watchers_cursors').where({ chain: 'btc', network: 'regtest' }).first())?.height ?? -1);

test.serial(
  'subscribeCoreZmq on bcoin regtest, whose ZMQ messages the test`s launcher publishes in Core`s wire format (not Core itself): pushed block hashes are the node`s blocks, pushed transactions decode to its txids and output addresses',
  async (t) => {
    const node = await fundedNode();
    let unsubscribe: (() => void) | undefined;
    try {
      const watcher = new BtcWatcher(btcDefinition, {
        network: btcDefinition.networks.testnets.find((n) => n.id === 'regtest')!,
        providers: new ProviderPool({
          chain: 'btc',
          network: 'regtest',
          timeoutMs: 10_000,
          endpoints: [{ name: 'bcoin', kind: 'bitcoin-core', url: node.url, password: node.apiKey, zmqUrl: node.zmqUrl! }],
        }),
      });
      const heads: PushedHead[] = [];
      const txs: PushedTransaction[] = [];
      const connections: { connected: boolean; provider: string }[] = [];
      unsubscribe = watcher.subscribeHeads!({
        onHead: (head) => heads.push(head),
        onTransaction: (tx) => txs.push(tx),
        onConnection: ({ connected, provider }) => connections.push({ connected, provider }),
      });
      await waitFor(async () => connections.some((c) => c.connected), 20_000);
      t.deepEqual(connections, [{ connected: true, provider: 'bcoin' }]);
      // ZMQ subscriptions reach the publisher just after the handshake; a block mined at once could be missed.
      await new Promise((resolve) => setTimeout(resolve, 200));

      const to = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';
      const txid = await node.send(to, 1_000_000n);
      await waitFor(async () => txs.some((tx) => tx.txid === txid), 20_000);
      t.true(txs.find((tx) => tx.txid === txid)!.addresses!.includes(to), 'the paid address is among the decoded outputs');

      const mined = await node.mine(3);
      await waitFor(async () => mined.every((hash) => heads.some((h) => h.hash === hash)), 20_000);
      t.deepEqual(
        heads.slice(-3),
        mined.map((hash) => ({ hash })),
        'each block once, in order, named by its hash only',
      );
      t.true(txs.filter((tx) => tx.txid === txid).length >= 2, 'the transaction again as its block connects (Core sends rawtx for block transactions too)');
    } finally {
      unsubscribe?.();
      await node.stop();
    }
  },
);

test.serial(
  'bcoin with the launcher`s Core-format ZMQ (not Core itself), polling once an hour: the payment is detected through the pushed rawtx and paid through pushed hashblocks, with a signed webhook; a block`s pushed transactions are looked up in a batch; invalidateblock and a new branch revert it',
  async (t) => {
    const node = await fundedNode();
    let s: Setup | undefined;
    try {
      s = await setup(node, node.zmqUrl!, 3600);
      const ready = s;
      const { invoice, get, eventsOf } = watcherScenario(() => ready, 'btc', 'regtest');
      await waitFor(async () => (await metric(ready, 'pushConnected')) === 1, 20_000);
      // The loop's first pass (at start) is done; the next poll is an hour away.
      await waitFor(async () => (await cursorHeight(ready)) >= 0, 20_000);
      const polledTo = await cursorHeight(ready);

      const inv = await invoice({ coin: 'btc', amount_crypto: '0.25' });
      const txid = await node.send(inv.address, 25_000_000n);
      await waitFor(async () => (await get(inv.id)).status === 'detected', 20_000);
      t.true((await metric(ready, 'pushTransactions')) >= 1, 'the transaction was pushed');
      t.like((await get(inv.id)).transactions[0], { tx_hash: txid, status: 'pending' });

      const [paidIn] = await node.mine(inv.confirmation_threshold);
      await waitFor(async () => (await get(inv.id)).status === 'paid', 20_000);
      t.true((await metric(ready, 'pushHeads')) >= inv.confirmation_threshold, 'the blocks were pushed');
      t.true((await cursorHeight(ready)) > polledTo, 'scanned past the last polled height, without a poll');
      await waitFor(async () => eventsOf(inv.id).some((e) => e.event_type === 'invoice.paid'), 20_000);
      const paid = eventsOf(inv.id).find((e) => e.event_type === 'invoice.paid')!;
      t.true(verifyWebhook({ rawBody: paid.raw, header: paid.signature, secrets: [ready.project.secret] }).ok);
      t.is(eventsOf(inv.id).filter((e) => e.event_type === 'invoice.detected').length, 1);

      // A block's transactions are pushed as a burst (rawtx each): their addresses are looked up
      // together, not one lookup (two queries) per transaction competing for the pool.
      const watched = ready.gw.kernel.cradle.watchersRegistry.get('btc', 'regtest')!.watched;
      const lookup = watched.lookup.bind(watched);
      let pushLookups = 0;
      // The push's lookups take no transaction; the scanner's matching passes its own.
      watched.lookup = (addresses, db) => {
        if (db === undefined) pushLookups += 1;
        return lookup(addresses, db);
      };
      const stranger = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';
      const burst = 20;
      for (let i = 0; i < burst; i++) await node.send(stranger, 100_000n);
      // The sends' own pushes (and their lookups) settle before the block's burst is counted.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const sentPushed = await metric(ready, 'pushTransactions');
      pushLookups = 0;
      await node.mine(1);
      await waitFor(async () => (await metric(ready, 'pushTransactions')) >= sentPushed + burst + 1, 20_000);
      await waitFor(async () => (await cursorHeight(ready)) === (await node.height()), 20_000);
      await new Promise((resolve) => setTimeout(resolve, 300));
      t.true(pushLookups <= 2, `${burst + 1} pushed transactions of one block looked up in ${pushLookups} lookups`);

      // A reorg as Core announces it: nothing for the disconnected blocks but `rawtx` for their
      // transactions (the payment among them), then `hashblock` for each block of the new branch,
      // whose first starts the pass that finds the reorg. Still no poll.
      const headsBefore = await metric(ready, 'pushHeads');
      await node.rpc('invalidateblock', [paidIn]);
      // The payment's `rawtx` from the disconnected block starts a pass, which finds the tip below
      // the cursor (a provider behind, never a reorg) and backs off; the new branch's heads are
      // pushed during that backoff and must be scanned when it ends, not at the next poll.
      const failures = async () =>
        Number((await ready.gw.kernel.cradle.db('watchers_cursors').where({ chain: 'btc', network: 'regtest' }).first())?.consecutive_failures ?? 0);
      await waitFor(async () => (await failures()) >= 1, 20_000);
      await node.mine(inv.confirmation_threshold + 2);
      await waitFor(async () => (await get(inv.id)).status === 'reverted', 20_000);
      t.true((await metric(ready, 'pushHeads')) > headsBefore, 'the new branch was pushed');
      await waitFor(async () => eventsOf(inv.id).some((e) => e.event_type === 'invoice.reverted'), 20_000);
    } finally {
      await teardown(s ?? {});
      await node.stop();
    }
  },
);

test.serial(
  'a cut ZMQ connection (bcoin, the launcher`s Core-format ZMQ): polling takes over, the subscription comes back by itself, no block is skipped or counted twice',
  async (t) => {
    const node = await fundedNode();
    const proxy = await TcpProxy.start(Number(new URL(node.zmqUrl!).port));
    let s: Setup | undefined;
    try {
      s = await setup(node, proxy.tcpUrl, 1);
      const ready = s;
      const { invoice, get, eventsOf } = watcherScenario(() => ready, 'btc', 'regtest');
      const pay = async () => {
        const inv = await invoice({ coin: 'btc', amount_crypto: '0.1' });
        const txid = await node.send(inv.address, 10_000_000n);
        await waitFor(async () => (await get(inv.id)).status === 'detected', 30_000);
        await node.mine(1);
        return { inv, txid };
      };
      // The connection is cut, the node stays up: found by polling.
      const [before, during, after] = await payAcrossPushOutage(t, proxy, (name) => metric(ready, name), pay, 40_000);

      await node.mine(before.inv.confirmation_threshold);
      for (const { inv } of [before, during, after]) {
        await waitFor(async () => (await get(inv.id)).status === 'paid', 30_000);
        await waitFor(async () => eventsOf(inv.id).filter((e) => e.event_type === 'invoice.paid').length === 1, 20_000);
        t.is(eventsOf(inv.id).filter((e) => e.event_type === 'invoice.detected').length, 1, 'one invoice.detected per invoice');
      }
      // Every block from the first scanned one to the tip is stored once, with the node's hash.
      const tip = await node.height();
      await waitFor(async () => (await cursorHeight(ready)) === tip, 20_000);
      const blocks = (await ready.gw.kernel.cradle
        .db('watchers_blocks')
        .where({ chain: 'btc', network: 'regtest' })
        .orderBy('height')
        .select('height', 'hash')) as { height: string; hash: string }[];
      const first = Number(blocks[0]!.height);
      t.deepEqual(
        blocks.map((b) => Number(b.height)),
        Array.from({ length: tip - first + 1 }, (_, i) => first + i),
      );
      t.deepEqual(
        blocks.map((b) => b.hash),
        await Promise.all(blocks.map((b) => node.rpc<string>('getblockhash', [Number(b.height)]))),
      );
      const transfers = (await ready.gw.kernel.cradle.db('watchers_transfers').where({ chain: 'btc', network: 'regtest' }).select('tx_hash')) as {
        tx_hash: string;
      }[];
      t.deepEqual(transfers.map((r) => r.tx_hash).sort(), [before.txid, during.txid, after.txid].sort(), 'each payment recorded once');
    } finally {
      await teardown(s ?? {});
      await proxy.close();
      await node.stop();
    }
  },
);
