/**
 * Watchers against a real EVM node: `@foundry-rs/anvil` running with Sepolia's chain id, so the
 * gateway's eth/sepolia definitions (and the real USDC Sepolia contract address, where a real
 * OpenZeppelin ERC-20 is installed) apply unchanged. Payments are real transactions in real blocks;
 * reorgs are anvil's `anvil_reorg`.
 */
import test from 'ava';
import { CLI_ACTOR } from '@gw/kernel';
import { signedFetch, waitFor, type TestKernel } from '@gw/kernel/testing';
import { verifyWebhook } from '@gw/webhook-verify';
import { getAddress, parseEther } from 'ethers';
import { projectWithPools, type Receiver, type TestProject } from '@gw/plugin-webhooks/testing';
import { FIXED_RATES, stopAll, type Anvil } from '@gw/testing';
import { ETH_SEPOLIA, startAnvilGateway } from './anvil-kernel.js';
import { drivenByTests, watcherScenario } from './scenario.js';

let anvil: Anvil, gw: TestKernel, receiver: Receiver, project: TestProject, payer: string;

test.before(async () => {
  // The tests here drive each pass themselves; the job loop is tested in evm-job-loop.test.ts.
  ({ anvil, gw, receiver, project, payer } = await startAnvilGateway('watchers-anvil', ETH_SEPOLIA, drivenByTests(30)));
});
test.after.always(() => stopAll(gw, receiver, anvil));

const { scan, uid, invoice, get, eventsOf } = watcherScenario(() => ({ gw, project, receiver }), 'eth', 'sepolia');

test.serial(
  'a real ETH transfer to the invoice address: detected at once, paid at the threshold, with signed webhooks; a reorg reverts it; re-mined it is paid again',
  async (t) => {
    const inv = await invoice({ coin: 'eth', amount_crypto: '0.25' });
    const txHash = await anvil.sendEth(payer, inv.address, parseEther('0.25'));
    await scan();
    const detected = await get(inv.id);
    t.is(detected.status, 'detected');
    t.like(detected.transactions[0], { tx_hash: txHash, amount_units: '250000000000000000', status: 'pending', confirmations: 1 });

    await anvil.mine(inv.confirmation_threshold - 1);
    await scan();
    const paid = await get(inv.id);
    t.is(paid.status, 'paid');
    t.is(paid.confirmations, inv.confirmation_threshold);
    t.is(paid.transactions[0].status, 'confirmed');
    await waitFor(async () => eventsOf(inv.id).length === 2, 20_000);
    const [detectedEvent, paidEvent] = eventsOf(inv.id).sort((a, b) => a.created_at_iso.localeCompare(b.created_at_iso));
    t.is(detectedEvent!.event_type, 'invoice.detected');
    t.is(paidEvent!.event_type, 'invoice.paid');
    t.is(paidEvent!.mode, 'testnet');
    t.is(paidEvent!.data.paid_units, '250000000000000000');
    t.true(verifyWebhook({ rawBody: paidEvent!.raw, header: paidEvent!.signature, secrets: [project.secret] }).ok);

    // The block holding the payment and everything after it are replaced by empty ones.
    const blockOfTx = Number(BigInt((await anvil.receipt(txHash)).blockNumber));
    const depth = (await anvil.blockNumber()) - blockOfTx + 1;
    await anvil.rpc('anvil_reorg', [depth, []]);
    const report = await scan();
    t.is(report.reorgedTo, blockOfTx - 1);
    const reverted = await get(inv.id);
    t.is(reverted.status, 'reverted');
    t.is(reverted.transactions[0].status, 'reverted');
    await waitFor(async () => eventsOf(inv.id).some((e) => e.event_type === 'invoice.reverted'), 20_000);

    // The payment made again on the new branch (as a payer's wallet rebroadcasts it): paid once more, with a fresh event.
    await anvil.sendEth(payer, inv.address, parseEther('0.25'));
    await anvil.mine(inv.confirmation_threshold);
    await scan();
    const repaid = await get(inv.id);
    t.is(repaid.status, 'paid');
    await waitFor(async () => eventsOf(inv.id).filter((e) => e.event_type === 'invoice.paid').length === 2, 20_000);
    const paidIds = eventsOf(inv.id)
      .filter((e) => e.event_type === 'invoice.paid')
      .map((e) => e.event_id);
    t.not(paidIds[0], paidIds[1], 'the re-confirmation is a fresh invoice.paid');
  },
);

