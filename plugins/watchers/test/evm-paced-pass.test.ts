/**
 * A network whose provider is paced (a `limit`, issue 40), against a real EVM node: anvil with
 * Sepolia's chain id, behind a JSON-RPC proxy (@gw/testing `RpcProxy`) that counts the calls of
 * each request and can hold a request (a pass caught in the middle). The provider is configured
 * with its own limit of 20 requests a second, so the budget paces it at 20 calls a second.
 *
 * - A JSON-RPC batch is weighed by its calls: no request carries more calls than the limit allows
 *   in a second (a scan of 20 blocks is split), and the budget counted every call the node got.
 * - A pass stops taking scans once it has run `pacedPassSeconds` (1 s here): it commits the blocks
 *   it read and reports itself behind; the next pass goes on from its cursor, and no block is
 *   skipped or read twice. Nothing is timed: the pace makes the catch-up of 100 blocks take
 *   longer than a second (at least 120 calls at 20 a second), so the first pass must stop short.
 * - An operator's decision waits a few seconds at most for a pass holding the network, then is
 *   refused with `network_scan_busy` (503), not left hanging until the pass ends.
 */
import test from 'ava';
import { CLI_ACTOR, newId } from '@gw/kernel';
import { waitFor, type TestKernel } from '@gw/kernel/testing';
import { parseEther } from 'ethers';
import { Receiver, type TestProject } from '@gw/plugin-webhooks/testing';
import { Anvil, RpcProxy, stopAll, type RpcCall } from '@gw/testing';
import type { ScanReport } from '../src/index.js';
import { anvilProject, ETH_SEPOLIA } from './anvil-kernel.js';
import { drivenByTests, startWatchersKernel, watcherScenario } from './scenario.js';

const LIMIT = 20;

let anvil: Anvil, proxy: RpcProxy, receiver: Receiver, gw: TestKernel, project: TestProject, payer: string;
/** Calls per request the node received through the proxy, in order. */
const requests: number[] = [];

test.before(async () => {
  anvil = await Anvil.start(ETH_SEPOLIA.chainId);
  proxy = await RpcProxy.start(anvil.url);
  proxy.hold = (calls: readonly RpcCall[]) => void requests.push(calls.length);
  receiver = await Receiver.start();
  gw = await startWatchersKernel(
    {
      eth: {
        sepolia: { providers: [{ name: 'paced', url: proxy.url, operator: 'keyed', limit: { requestsPerSecond: LIMIT } }], startHeight: 0 },
      },
    },
    { ...drivenByTests(10), 'plugins.watchers.publicProviders': false, 'plugins.watchers.pacedPassSeconds': 1 },
  );
  ({ project, payer } = await anvilProject(gw, anvil, receiver, { operator: 'watchers-paced', chain: 'eth', token: ETH_SEPOLIA.token }));
  // The job loop's first pass at start-up (the next one is an hour away): the passes after it are the tests'.
  await waitFor(async () => (await cursor()) !== undefined, 20_000, 'the start-up pass');
});
test.after.always(() => stopAll(gw, receiver, proxy, anvil));

const { invoice, get } = watcherScenario(() => ({ gw, project, receiver }), 'eth', 'sepolia');
const target = () => gw.kernel.cradle.watchersRegistry.get('eth', 'sepolia')!;
const cursor = async (): Promise<number | undefined> => {
  const row = await gw.kernel.cradle.db('watchers_cursors').where({ chain: 'eth', network: 'sepolia' }).first();
  return row === undefined ? undefined : Number(row.height);
};

