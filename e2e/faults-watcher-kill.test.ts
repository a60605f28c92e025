import test from 'ava';
import { CLI_ACTOR } from '@gw/kernel';
import pg from 'pg';
import { createTestDatabase, startTestKernel, waitFor, type TestDatabase } from '@gw/kernel/testing';
import { chains, plugins } from '@gw/app-gateway';
import { projectWithPools, Anvil, blockParam, RpcProxy, startApp, type AppProcess } from '@gw/testing';

/**
 * Fault: a worker killed with SIGKILL in the middle of a watcher pass: the pass has scanned and
 * matched its first blocks (payments detected inside its transaction) and waits on the provider for
 * the next ones. The next pass, on another worker instance, neither skips a block nor counts one twice.
 */

const RATES = { ETH: '3000' };
const PAYMENTS = 3;
/** 0.05 ETH in wei, each invoice's amount. */
const WEI_005 = 50_000_000_000_000_000n;
let database: TestDatabase;
let anvil: Anvil;
let proxy: RpcProxy;
test.before(async () => {
  database = await createTestDatabase();
  anvil = await Anvil.start(11155111);
  proxy = await RpcProxy.start(anvil.url);
});
test.after.always(async () => {
  await proxy?.close();
  await anvil?.stop();
  await database?.drop();
});

test.serial('a worker killed mid-pass: the next pass on another instance neither skips nor double-counts a block', async (t) => {
  // Invoices made in-process (no watcher there), paid later on the node.
  const setup = await startTestKernel({
    plugins,
    chains,
    role: 'cli',
    database,
    config: { 'plugins.rates.providers': ['fixed'], 'plugins.rates.fixed': RATES, 'plugins.address-pool.targetFree': 10 },
  });
  const invoices: { id: string; address: string; confirmation_threshold: number }[] = [];
  try {
    const operator = await setup.kernel.cradle.tenancyOperators.create('watcher-kill', CLI_ACTOR);
    const project = await projectWithPools(setup, operator.id, ['eth'], 'testnet');
    const principal = (await setup.kernel.cradle.tenancyProjects.principal(project.projectId))!;
    for (let i = 0; i < PAYMENTS * 2; i++) {
      const { invoice } = await setup.kernel.cradle.invoicesService.create(principal, { external_id: `w-${i}`, amount_crypto: '0.05', coin: 'eth' }, CLI_ACTOR);
      invoices.push(invoice as never);
    }
  } finally {
    await setup.close();
  }
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  t.teardown(() => client.end());
  const statuses = async (list: readonly { id: string }[]) => {
    const rows = (await client.query('select id, status from invoices_invoices where id = any($1::text[])', [list.map((i) => i.id)])).rows as {
      id: string;
      status: string;
    }[];
    return list.map((i) => rows.find((r) => r.id === i.id)!.status);
  };
  const cursor = async () =>
    Number((await client.query(`select height from watchers_cursors where chain = 'eth' and network = 'sepolia'`)).rows[0]?.height ?? -1);

  const env = {
    DATABASE_URL: database.url,
    GW_MASTER_KEY: '0f'.repeat(32),
    LOG_LEVEL: 'warn',
    GW__plugins__rates__providers: '["fixed"]',
    GW__plugins__rates__fixed: JSON.stringify(RATES),
    GW__plugins__watchers__chains: JSON.stringify({ eth: { sepolia: { providers: [{ name: 'proxy', url: proxy.url }], startHeight: 0 } } }),
    GW__plugins__watchers__scanIntervalSeconds: '1',
    GW__jobs__superviseIntervalSeconds: '1',
  };
  const workers: AppProcess[] = [];
  t.teardown(() => workers.forEach((w) => w.child.exitCode === null && w.child.kill('SIGKILL')));
  const payer = (await anvil.accounts())[0]!;

  // Worker A follows the chain; the first payments are detected and committed.
  const a = startApp('worker', env);
  workers.push(a);
  const [first, second] = [invoices.slice(0, PAYMENTS), invoices.slice(PAYMENTS)];
  for (const inv of first) await anvil.sendEth(payer, inv.address, WEI_005);
  await waitFor(
    async () => (await cursor()) === (await anvil.blockNumber()) && (await statuses(first)).every((s) => s === 'detected'),
    30_000,
    `worker A detects the first payments: ${a.output().slice(-2000)}`,
  );

  // The next payments and 25 blocks appear at once: A's pass scans the first 20 (matching the
  // payments inside its transaction) and is held at the provider for the rest; then it is killed.
  const before = await cursor();
  let reached!: () => void;
  const atHold = new Promise<void>((resolve) => (reached = resolve));
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  proxy.hold = async (calls) => {
    if (calls.some((c) => c.params[1] === true && blockParam(c) === before + 21)) {
      reached();
      await gate;
    }
  };
  await anvil.pauseMining();
  for (const inv of second) await anvil.sendEth(payer, inv.address, WEI_005);
  await anvil.mine(25);
  await anvil.resumeMining();
  await atHold;
  a.child.kill('SIGKILL');
  await a.exited;
  proxy.hold = undefined;
  release();
  t.is(await cursor(), before, 'the killed pass committed nothing: the cursor is where it was');
  t.deepEqual(
    await statuses(second),
    second.map(() => 'pending'),
    'the payments it had matched were never committed',
  );

  // Worker B, another instance, takes over; then the payments confirm.
  const killedAt = Date.now();
  const b = startApp('worker', env);
  workers.push(b);
  await waitFor(
    async () => (await cursor()) === (await anvil.blockNumber()),
    45_000,
    `worker B catches up once the dead pass's heartbeat stops: ${b.output().slice(-2000)}`,
  );
  t.log(`worker B caught up ${((Date.now() - killedAt) / 1000).toFixed(1)} s after the kill (heartbeat 10 s, supervision every 1 s here, 60 s by default)`);
  await anvil.mine(Math.max(...invoices.map((i) => i.confirmation_threshold)));
  await waitFor(async () => (await statuses(invoices)).every((s) => s === 'paid'), 30_000, `every invoice paid: ${b.output().slice(-2000)}`);

  // Each payment counted once; the stored blocks unbroken up to the tip; one detected and one paid event each.
  for (const inv of invoices) {
    const transfers = (await client.query('select status from watchers_transfers where invoice_id = $1', [inv.id])).rows;
    t.is(transfers.length, 1, `${inv.id}: one transfer`);
    const events = (await client.query('select event_type from webhooks_events where invoice_id = $1 order by id', [inv.id])).rows.map((r) => r.event_type);
    t.deepEqual(events, ['invoice.detected', 'invoice.paid']);
  }
  const blocks = (
    await client.query(`select height::int as height, hash, parent_hash from watchers_blocks where chain = 'eth' and network = 'sepolia' order by height`)
  ).rows as { height: number; hash: string; parent_hash: string }[];
  t.is(blocks.at(-1)!.height, await cursor());
  t.true(
    blocks.every((row, i) => i === 0 || (row.height === blocks[i - 1]!.height + 1 && row.parent_hash === blocks[i - 1]!.hash)),
    'no block skipped',
  );
  t.is(blocks.length, blocks.at(-1)!.height - blocks[0]!.height + 1);

  b.child.kill('SIGTERM');
  t.is(await b.exited, 0, b.output().slice(-2000));
});