test.serial('a real ERC-20 (USDC on Sepolia) transfer reaches paid; a rescan never counts it twice', async (t) => {
  const inv = await invoice({ coin: 'usdc_erc20', amount_crypto: '12.5' });
  const txHash = await anvil.sendToken(ETH_SEPOLIA.token, payer, inv.address, 12_500_000n);
  t.is(BigInt((await anvil.receipt(txHash)).status), 1n);
  await scan();
  t.is((await get(inv.id)).status, 'detected');
  // Scanning the same block again (cursor moved back by hand) while the invoice still takes
  // payments: counted twice, the transfer would make it paid at once; it stays detected.
  await gw.kernel.cradle
    .db('watchers_cursors')
    .where({ chain: 'eth', network: 'sepolia' })
    .update({ height: Number(BigInt((await anvil.receipt(txHash)).blockNumber)) - 1 });
  await scan();
  const rescanned = await get(inv.id);
  t.is(rescanned.status, 'detected');
  t.is(rescanned.transactions.length, 1);
  await anvil.mine(inv.confirmation_threshold);
  await scan();
  const paid = await get(inv.id);
  t.is(paid.status, 'paid');
  t.is(paid.transactions.length, 1);
  t.like(paid.transactions[0], { tx_hash: txHash, amount_units: '12500000', status: 'confirmed' });
  t.true(paid.transactions[0].output_index >= 1, 'a token transfer is its log index + 1');
});

test.serial('an underpayment is partial, an overpayment of an exact invoice is overpaid', async (t) => {
  const under = await invoice({ coin: 'eth', amount_crypto: '1' });
  const over = await invoice({ coin: 'eth', amount_crypto: '1', matching_mode: 'exact' });
  await anvil.sendEth(payer, under.address, parseEther('0.4'));
  await anvil.sendEth(payer, over.address, parseEther('1.5'));
  await anvil.mine(under.confirmation_threshold);
  await scan();
  t.is((await get(under.id)).status, 'partial');
  t.is((await get(over.id)).status, 'overpaid');
  await waitFor(
    async () => eventsOf(under.id).some((e) => e.event_type === 'invoice.partial') && eventsOf(over.id).some((e) => e.event_type === 'invoice.overpaid'),
    20_000,
  );
  t.is(eventsOf(under.id).find((e) => e.event_type === 'invoice.partial')!.data.paid_units, '400000000000000000');
});

