/**
 * Detection by push on a real EVM node: anvil serves `eth_subscribe("newHeads")` on its WebSocket.
 * The first test polls once an hour, so a payment found at all was found through the pushed head;
 * the second drops the WebSocket (a TCP relay that is closed and reopened) and shows polling
 * taking over, the subscription coming back by itself, and every block scanned exactly once; the
 * last restarts the node itself (anvil's `--state` keeps its chain): passes fail and say so while
 * it is down, and push and polling come back by themselves.
 */
import test, { type ExecutionContext } from 'ava';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, signedFetch, waitFor, type TestKernel } from '@gw/kernel/testing';
import { CLI_ACTOR, type PushedHead } from '@gw/kernel';
import { parseEther } from 'ethers';
import { FAST_RETRIES, projectWithPools, Receiver, type TestProject } from '@gw/plugin-webhooks/testing';
import { Anvil } from '@gw/testing';
import { startAnvilKernel } from './anvil-kernel.js';
import { startWatchersKernel } from './scenario.js';
import { payAcrossPushOutage } from './push-outage.js';
import { TcpProxy } from './tcp-proxy.js';

interface Setup {
  anvil: Anvil;
  gw: TestKernel;
  receiver: Receiver;
  project: TestProject;
  payer: string;
}

async function setup(anvil: Anvil, wsUrl: string, scanIntervalSeconds: number, providers = [{ name: 'anvil', url: anvil.url, wsUrl }]): Promise<Setup> {
  const receiver = await Receiver.start();
  const gw = await startAnvilKernel(anvil, {
    'plugins.address-pool.targetFree': 10,
    'plugins.webhooks.allowPrivateTargets': true,
    ...FAST_RETRIES,
    'plugins.watchers.chains': { eth: { sepolia: { providers, startHeight: 0 } } },
    'plugins.watchers.scanIntervalSeconds': scanIntervalSeconds,
  });
  const operatorId = (await gw.kernel.cradle.tenancyOperators.create('watchers-push', CLI_ACTOR)).id;
  const project = await projectWithPools(gw, operatorId, ['eth'], 'testnet');
  await gw.kernel.cradle.tenancyProjects.setWebhookUrl(project.projectId, `${receiver.url}/hooks`, CLI_ACTOR);
  return { anvil, gw, receiver, project, payer: (await anvil.accounts())[0]! };
}

const metric = async (s: Setup, name: 'pushConnected' | 'pushReconnects' | 'pushHeads') =>
  (await s.gw.kernel.cradle.watchersMetrics[name].get()).values.find((v) => v.labels.chain === 'eth' && v.labels.network === 'sepolia')?.value ?? 0;
const scanFailures = async (s: Setup) =>
  (await s.gw.kernel.cradle.watchersMetrics.scanFailures.get()).values
    .filter((v) => v.labels.chain === 'eth' && v.labels.network === 'sepolia')
    .reduce((n, v) => n + v.value, 0);
const cursor = (s: Setup) => s.gw.kernel.cradle.db('watchers_cursors').where({ chain: 'eth', network: 'sepolia' }).first();
async function invoice(s: Setup) {
  const created = await signedFetch(s.gw.url, '/api/v1/invoices', {
    ...s.project,
    method: 'POST',
    body: { external_id: `push-${Math.random().toString(36).slice(2)}`, coin: 'eth', amount_crypto: '0.1' },
  });
  if (created.status !== 201) throw new Error(JSON.stringify(created.body));
  return created.body as { id: string; address: string; confirmation_threshold: number };
}
const status = async (s: Setup, id: string) => ((await signedFetch(s.gw.url, `/api/v1/invoices/${id}`, s.project)).body as { status: string }).status;
const events = (s: Setup, id: string, type: string) =>
  s.receiver.requests.filter((r) => {
    const body = JSON.parse(r.body) as { event_type: string; data?: { invoice_id?: string } };
    return body.event_type === type && body.data?.invoice_id === id;
  });
/** Pays a fresh invoice of `s` from anvil and waits until it is `detected`. */
async function payDetected(
  s: Setup,
  anvil: Anvil,
  timeoutMs: number,
): Promise<{ inv: { id: string; address: string; confirmation_threshold: number }; txHash: string }> {
  const inv = await invoice(s);
  const txHash = await anvil.sendEth(s.payer, inv.address, parseEther('0.1'));
  await waitFor(async () => (await status(s, inv.id)) === 'detected', timeoutMs);
  return { inv, txHash };
}

/**
 * After the threshold's blocks: every payment's invoice is `paid` with one `invoice.detected` and
 * one `invoice.paid`, every block from the first scanned one to the tip is stored once with the
 * node's hash, and each payment is recorded once.
 */
