/**
 * The Solana watcher end-to-end (issue 43): a gateway with `chains.enabled` including `sol` and
 * `chains.testNetworks: {"sol": "localnet"}`, its watcher reading chains/sol's local ledger (LiteSVM
 * behind JSON-RPC, test/litesvm-rpc.ts) as sol/localnet. The merchant registers their address and
 * proves it with an ed25519 signature as Phantom signs; every invoice pays that one address and is
 * told apart by its Solana Pay reference. Payments are real transactions LiteSVM executes; USDC is
 * a real SPL mint installed at Circle's devnet address, so chains/sol's definition applies unchanged.
 */
import test from 'ava';
import { CLI_ACTOR } from '@gw/kernel';
import { signedFetch, waitFor, type TestKernel } from '@gw/kernel/testing';
import { verifyWebhook } from '@gw/webhook-verify';
import { stopAll } from '@gw/testing';
import { Receiver, type TestProject } from '@gw/plugin-webhooks/testing';
import { freshAddress, fundedSigner, installMint, LiteSvmLedger, merchantWallet, mintTo, solPayment, tokenPayment } from '@gw/chain-sol/testing';
import { drivenByTests, startWatchersKernel, watcherScenario } from './scenario.js';

const USDC = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU';
let ledger: LiteSvmLedger, gw: TestKernel, receiver: Receiver, project: TestProject, payer: Awaited<ReturnType<typeof fundedSigner>>, merchant: string;

test.before(async () => {
  ledger = await LiteSvmLedger.start();
  receiver = await Receiver.start();
  gw = await startWatchersKernel(
    { sol: { localnet: { providers: [{ name: 'litesvm', url: ledger.url }], startHeight: 0 } } },
    { 'chains.enabled': ['eth', 'sol'], 'chains.testNetworks': { sol: 'localnet' }, ...drivenByTests(10) },
  );
  // The merchant's wallet: a key pair as Phantom holds it; the gateway gets the address and a signed challenge.
  const wallet = merchantWallet();
  merchant = wallet.address;
  const { tenancyOperators, tenancyProjects, walletsWallets, addressPoolReplenisher } = gw.kernel.cradle;
  const operatorId = (await tenancyOperators.create('watchers-sol', CLI_ACTOR)).id;
  const created = await tenancyProjects.create({ name: 'sol-shop', kind: 'testnet', operator: operatorId }, CLI_ACTOR);
  project = { projectId: created.project.id, secret: created.credentials.api_secret };
  const { challenge } = await walletsWallets.register({ projectId: project.projectId, chain: 'sol', xpub: merchant }, CLI_ACTOR);
  await walletsWallets.verify({ projectId: project.projectId, chain: 'sol', signature: wallet.signMessage(challenge.message) }, CLI_ACTOR);
  await addressPoolReplenisher.replenish({ projectId: project.projectId });
  await tenancyProjects.setWebhookUrl(project.projectId, `${receiver.url}/hooks`, CLI_ACTOR);
  payer = await fundedSigner(ledger, 100_000_000_000n);
  const mintAuthority = await fundedSigner(ledger);
  installMint(ledger, USDC, mintAuthority.address, 6);
  await mintTo(ledger, mintAuthority, USDC, payer.address, 1_000_000_000n);
  ledger.finalize();
});
test.after.always(async () => {
  await stopAll(gw, receiver);
  await ledger?.close();
});

const { scan, invoice, get, eventsOf } = watcherScenario(() => ({ gw, project, receiver }), 'sol', 'localnet');

async function paidWithWebhook(t: import('ava').ExecutionContext, id: string, units: string) {
  await waitFor(async () => eventsOf(id).some((e) => e.event_type === 'invoice.paid'), 20_000);
  const paidEvent = eventsOf(id).find((e) => e.event_type === 'invoice.paid')!;
  t.is(paidEvent.data.paid_units, units);
  t.true(verifyWebhook({ rawBody: paidEvent.raw, header: paidEvent.signature, secrets: [project.secret] }).ok);
}

test.serial('every invoice pays the merchant address, with a reference of its own in its Solana Pay URI', async (t) => {
  const [a, b] = [await invoice({ coin: 'sol', amount_crypto: '0.5' }), await invoice({ coin: 'usdc_sol', amount_crypto: '3' })];
  t.is(a.address, merchant);
  t.is(b.address, merchant);
  t.not(a.payment_reference, b.payment_reference);
  t.is(a.payment_uri.split('?')[0], `solana:${merchant}`);
  t.true(a.payment_uri.includes(`reference=${a.payment_reference}`), a.payment_uri);
  t.true(b.payment_uri.includes(`spl-token=${USDC}`), b.payment_uri);
});