test.serial(
  "a shared (overlay) address: the transfer equal to one invoice's amount pays it; one equal to two pending invoices makes both ambiguous and waits in the orphan inbox",
  async (t) => {
    const operatorId = (await gw.kernel.cradle.tenancyOperators.create(`overlay-${uid()}`, CLI_ACTOR)).id;
    // A key of its own, so none of its addresses is in the other project's pool.
    const shared = await projectWithPools(gw, operatorId, ['eth'], 'testnet', { evmAccount: 1 });
    const create = async (amount: string) => {
      const res = await signedFetch(gw.url, '/api/v1/invoices', {
        ...shared,
        method: 'POST',
        body: { external_id: uid(), coin: 'eth', amount_crypto: amount },
      });
      if (res.status !== 201) throw new Error(JSON.stringify(res.body));
      return res.body;
    };
    const first = await create('0.5');
    // Set-up: the pool has nothing free left (every spare row resting, and at its hard cap so the
    // replenisher adds none), so the next invoices share the one allocated address.
    await gw.kernel.cradle
      .db('address_pool_addresses')
      .where({ project_id: shared.projectId, state: 'available' })
      .update({ state: 'cooldown', cooldown_until: new Date(Date.now() + 365 * 86_400_000) });
    const second = await create('0.3');
    const third = await create('0.3');
    t.is(second.address, first.address);
    t.is(third.address, first.address);

    // Both payments in one block: the second sees what the first changed at the address.
    const [, a, b] = await anvil.accounts();
    await anvil.pauseMining();
    const exactTx = await anvil.sendEth(a!, first.address, parseEther('0.5'));
    const sharedTx = await anvil.sendEth(b!, first.address, parseEther('0.3'));
    await anvil.mine(1);
    await anvil.resumeMining();
    t.is((await anvil.receipt(exactTx)).blockNumber, (await anvil.receipt(sharedTx)).blockNumber);
    await scan();

    const of = async (id: string) => (await signedFetch(gw.url, `/api/v1/invoices/${id}`, shared)).body;
    t.is((await of(first.id)).status, 'detected');
    t.is((await of(first.id)).transactions[0].tx_hash, exactTx);
    t.is((await of(second.id)).status, 'ambiguous');
    t.is((await of(third.id)).status, 'ambiguous');
    t.deepEqual((await of(second.id)).transactions, []);
    const inbox = await signedFetch(gw.url, `/api/v1/orphan-payments?tx_hash=${sharedTx}`, shared);
    t.like(inbox.body.items[0], { tx_hash: sharedTx, amount_units: '300000000000000000', attributed: false });
    t.is((await signedFetch(gw.url, `/api/v1/orphan-payments?tx_hash=${exactTx}`, shared)).body.items.length, 0, 'the matched payment is no orphan');

    await anvil.mine(first.confirmation_threshold);
    await scan();
    t.is((await of(first.id)).status, 'paid');
    t.is((await of(second.id)).status, 'ambiguous', 'an ambiguous invoice waits for the operator');
  },
);

test.serial(
  'USD-priced ETH at a shared address: amounts of at most 8 decimals, one cent apart stays apart, and the amount typed from the page pays its invoice exactly',
  async (t) => {
    const operatorId = (await gw.kernel.cradle.tenancyOperators.create(`usd-overlay-${uid()}`, CLI_ACTOR)).id;
    const shared = await projectWithPools(gw, operatorId, ['eth'], 'testnet', { evmAccount: 3 });
    const create = async (usd: number) => {
      const res = await signedFetch(gw.url, '/api/v1/invoices', { ...shared, method: 'POST', body: { external_id: uid(), coin: 'eth', amount_usd: usd } });
      if (res.status !== 201) throw new Error(JSON.stringify(res.body));
      return res.body;
    };
    const fifty = await create(50);
    await gw.kernel.cradle
      .db('address_pool_addresses')
      .where({ project_id: shared.projectId, state: 'available' })
      .update({ state: 'cooldown', cooldown_until: new Date(Date.now() + 365 * 86_400_000) });
    const centMore = await create(50.01);
    t.is(centMore.address, fifty.address, 'the two invoices share the address');
    // 50 / 3200.5 = 0.0156225589... ETH, rounded up to 8 decimals.
    t.is(fifty.amount_crypto, '0.01562256');
    t.is(centMore.amount_crypto, '0.01562569');
    // What a payer types from the page, through the wallet's own decimal parsing.
    await anvil.sendEth(payer, centMore.address, parseEther(centMore.amount_crypto));
    await anvil.mine(centMore.confirmation_threshold);
    await scan();
    const of = async (id: string) => (await signedFetch(gw.url, `/api/v1/invoices/${id}`, shared)).body;
    t.is((await of(centMore.id)).status, 'paid');
    t.is((await of(fifty.id)).status, 'pending');
  },
);

test.serial("an address in two projects' pools (one key registered twice): the receipt goes to the project whose invoice waits there", async (t) => {
  const operatorId = (await gw.kernel.cradle.tenancyOperators.create(`same-key-${uid()}`, CLI_ACTOR)).id;
  const twin = await projectWithPools(gw, operatorId, ['eth'], 'testnet');
  const created = await signedFetch(gw.url, '/api/v1/invoices', { ...twin, method: 'POST', body: { external_id: uid(), coin: 'eth', amount_crypto: '0.2' } });
  t.is(created.status, 201);
  const older = await gw.kernel.cradle.db('address_pool_addresses').where({ project_id: project.projectId, address: created.body.address }).first();
  t.truthy(older, "the first project's pool holds the address too");
  t.not(older.state, 'allocated');
  await anvil.sendEth(payer, created.body.address, parseEther('0.2'));
  await scan();
  t.is((await signedFetch(gw.url, `/api/v1/invoices/${created.body.id}`, twin)).body.status, 'detected');
});

