/**
 * Issue 33, finding 11 (dust floods) against a real EVM node (anvil, Sepolia's chain id) and the
 * real watcher pipeline: many small payments in one scan pass announce one `invoice.partial`;
 * transfers below ETH's dust floor are recorded and never change an invoice; a webhook body after
 * many payments carries the latest 20 transactions, their total and a link to the full list, which
 * a signed GET pages through.
 */
import test from 'ava';
import { CLI_ACTOR } from '@gw/kernel';
import { signedFetch, type TestKernel } from '@gw/kernel/testing';
import { parseEther } from 'ethers';
import type { Receiver, TestProject } from '@gw/plugin-webhooks/testing';
import { stopAll, type Anvil } from '@gw/testing';
import { ETH_SEPOLIA, sepoliaWithMempool, startAnvilGateway, unminedSepoliaTransfer } from './anvil-kernel.js';
import { drivenByTests, watcherScenario } from './scenario.js';

let anvil: Anvil, gw: TestKernel, receiver: Receiver, project: TestProject, payer: string;

test.before(async () => {
  ({ anvil, gw, receiver, project, payer } = await startAnvilGateway('watchers-dust', ETH_SEPOLIA, drivenByTests(10)));
  // Above the flood's length: its payments are all seen, none settles, in the first pass.
  await threshold(40);
});
test.after.always(() => stopAll(gw, receiver, anvil));

const { scan, invoice, get } = watcherScenario(() => ({ gw, project, receiver }), 'eth', 'sepolia');

/** The confirmation threshold of the project's ETH invoices created from now on. */
async function threshold(confirmations: number): Promise<void> {
  await gw.kernel.cradle.invoicesPolicies.set(project.projectId, { confirmations: { eth: confirmations } }, CLI_ACTOR);
}

/** The events the invoice's changes put in the outbox (committed with them: no waiting for delivery), oldest first. */
async function outbox(invoiceId: string): Promise<{ type: string; body: string; data: any }[]> {
  const rows = await gw.kernel.cradle.db('webhooks_events').where({ invoice_id: invoiceId }).orderBy('id');
  return rows.map((r: { event_type: string; body: string }) => ({ type: r.event_type, body: r.body, data: JSON.parse(r.body).data }));
}

const PAYMENTS = 25;
const SMALL = parseEther('0.001');
let flooded: { id: string; address: string; confirmation_threshold: number };
const floodHashes: string[] = [];

test.serial(
  'many small payments in one scan pass: one invoice.partial, with the totals after the last; a body carries the latest 20 transactions, their count and the link',
  async (t) => {
    flooded = await invoice({ coin: 'eth', amount_crypto: '1' });
    // Anvil mines each transfer in a block of its own: one pass scans all of them.
    for (let i = 0; i < PAYMENTS; i++) floodHashes.push(await anvil.sendEth(payer, flooded.address, SMALL));
    await scan();
    const events = await outbox(flooded.id);
    t.deepEqual(
      events.map((e) => e.type),
      ['invoice.detected', 'invoice.partial'],
    );
    const partial = events[1]!;
    t.is(partial.data.paid_units, (SMALL * BigInt(PAYMENTS)).toString(), 'the totals after the last payment of the pass');
    t.is(partial.data.tx_hash, floodHashes.at(-1));

    const view = partial.data.invoice;
    t.is(view.transactions.length, 20);
    t.is(view.transactions_total, PAYMENTS);
    t.deepEqual(
      view.transactions.map((tx: { tx_hash: string }) => tx.tx_hash),
      floodHashes.slice(-20),
      'the latest 20, in detection order',
    );
    const { baseUrl } = gw.kernel.cradle.invoicesCheckoutLinks;
    t.is(view.transactions_url, `${baseUrl}/api/v1/invoices/${flooded.id}/transactions`);

    // The REST view is bounded the same way.
    const rest = await get(flooded.id);
    t.is(rest.transactions.length, 20);
    t.is(rest.transactions_total, PAYMENTS);
    t.is(rest.transactions_url, view.transactions_url);
  },
);