async function settledOnce(
  t: ExecutionContext,
  s: Setup,
  anvil: Anvil,
  payments: readonly { inv: { id: string; confirmation_threshold: number }; txHash: string }[],
  paidTimeoutMs: number,
): Promise<void> {
  await anvil.mine(payments[0]!.inv.confirmation_threshold);
  for (const { inv } of payments) {
    await waitFor(async () => (await status(s, inv.id)) === 'paid', paidTimeoutMs);
    await waitFor(async () => events(s, inv.id, 'invoice.paid').length === 1, 20_000);
    t.is(events(s, inv.id, 'invoice.detected').length, 1, 'one invoice.detected per invoice');
  }
  const tip = await anvil.blockNumber();
  await waitFor(async () => Number((await cursor(s)).height) === tip, 20_000);
  const blocks = (await s.gw.kernel.cradle.db('watchers_blocks').where({ chain: 'eth', network: 'sepolia' }).orderBy('height').select('height', 'hash')) as {
    height: string;
    hash: string;
  }[];
  const first = Number(blocks[0]!.height);
  t.deepEqual(
    blocks.map((b) => Number(b.height)),
    Array.from({ length: tip - first + 1 }, (_, i) => first + i),
  );
  const hashes = await anvil.rpcBatch<{ hash: string }>(blocks.map((b) => ['eth_getBlockByNumber', [`0x${Number(b.height).toString(16)}`, false]] as const));
  t.deepEqual(
    blocks.map((b) => b.hash),
    hashes.map((h) => h.hash),
  );
  const transfers = (await s.gw.kernel.cradle.db('watchers_transfers').where({ chain: 'eth', network: 'sepolia' }).select('tx_hash')) as { tx_hash: string }[];
  t.deepEqual(transfers.map((r) => r.tx_hash).sort(), payments.map((p) => p.txHash).sort(), 'each payment recorded once');
}

async function teardown(s: Partial<Setup>) {
  await s.gw?.close();
  await s.receiver?.close();
}

test.serial('with polling once an hour, a payment is detected and paid through pushed heads', async (t) => {
  const anvil = await Anvil.start(11155111);
  let s: Setup | undefined;
  try {
    s = await setup(anvil, anvil.url.replace('http://', 'ws://'), 3600);
    const ready = s;
    await waitFor(async () => (await metric(ready, 'pushConnected')) === 1, 20_000);
    // The loop's first pass (at start) is done; the next poll is an hour away.
    await waitFor(async () => (await cursor(ready)) !== undefined, 20_000);
    const polledAt = Number((await cursor(ready)).height);
    const heads = await metric(ready, 'pushHeads');

    const inv = await invoice(ready);
    const txHash = await anvil.sendEth(ready.payer, inv.address, parseEther('0.1'));
    await waitFor(async () => (await status(ready, inv.id)) === 'detected', 20_000);
    t.true((await metric(ready, 'pushHeads')) > heads, 'the block was pushed');
    const block = Number(BigInt((await anvil.receipt(txHash)).blockNumber));
    t.true(block > polledAt, 'the payment came after the last polled pass');

    await anvil.mine(inv.confirmation_threshold - 1);
    await waitFor(async () => (await status(ready, inv.id)) === 'paid', 20_000);
    await waitFor(async () => events(ready, inv.id, 'invoice.paid').length === 1, 20_000);
    t.is(events(ready, inv.id, 'invoice.detected').length, 1);
    t.is(Number((await cursor(ready)).height), await anvil.blockNumber());
  } finally {
    await teardown(s ?? {});
    await anvil.stop();
  }
});

test.serial('a dropped WebSocket: polling takes over, the subscription comes back by itself, no block is skipped or counted twice', async (t) => {
  const anvil = await Anvil.start(11155111);
  const proxy = await TcpProxy.start(Number(new URL(anvil.url).port));
  let s: Setup | undefined;
  try {
    s = await setup(anvil, proxy.wsUrl, 1);
    const ready = s;
    const payments = await payAcrossPushOutage(
      t,
      proxy,
      (name) => metric(ready, name),
      () => payDetected(ready, anvil, 20_000),
      30_000,
    );
    await settledOnce(t, ready, anvil, payments, 20_000);
  } finally {
    await teardown(s ?? {});
    await proxy.close();
    await anvil.stop();
  }
});

test.serial('subscribeHeads: a refused WebSocket hands over to the next provider, whose heads are the node`s blocks', async (t) => {
  const anvil = await Anvil.start(11155111);
  const ws = anvil.url.replace('http://', 'ws://');
  let s: Setup | undefined;
  let unsubscribe: (() => void) | undefined;
  try {
    const dead = `ws://127.0.0.1:${await freePort()}`;
    s = await setup(anvil, ws, 3600, [
      { name: 'dead', url: anvil.url, wsUrl: dead },
      { name: 'anvil', url: anvil.url, wsUrl: ws },
    ]);
    const connections: { connected: boolean; provider: string }[] = [];
    const heads: PushedHead[] = [];
    unsubscribe = s.gw.kernel.cradle.watchersRegistry.get('eth', 'sepolia')!.watcher.subscribeHeads!({
      onHead: (head) => heads.push(head),
      onConnection: ({ connected, provider }) => connections.push({ connected, provider }),
    });
    await waitFor(async () => connections.some((c) => c.connected), 20_000);
    t.deepEqual(connections.slice(0, 2), [
      { connected: false, provider: 'dead' },
      { connected: true, provider: 'anvil' },
    ]);
    const from = await anvil.blockNumber();
    await anvil.mine(3);
    await waitFor(async () => heads.filter((h) => (h.height ?? -1) > from).length === 3, 20_000);
    const mined = heads.filter((h) => (h.height ?? -1) > from);
    const blocks = await anvil.rpcBatch<{ hash: string; number: string }>(
      [1, 2, 3].map((i) => ['eth_getBlockByNumber', [`0x${(from + i).toString(16)}`, false]] as const),
    );
    t.deepEqual(
      mined,
      blocks.map((b) => ({ height: Number(BigInt(b.number)), hash: b.hash })),
    );
    // The plugin's own subscription went the same way.
    const ready = s;
    await waitFor(async () => (await metric(ready, 'pushConnected')) === 1, 20_000);
  } finally {
    unsubscribe?.();
    await teardown(s ?? {});
    await anvil.stop();
  }
});