test.serial('paced passes stop at their time cap and the next goes on from the cursor: every block read once, the payment found once', async (t) => {
  await anvil.mine(60);
  const inv = await invoice({ coin: 'eth', amount_crypto: '0.5' });
  const txHash = await anvil.sendEth(payer, inv.address, parseEther('0.5'));
  const paidAt = Number(BigInt((await anvil.receipt(txHash)).blockNumber));
  await anvil.mine(40);
  const head = await anvil.blockNumber();
  const scannedTo = (await cursor())!;

  const reports: ScanReport[] = [];
  for (let pass = 0; pass < 50; pass++) {
    const report = await gw.kernel.cradle.watchersScanner.pass(target());
    t.is(report.error, undefined);
    t.true(report.ran);
    reports.push(report);
    if (!report.behind) break;
  }
  t.true(reports.length > 1, `the catch-up took ${reports.length} passes`);
  t.true(reports[0]!.to! < head, `the first pass stopped at its time cap: block ${reports[0]!.to} of ${head}`);
  t.is(reports[0]!.from, scannedTo + 1);
  for (let i = 1; i < reports.length; i++) t.is(reports[i]!.from, reports[i - 1]!.to! + 1, `pass ${i + 1} goes on where pass ${i} stopped`);
  t.is(reports.at(-1)!.to, head);
  t.is(
    reports.reduce((sum, r) => sum + r.transfers, 0),
    1,
    'the payment was recorded once',
  );

  const heights = (await gw.kernel.cradle.db('watchers_blocks').where({ chain: 'eth', network: 'sepolia' }).orderBy('height').pluck('height')).map(Number);
  t.deepEqual(
    heights,
    Array.from({ length: head + 1 }, (_, i) => i),
    'every block from 0 to the head stored, none skipped',
  );
  const paid = await get(inv.id);
  t.is(paid.status, 'paid');
  t.is(paid.transactions.length, 1);
  t.like(paid.transactions[0], { tx_hash: txHash, block_height: paidAt, amount_units: '500000000000000000' });

  // Weighed by calls: no request carried more than the limit's calls, a scan of 20 blocks (22 calls with the token logs and
  // the chain id) goes in two requests, and every call was counted.
  t.true(
    requests.every((calls) => calls <= LIMIT),
    `calls per request: ${requests.join(', ')}`,
  );
  const before = requests.length;
  t.is((await target().watcher.scan(1, 20, target().watched)).length, 20);
  t.deepEqual(requests.slice(before), [LIMIT, 22 - LIMIT]);
  const [usage] = (await gw.kernel.cradle.watchersProviderUsage.list()).filter((u) => u.provider === 'paced');
  t.is(usage!.scope, 'eth/sepolia/paced', "a configured provider's budget is its own");
  t.is(
    usage!.today,
    requests.reduce((sum, calls) => sum + calls, 0),
    'the budget counted every call the node received',
  );
});

test.serial('a decision waits a few seconds at most for a pass that holds the network, then is refused as network_scan_busy', async (t) => {
  // A transfer to decide on: the one the first test recorded, under a disagreement ripe for a decision.
  const transfer = await gw.kernel.cradle.db('watchers_transfers').where({ chain: 'eth', network: 'sepolia' }).first();
  const id = newId();
  await gw.kernel.cradle.db('watchers_disagreements').insert({
    id,
    chain: 'eth',
    network: 'sepolia',
    transfer_id: transfer.id,
    project_id: project.projectId,
    invoice_id: transfer.invoice_id,
    coin: transfer.coin,
    tx_hash: transfer.tx_hash,
    output_index: transfer.output_index,
    to_address: transfer.to_address,
    amount_units: transfer.amount_units,
    kind: 'contradiction',
    block_height: transfer.block_height,
    block_hash: transfer.block_hash,
    reported_by: ['paced'],
    denied_by: ['other'],
    decide_after: gw.kernel.cradle.db.raw(`now() - interval '1 minute'`),
    next_check_at: gw.kernel.cradle.db.raw('now()'),
  });

  // A pass caught in the middle: its first request to the provider is held, with the network's lock taken.
  await anvil.mine(1);
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let reached!: () => void;
  const inPass = new Promise<void>((resolve) => (reached = resolve));
  proxy.hold = async () => {
    reached();
    await held;
  };
  const pass = gw.kernel.cradle.watchersScanner.pass(target());
  await inPass;
  const busy = await t.throwsAsync(gw.kernel.cradle.watchersDisagreements.decide(id, 'accept', CLI_ACTOR, 'seen in the block explorer'));
  t.like(busy, { code: 'network_scan_busy', status: 503 });
  t.regex(busy!.message, /A scan pass of eth sepolia holds the network/);
  t.is((await gw.kernel.cradle.watchersDisagreements.get(id)).status, 'open', 'nothing was decided');

  proxy.hold = undefined;
  release();
  t.is((await pass).error, undefined);
  const decided = await gw.kernel.cradle.watchersDisagreements.decide(id, 'accept', CLI_ACTOR, 'seen in the block explorer');
  t.is(decided.status, 'accepted', 'once the pass has ended, the decision goes through');
});