test.serial('SOL with its reference: detected when confirmed, paid when finalized, with a signed webhook', async (t) => {
  const inv = await invoice({ coin: 'sol', amount_crypto: '1.5' });
  const sig = ledger.send(await solPayment(ledger, payer, merchant, 1_500_000_000n, [inv.payment_reference]));
  await scan();
  const detected = await get(inv.id);
  t.is(detected.status, 'detected');
  t.like(detected.transactions[0], { tx_hash: sig, amount_units: '1500000000', status: 'pending' });
  ledger.finalize();
  await scan();
  const paid = await get(inv.id);
  t.is(paid.status, 'paid');
  t.like(paid.transactions[0], { tx_hash: sig, status: 'confirmed' });
  await paidWithWebhook(t, inv.id, '1500000000');
});

test.serial('USDC with its reference reaches paid; another invoice of the same amount stays pending', async (t) => {
  const other = await invoice({ coin: 'usdc_sol', amount_crypto: '12.5' });
  const inv = await invoice({ coin: 'usdc_sol', amount_crypto: '12.5' });
  const sig = ledger.send(await tokenPayment(ledger, payer, USDC, merchant, 12_500_000n, 6, [inv.payment_reference]));
  ledger.finalize();
  await scan();
  const paid = await get(inv.id);
  t.is(paid.status, 'paid');
  t.like(paid.transactions[0], { tx_hash: sig, amount_units: '12500000', status: 'confirmed' });
  t.is((await get(other.id)).status, 'pending');
  await paidWithWebhook(t, inv.id, '12500000');
});

test.serial('without a reference: the one pending invoice of that exact amount is paid; an amount no invoice has is an orphan', async (t) => {
  const inv = await invoice({ coin: 'sol', amount_crypto: '0.731' });
  const sig = ledger.send(await solPayment(ledger, payer, merchant, 731_000_000n));
  const stray = ledger.send(await solPayment(ledger, payer, merchant, 777_000_000n));
  ledger.finalize();
  await scan();
  const paid = await get(inv.id);
  t.is(paid.status, 'paid');
  t.is(paid.transactions[0].tx_hash, sig);
  const orphans = await signedFetch(gw.url, `/api/v1/orphan-payments?tx_hash=${stray}`, project);
  t.is(orphans.status, 200, JSON.stringify(orphans.body));
  t.like(orphans.body.items[0], {
    tx_hash: stray,
    to_address: merchant,
    amount_units: '777000000',
    coin: 'sol',
    chain: 'sol',
    network: 'localnet',
    attributed: false,
  });
});

test.serial('another mint, or USDC into an account the merchant does not own, pays nothing', async (t) => {
  const inv = await invoice({ coin: 'usdc_sol', amount_crypto: '4' });
  const authority = await fundedSigner(ledger);
  const fake = await freshAddress();
  installMint(ledger, fake, authority.address, 6);
  await mintTo(ledger, authority, fake, payer.address, 10_000_000n);
  ledger.send(await tokenPayment(ledger, payer, fake, merchant, 4_000_000n, 6, [inv.payment_reference]));
  const stranger = await freshAddress();
  ledger.send(await tokenPayment(ledger, payer, USDC, stranger, 4_000_000n, 6, [inv.payment_reference]));
  ledger.finalize();
  await scan();
  const still = await get(inv.id);
  t.is(still.status, 'pending');
  t.deepEqual(still.transactions, []);
});

test.serial('a payment confirmed on a fork that dies is dropped, and the invoice expires', async (t) => {
  const inv = await invoice({ coin: 'sol', amount_crypto: '2' });
  const sig = ledger.sendOnFork(await solPayment(ledger, payer, merchant, 2_000_000_000n, [inv.payment_reference]));
  await scan();
  t.like((await get(inv.id)).transactions[0], { tx_hash: sig, status: 'pending' });
  t.is((await get(inv.id)).status, 'detected');
  ledger.dropFork();
  // More than Solana's pendingTimeoutSeconds (90), far less than the config's mempool timeout (a day).
  const { db, invoicesLifecycle } = gw.kernel.cradle;
  await db('watchers_transfers')
    .where({ tx_hash: sig })
    .update({ received_at: db.raw(`now() - interval '100 seconds'`) });
  const report = await scan();
  t.is(report.mempool?.dropped, 1);
  const released = await get(inv.id);
  t.is(released.status, 'pending');
  t.is(released.transactions[0].status, 'dropped');
  await invoicesLifecycle.expireDue(CLI_ACTOR, { asOf: new Date(Date.now() + 2 * 86_400_000) });
  t.is((await get(inv.id)).status, 'expired');
});