test.serial('two instances both subscribed: each pushed block is scanned once, each payment counted and announced once', async (t) => {
  const anvil = await Anvil.start(11155111);
  const ws = anvil.url.replace('http://', 'ws://');
  let s: Setup | undefined;
  let second: TestKernel | undefined;
  try {
    s = await setup(anvil, ws, 3600);
    const ready = s;
    second = await startWatchersKernel(
      { eth: { sepolia: { providers: [{ name: 'anvil', url: anvil.url, wsUrl: ws }], startHeight: 0 } } },
      { 'plugins.webhooks.allowPrivateTargets': true, ...FAST_RETRIES, 'plugins.watchers.scanIntervalSeconds': 3600 },
      { role: 'worker', database: ready.gw.database },
    );
    const other = second;
    const connected = async (gw: TestKernel) => (await gw.kernel.cradle.watchersMetrics.pushConnected.get()).values.some((v) => v.value === 1);
    await waitFor(async () => (await connected(ready.gw)) && (await connected(other)), 20_000);
    await waitFor(async () => (await cursor(ready)) !== undefined, 20_000);

    const paid = [];
    for (let i = 0; i < 5; i += 1) {
      const inv = await invoice(ready);
      paid.push({ inv, txHash: await anvil.sendEth(ready.payer, inv.address, parseEther('0.1')) });
    }
    for (const { inv } of paid) await waitFor(async () => (await status(ready, inv.id)) === 'detected', 20_000);
    await anvil.mine(paid[0]!.inv.confirmation_threshold);
    for (const { inv } of paid) {
      await waitFor(async () => (await status(ready, inv.id)) === 'paid', 20_000);
      await waitFor(async () => events(ready, inv.id, 'invoice.paid').length === 1, 20_000);
      t.is(events(ready, inv.id, 'invoice.detected').length, 1);
    }
    const heads = async (gw: TestKernel) => (await gw.kernel.cradle.watchersMetrics.pushHeads.get()).values.reduce((n, v) => n + v.value, 0);
    t.true((await heads(ready.gw)) > 0 && (await heads(other)) > 0, 'both instances heard the heads');
    const transfers = (await ready.gw.kernel.cradle.db('watchers_transfers').where({ chain: 'eth', network: 'sepolia' }).select('tx_hash')) as {
      tx_hash: string;
    }[];
    t.deepEqual(transfers.map((r) => r.tx_hash).sort(), paid.map((p) => p.txHash).sort());
    t.is(Number((await cursor(ready)).height), await anvil.blockNumber());
  } finally {
    await second?.close();
    await teardown(s ?? {});
    await anvil.stop();
  }
});

test.serial(
  'the node itself restarts (same chain, port down meanwhile): passes fail and say so, push and polling come back by themselves, no block is skipped or counted twice',
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-anvil-state-'));
    const anvil = await Anvil.start(11155111, { stateFile: join(dir, 'state.json') });
    let s: Setup | undefined;
    try {
      s = await setup(anvil, anvil.url.replace('http://', 'ws://'), 1);
      const ready = s;
      await waitFor(async () => (await metric(ready, 'pushConnected')) === 1, 20_000);
      const pay = () => payDetected(ready, anvil, 30_000);
      const before = await pay();
      await anvil.mine(2);
      const tipBefore = await anvil.blockNumber();
      await waitFor(async () => Number((await cursor(ready)).height) === tipBefore, 20_000);

      // Down for 3 s: the WebSocket drops and the polled passes fail against a closed port.
      const failuresBefore = await scanFailures(ready);
      await anvil.restart(3000);
      t.is(await anvil.blockNumber(), tipBefore, 'the node came back with its chain');
      t.true((await scanFailures(ready)) > failuresBefore, 'the failed passes were counted');
      t.truthy((await cursor(ready)).last_error, 'and the cursor says why');
      await waitFor(async () => (await metric(ready, 'pushConnected')) === 1, 40_000);
      t.true((await metric(ready, 'pushReconnects')) >= 1, 'the push subscription came back by itself');
      await waitFor(async () => Number((await cursor(ready)).consecutive_failures) === 0, 40_000);

      const after = await pay();
      await settledOnce(t, ready, anvil, [before, after], 30_000);
    } finally {
      await teardown(s ?? {});
      await anvil.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