test.serial('a stray transfer to an unused pool address is an orphan; attribution creates a paid invoice with invoice.paid, once', async (t) => {
  const paidBefore = (await signedFetch(gw.url, '/api/v1/invoices?limit=200', project)).body.items.filter(
    (i: { status: string }) => i.status === 'paid',
  ).length;
  const [spare] = await gw.kernel.cradle.addressPoolService.lookupAddresses('eth', await freePoolAddresses(), gw.kernel.cradle.db);
  const txHash = await anvil.sendEth(payer, spare!.address, parseEther('0.1'));
  await anvil.mine(1);
  await scan();
  const listed = await signedFetch(gw.url, '/api/v1/orphan-payments?attributed=false&chain=eth', project);
  t.is(listed.status, 200, JSON.stringify(listed.body));
  const orphan = listed.body.items.find((o: any) => o.tx_hash === txHash);
  t.like(orphan, {
    to_address: getAddress(spare!.address),
    amount_units: '100000000000000000',
    amount: '0.1',
    coin: 'eth',
    chain: 'eth',
    network: 'sepolia',
    attributed: false,
    tx_output_index: 0,
  });
  t.is((await signedFetch(gw.url, `/api/v1/orphan-payments?tx_hash=${txHash}&amount_units_gte=100000000000000001`, project)).body.items.length, 0);

  // Issue 26, finding 7: below the confirmation threshold the receipt cannot be attributed yet.
  const early = await signedFetch(gw.url, `/api/v1/orphan-payments/${txHash}/attribute`, { ...project, method: 'POST', body: { external_id: uid() } });
  t.is(early.status, 409, JSON.stringify(early.body));
  t.is(early.body.error_code, 'orphan_not_confirmed');
  t.true(early.body.details.confirmations < early.body.details.confirmation_threshold);
  t.is(
    (await signedFetch(gw.url, '/api/v1/invoices?limit=200', project)).body.items.filter((i: { status: string; metadata: unknown }) => i.status === 'paid')
      .length,
    paidBefore,
    'no invoice was created',
  );
  const { confirmation_threshold: threshold } = await invoice({ coin: 'eth', amount_crypto: '0.1' });
  await anvil.mine(threshold);
  await scan();

  const taken = await invoice({ coin: 'eth', amount_crypto: '0.1' });
  const conflict = await signedFetch(gw.url, `/api/v1/orphan-payments/${txHash}/attribute`, {
    ...project,
    method: 'POST',
    body: { external_id: taken.external_id },
  });
  t.is(conflict.status, 409);
  t.is(conflict.body.error_code, 'external_id_conflict');
  const badIndex = await signedFetch(gw.url, `/api/v1/orphan-payments/${txHash}/attribute`, {
    ...project,
    method: 'POST',
    body: { external_id: uid(), tx_output_index: 2 ** 40 },
  });
  t.is(badIndex.status, 400);
  t.is(badIndex.body.error_code, 'validation_error');
  t.is(
    (await signedFetch(gw.url, `/api/v1/orphan-payments?tx_hash=${txHash}`, project)).body.items[0].attributed,
    false,
    'refused attributions change nothing',
  );

  const externalId = uid();
  const attributed = await signedFetch(gw.url, `/api/v1/orphan-payments/${txHash}/attribute`, {
    ...project,
    method: 'POST',
    body: { external_id: externalId, user_id: 'customer-7', to_address: spare!.address.toLowerCase() },
  });
  t.is(attributed.status, 200, JSON.stringify(attributed.body));
  t.like(attributed.body, {
    status: 'paid',
    external_id: externalId,
    amount_crypto_units: '100000000000000000',
    coin: 'eth',
    address: spare!.address,
    metadata: { user_id: 'customer-7' },
  });
  t.is(attributed.body.transactions[0].tx_hash, txHash);
  await waitFor(async () => eventsOf(attributed.body.id).some((e) => e.event_type === 'invoice.paid'), 20_000);
  // Accounting: an attributed receipt is paid at attribution, at the rate known then (issue 23).
  const [exported] = await gw.kernel.cradle
    .db('invoices_invoices')
    .where({ id: attributed.body.id })
    .select('paid_at', gw.kernel.cradle.db.raw('paid_usd_rate::text as paid_usd_rate'), 'paid_rate_source');
  t.truthy(exported.paid_at);
  t.like(exported, { paid_usd_rate: FIXED_RATES.ETH, paid_rate_source: 'fixed' });

  // Later passes count confirmations; the attributed receipt is final and pays nothing again.
  await anvil.mine(3);
  await scan();
  const paidEvents = await gw.kernel.cradle.db('webhooks_events').where({ invoice_id: attributed.body.id, event_type: 'invoice.paid' });
  t.is(paidEvents.length, 1);
  t.is((await get(attributed.body.id)).transactions[0].status, 'confirmed');

  const twice = await signedFetch(gw.url, `/api/v1/orphan-payments/${txHash}/attribute`, { ...project, method: 'POST', body: { external_id: uid() } });
  t.is(twice.status, 409);
  t.is(twice.body.error_code, 'orphan_already_attributed');
  t.is((await signedFetch(gw.url, '/api/v1/orphan-payments?attributed=true', project)).body.items[0].tx_hash, txHash);
  const unknown = await signedFetch(gw.url, `/api/v1/orphan-payments/0x${'ab'.repeat(32)}/attribute`, {
    ...project,
    method: 'POST',
    body: { external_id: uid() },
  });
  t.is(unknown.status, 404);
  t.is(unknown.body.error_code, 'orphan_not_found');
});