test.serial('the link lists every transaction, signed and cursor-paginated; another project gets 404', async (t) => {
  const path = new URL(`${gw.kernel.cradle.invoicesCheckoutLinks.baseUrl}/api/v1/invoices/${flooded.id}/transactions`).pathname;
  const seen: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await signedFetch(gw.url, `${path}?limit=10${cursor ? `&cursor=${cursor}` : ''}`, project);
    t.is(page.status, 200, JSON.stringify(page.body));
    pages++;
    seen.push(...page.body.items.map((tx: { tx_hash: string }) => tx.tx_hash));
    cursor = page.body.next_cursor;
  } while (cursor);
  t.is(pages, 3);
  t.deepEqual(seen, floodHashes);
  const unsigned = await fetch(new URL(path, gw.url));
  t.is(unsigned.status, 401);
  const other = await signedFetch(gw.url, `/api/v1/invoices/01ARZ3NDEKTSV4RRFFQ69G5FAV/transactions`, project);
  t.is(other.status, 404);
  t.is(other.body.error_code, 'invoice_not_found');
});

test.serial('the settlement after a flood: invoice.partial with a bounded body', async (t) => {
  await anvil.mine(flooded.confirmation_threshold);
  await scan();
  const settled = (await outbox(flooded.id)).at(-1)!;
  t.is(settled.type, 'invoice.partial');
  t.is(settled.data.status, 'partial');
  t.is(settled.data.invoice.transactions.length, 20);
  t.is(settled.data.invoice.transactions_total, PAYMENTS);
  t.true(Buffer.byteLength(settled.body) < 32 * 1024, `body of ${Buffer.byteLength(settled.body)} bytes`);
});

test.serial('payments that settle one after another in one pass: one invoice.partial, for the last settlement', async (t) => {
  await threshold(2);
  const inv = await invoice({ coin: 'eth', amount_crypto: '1' });
  await threshold(40);
  // Six blocks: at the pass the first five have the threshold's 2 confirmations, each settling the invoice short in turn.
  for (let i = 0; i < 6; i++) await anvil.sendEth(payer, inv.address, SMALL);
  await scan();
  const events = await outbox(inv.id);
  t.deepEqual(
    events.map((e) => e.type),
    ['invoice.detected', 'invoice.partial'],
  );
  t.like(events[1]!.data, { status: 'partial', paid_units: (SMALL * 5n).toString() });
  t.is((await get(inv.id)).status, 'partial');
});

test.serial('a top-up that settles a partial invoice still short is announced once; later blocks with no new money announce nothing', async (t) => {
  await threshold(2);
  const inv = await invoice({ coin: 'eth', amount_crypto: '1' });
  await threshold(40);
  await anvil.sendEth(payer, inv.address, SMALL);
  await anvil.mine(inv.confirmation_threshold);
  await scan();
  t.is((await get(inv.id)).status, 'partial');
  const topUp = await anvil.sendEth(payer, inv.address, SMALL);
  await scan();
  t.deepEqual(
    (await outbox(inv.id)).map((e) => e.type),
    ['invoice.detected', 'invoice.partial'],
    'a top-up below the threshold sends nothing',
  );
  await anvil.mine(1);
  await scan();
  const settled = (await outbox(inv.id)).at(-1)!;
  t.is(settled.type, 'invoice.partial');
  t.like(settled.data, { status: 'partial', paid_units: (SMALL * 2n).toString() });
  // partial → partial: the settlement counted the top-up, so the next blocks have nothing to settle.
  for (let pass = 0; pass < 3; pass++) {
    await anvil.mine(1);
    await scan();
  }
  t.deepEqual(
    (await outbox(inv.id)).map((e) => e.type),
    ['invoice.detected', 'invoice.partial', 'invoice.partial'],
    'no invoice.partial for money already announced',
  );
  const view = await get(inv.id);
  t.is(view.status, 'partial');
  t.deepEqual(
    view.transactions.map((tx: { tx_hash: string; status: string }) => [tx.tx_hash, tx.status]).filter(([hash]: string[]) => hash === topUp),
    [[topUp, 'confirmed']],
    'the top-up is counted',
  );
  const tracked = await gw.kernel.cradle.db('watchers_transfers').where({ to_address: inv.address }).whereNull('final_at');
  t.deepEqual(tracked, [], 'the watcher stops counting confirmations of settled transfers');
});

