/**
 * One recipient, a reference per invoice (issue 43), on a real database with the TON family
 * declared as a chain with payment references (`tonReferenceChain` of @gw/testing; Solana's own
 * end-to-end test runs with chains/sol): every invoice of a project pays the merchant's one address
 * without being an overlay (overlay is off here), each gets its own reference in its payment URI's
 * stead of an address of its own, matching picks the invoice by reference, and without a reference
 * only an exact, unique amount names a pending `exact` invoice. The merchant's address is never
 * released, and the watchers' list of references follows the invoices.
 */
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { CLI_ACTOR, type ProjectPrincipal } from '@gw/kernel';
import { startTestKernel, type TestKernel } from '@gw/kernel/testing';
import { addressPoolPlugin } from '@gw/plugin-address-pool';
import { ratesPlugin } from '@gw/plugin-rates';
import { tenancyPlugin } from '@gw/plugin-tenancy';
import { walletsPlugin } from '@gw/plugin-wallets';
import { FIXED_RATES, tonReferenceChain, tonWallet } from '@gw/testing';
import { invoicesPlugin } from '../src/index.js';
import type { ObservedPayment } from '../src/contract.js';

let gw: TestKernel;
let principal: ProjectPrincipal;
let projectId: string;

test.before(async () => {
  gw = await startTestKernel({
    plugins: [tenancyPlugin, walletsPlugin, addressPoolPlugin, ratesPlugin, invoicesPlugin],
    chains: [tonReferenceChain],
    role: 'gateway',
    config: {
      'chains.enabled': ['tonref'],
      'plugins.rates.providers': ['fixed'],
      'plugins.rates.fixed': { TON: FIXED_RATES.TON, USDT: '1' },
      'plugins.address-pool.overlay': false,
    },
  });
  const { tenancyOperators, tenancyProjects, walletsWallets } = gw.kernel.cradle;
  const operatorId = (await tenancyOperators.create('payment-references', CLI_ACTOR)).id;
  const created = await tenancyProjects.create({ name: 'references', kind: 'production', operator: operatorId }, CLI_ACTOR);
  projectId = created.project.id;
  const { challenge } = await walletsWallets.register({ projectId, chain: 'tonref', xpub: tonWallet.xpub }, CLI_ACTOR);
  await walletsWallets.verify({ projectId, chain: 'tonref', signature: await tonWallet.sign(challenge.message) }, CLI_ACTOR);
  principal = (await tenancyProjects.principal(projectId))!;
});
test.after.always(async () => {
  await gw?.close();
});

const ONE = 1_000_000_000n;

async function create(externalId: string, amount: string, matching: 'exact' | 'at_least' | 'any') {
  return (
    await gw.kernel.cradle.invoicesService.create(
      principal,
      { external_id: externalId, coin: 'tonref', amount_crypto: amount, matching_mode: matching },
      CLI_ACTOR,
    )
  ).invoice;
}

async function observe(address: string, amountUnits: bigint, references?: readonly string[]) {
  const payment: ObservedPayment = {
    projectId,
    chain: 'tonref',
    coin: 'tonref',
    address,
    txHash: randomBytes(32).toString('hex'),
    outputIndex: 0,
    amountUnits,
    confirmations: 0,
    blockHeight: null,
    blockHash: null,
    ...(references ? { references } : {}),
    firstSeenAt: new Date(),
    blockTime: null,
  };
  const { outcomes } = await gw.kernel.cradle.db.transaction((trx) => gw.kernel.cradle.invoicesLifecycle.observePayments(trx, [payment], CLI_ACTOR));
  return outcomes[0]!;
}

// Serial tests run before the others: the pool is still empty here.
test.serial('concurrent first creates of a project all get its one recipient: whichever derives row 0, the others read it', async (t) => {
  t.is((await gw.kernel.cradle.db('address_pool_addresses').where({ project_id: projectId })).length, 0, 'nothing derived yet');
  const created = await Promise.all(['1', '2', '3', '4', '5'].map((n) => create(`first-${n}`, `7.${n}1`, 'exact')));
  t.is(new Set(created.map((i) => i.address)).size, 1, 'one address');
  t.is(new Set(created.map((i) => i.payment_reference)).size, 5, 'five references');
  const rows = await gw.kernel.cradle.db('address_pool_addresses').where({ project_id: projectId });
  t.is(rows.length, 1);
  t.like(rows[0], { derivation_index: 0, address: created[0]!.address, state: 'allocated' });
});