test.serial('expiry: a pending invoice past expires_at is expired (a detected one is not); a payment after it is expired_paid_late', async (t) => {
  const late = await invoice({ coin: 'eth', amount_crypto: '0.3' });
  const seen = await invoice({ coin: 'eth', amount_crypto: '0.3' });
  await anvil.sendEth(payer, seen.address, parseEther('0.3'));
  await scan();
  t.is((await get(seen.id)).status, 'detected');
  // Both deadlines are moved into the past (the policy's shortest expiry is a minute).
  await gw.kernel.cradle
    .db('invoices_invoices')
    .whereIn('id', [late.id, seen.id])
    .update({ expires_at: new Date(Date.now() - 1000) });
  // (The minute's `invoices.expire` schedule may get there first.)
  await gw.kernel.cradle.invoicesLifecycle.expireDue({ actor: 'invoice-expiry', channel: 'system' });
  t.is((await get(late.id)).status, 'expired');
  t.is((await get(seen.id)).status, 'detected', 'a payment seen in time is counted, not expired');
  await waitFor(async () => eventsOf(late.id).some((e) => e.event_type === 'invoice.expired'), 20_000);

  await anvil.sendEth(payer, late.address, parseEther('0.3'));
  await anvil.mine(late.confirmation_threshold);
  await scan();
  t.is((await get(late.id)).status, 'expired_paid_late');
  t.is((await get(seen.id)).status, 'paid');
  await waitFor(async () => eventsOf(late.id).some((e) => e.event_type === 'invoice.expired_paid_late'), 20_000);
  t.is(eventsOf(late.id).find((e) => e.event_type === 'invoice.expired_paid_late')!.data.paid_units, '300000000000000000');
});

async function freePoolAddresses(): Promise<string[]> {
  const rows = await gw.kernel.cradle
    .db('address_pool_addresses')
    .where({ project_id: project.projectId, chain: 'eth', state: 'available' })
    .orderBy('derivation_index', 'desc')
    .select('address');
  return rows.map((r: { address: string }) => r.address);
}