test.serial('a pass announces an invoice once across its block step and its mempool step', async (t) => {
  const inv = await invoice({ coin: 'eth', amount_crypto: '1' });
  await anvil.sendEth(payer, inv.address, SMALL);
  await anvil.sendEth(payer, inv.address, SMALL);
  const unmined = unminedSepoliaTransfer(`0x${'e'.repeat(64)}`, inv.address, SMALL);
  const target = sepoliaWithMempool(gw, async () => [unmined]);
  for (;;) {
    const report = await gw.kernel.cradle.watchersScanner.pass(target);
    if (report.error) throw new Error(report.error);
    if (report.ran) {
      t.is(report.mempool?.transfers, 1);
      break;
    }
  }
  t.is((await get(inv.id)).transactions_total, 3);
  t.deepEqual(
    (await outbox(inv.id)).map((e) => e.type),
    ['invoice.detected', 'invoice.partial'],
  );
});

test.serial('transfers below the dust floor are recorded and never change an invoice, not even one otherwise exactly paid', async (t) => {
  const { db, invoicesLifecycle } = gw.kernel.cradle;
  const floor = invoicesLifecycle.dustFloor('eth', 'eth');
  t.is(floor, 10n ** 12n);
  const inv = await invoice({ coin: 'eth', amount_crypto: '0.5', matching_mode: 'exact' });
  const dust: string[] = [];
  for (let i = 0; i < 5; i++) dust.push(await anvil.sendEth(payer, inv.address, 1n));
  dust.push(await anvil.sendEth(payer, inv.address, floor - 1n));
  await scan();
  const untouched = await get(inv.id);
  t.is(untouched.status, 'pending');
  t.deepEqual(untouched.transactions, []);
  t.deepEqual(await outbox(inv.id), []);
  const metric = (await gw.kernel.cradle.metrics.registry.getSingleMetric('gateway_watcher_dust_transfers_total')!.get()).values.find(
    (v) => v.labels.chain === 'eth',
  );
  t.is(metric?.value, dust.length, 'counted for the operator');
  const recorded = await db('watchers_transfers').where({ to_address: inv.address }).orderBy('block_height');
  t.deepEqual(
    recorded.map((r: { tx_hash: string; match: string; invoice_id: string | null }) => [r.tx_hash, r.match, r.invoice_id]),
    dust.map((hash) => [hash, 'dust', null]),
    'on record, for no invoice and not in the orphan inbox',
  );

  // Short of the amount by less than the floor: the dust that would make it exact does not count.
  const amount = parseEther('0.5');
  await anvil.sendEth(payer, inv.address, amount - (floor - 1n));
  await anvil.sendEth(payer, inv.address, floor - 1n);
  await anvil.mine(inv.confirmation_threshold);
  await scan();
  const short = await get(inv.id);
  t.is(short.status, 'partial');
  t.is(short.transactions_total, 1);
  const events = await outbox(inv.id);
  t.deepEqual(
    events.map((e) => e.type),
    ['invoice.detected', 'invoice.partial'],
  );
  t.is(events.at(-1)!.data.paid_units, (amount - (floor - 1n)).toString());
  // Exactly at the floor a transfer counts.
  await anvil.sendEth(payer, inv.address, floor);
  await scan();
  t.is((await get(inv.id)).transactions_total, 2);
});