test('invoices share the one recipient without overlay, each with its own reference in its payment URI; the recipient is never released', async (t) => {
  const first = await create('ref-first', '1', 'exact');
  const second = await create('ref-second', '1', 'at_least');
  const third = await create('ref-third', '2', 'any');
  t.is(second.address, first.address);
  t.is(third.address, first.address);
  const references = [first, second, third].map((i) => i.payment_reference);
  t.true(
    references.every((r) => typeof r === 'string' && /^0:[0-9a-f]{64}$/.test(r)),
    String(references),
  );
  t.is(new Set(references).size, 3);
  const rows = await gw.kernel.cradle.db('address_pool_addresses').where({ project_id: projectId });
  t.is(rows.length, 1, 'one pool row: the recipient');
  t.like(rows[0], { derivation_index: 0, address: first.address, state: 'allocated' });
  await gw.kernel.cradle.invoicesService.cancel(projectId, third.id, CLI_ACTOR);
  t.like(await gw.kernel.cradle.db('address_pool_addresses').where({ project_id: projectId }).first(), { state: 'allocated' }, 'a cancel releases nothing');
});

test('a reference picks its invoice whatever the amount; no reference: an exact unique amount, ambiguous, or an orphan', async (t) => {
  const exactA = await create('match-exact-a', '1.5', 'exact');
  const exactB = await create('match-exact-b', '1.5', 'exact');
  const unique = await create('match-unique', '2.5', 'exact');
  const atLeast = await create('match-at-least', '3', 'at_least');
  const cancelled = await create('match-cancelled', '4', 'exact');
  await gw.kernel.cradle.invoicesService.cancel(projectId, cancelled.id, CLI_ACTOR);
  const { address } = exactA;
  t.deepEqual(await observe(address, 4n * ONE, ['0:' + '11'.repeat(32), atLeast.payment_reference!]), { kind: 'invoice', invoiceId: atLeast.id });
  t.is((await gw.kernel.cradle.invoicesService.get(projectId, atLeast.id)).status, 'detected');
  t.deepEqual(await observe(address, 2_500_000_000n), { kind: 'invoice', invoiceId: unique.id }, 'the one pending exact invoice of that amount');
  t.deepEqual(await observe(address, 3n * ONE), { kind: 'orphan' }, 'an at_least invoice is not named by an amount');
  t.deepEqual(await observe(address, 4n * ONE), { kind: 'orphan' }, 'nor a cancelled one');
  t.deepEqual(await observe(address, 5n * ONE, [cancelled.payment_reference!]), { kind: 'orphan' }, 'the reference of a cancelled invoice');
  t.deepEqual(await observe(address, 1_500_000_000n), { kind: 'ambiguous', invoiceIds: [exactB.id, exactA.id] }, 'two pending exact invoices of that amount');
  t.is((await gw.kernel.cradle.invoicesService.get(projectId, exactA.id)).status, 'ambiguous');
});

test('the watchers look up the references of waiting invoices, and of ended ones within the cooldown', async (t) => {
  const waiting = await create('watch-waiting', '7', 'exact');
  const ended = await create('watch-ended', '8', 'exact');
  await gw.kernel.cradle.invoicesService.cancel(projectId, ended.id, CLI_ACTOR);
  const { invoicesLifecycle } = gw.kernel.cradle;
  const withCooldown = await invoicesLifecycle.watchedReferences('tonref', [projectId], 3600);
  t.true(withCooldown.includes(waiting.payment_reference!));
  t.true(withCooldown.includes(ended.payment_reference!));
  const without = await invoicesLifecycle.watchedReferences('tonref', [projectId], 0);
  t.true(without.includes(waiting.payment_reference!));
  t.false(without.includes(ended.payment_reference!));
  t.deepEqual(await invoicesLifecycle.watchedReferences('tonref', [], 3600), []);
});
