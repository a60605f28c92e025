/**
 * The trust rule (issue 40): no invoice is paid on one provider's word where a network has a quorum.
 *
 * Public providers cannot be reached here. Each provider is a local HTTP server that REPLAYS
 * RECORDED REAL Esplora answers of the BTC chain package (`test/esplora-replay.ts`;
 * chains/btc/test/fixtures/README.md says where each comes from): testnet3 block 1259783
 * `00000000004e1506…df8c` (its `/block-height/1259783` hash, its `/block/:hash` header and its
 * `/block/:hash/txs/0` page), whose transaction `9fca06b2…df3ac` pays 1,000,000 sats (output 0) to
 * `tb1q6rz28…cpvkl`, receive address 0 of the published "abandon … about" test key that every test
 * project registers, and 24,099,800 sats (output 1) to `tb1qr6ch6…zwna`, an address of no project.
 * Built, not recorded: each server's tip height (`/blocks/tip/height`, a bare number as Esplora
 * answers it) is set by the test, an unknown height answers Esplora's 404 `Block not found`,
 * `GET /tx/9fca06b2…` answers the page's transaction object as it is (Esplora's single-transaction
 * answer has the same fields, `status` naming the block), and the per-address mempool
 * (`/address/:address/txs/mempool`) answers `[]` (an address with no unconfirmed transaction).
 *
 * What is changed to make a provider lie, and nothing else:
 * - the LIAR serves the recorded page with output 1 paying the invoice's address instead
 *   (`scriptpubkey` and `scriptpubkey_address` rewritten; txid, value and everything else as
 *   recorded): it invents a transfer of 24,099,800 sats into the invoice's address that the honest
 *   provider, serving the page as recorded, does not have;
 * - the DENIER serves the recorded page with output 0 paying output 1's address: it has the block
 *   (same hash) but not the real payment to address 0.
 *
 * The recorded block is from 21 January 2018 and the matcher gives an invoice only receipts that
 * existed after it was created, so each test dates its invoices' creation back to before that block
 * (the only rows the tests write besides the decision and check times below, which the tests move
 * instead of waiting). The projects count 1 confirmation (project policy), so the one recorded block
 * is the threshold depth: an unattested payment is held at 0 confirmations (`detected`).
 */
import test from 'ava';
import { CLI_ACTOR, type ObservedTransfer } from '@gw/kernel';
import { signedFetch, type TestKernel } from '@gw/kernel/testing';
import { Receiver, btcTestnetWallet, stopAll } from '@gw/testing';
import type { TestProject } from '@gw/plugin-webhooks/testing';
import { pageWithOutputTo as rewrittenPage } from '@gw/chain-btc/testing';
import { EsploraReplay, HASH, HEIGHT, invoiceBeforeBlock, OTHER, PAGE, pageWithOutputTo, TXID } from './esplora-replay.js';
import { drivenByTests, startWatchersKernel, watchedProject } from './scenario.js';

const ADDRESS_0 = btcTestnetWallet.address0!;

/** A provider of a test: its operator (its own name when none), and its replay's tip and page where not the recorded ones. */
interface ProviderSpec {
  readonly operator?: string;
  readonly tip?: number;
  readonly page?: string;
}

interface Setup<Name extends string = string> {
  readonly gw: TestKernel;
  readonly project: TestProject;
  /** Each provider's replay, by its name. */
  readonly replays: Record<Name, EsploraReplay>;
}

/**
 * A gateway watching btc/testnet from block 1259783 through one replayed Esplora provider per
 * entry of `providers` (in their order), `quorum` when given; a testnet project counting 1
 * confirmation on btc. Role gateway: the test drives every pass.
 */
async function setup<Name extends string>(
  t: { teardown(fn: () => Promise<void>): void },
  providers: Record<Name, ProviderSpec>,
  quorum?: number,
  config: Readonly<Record<string, unknown>> = {},
): Promise<Setup<Name>> {
  const specs = Object.entries(providers) as [Name, ProviderSpec][];
  const replays = Object.fromEntries(await Promise.all(specs.map(async ([name, spec]) => [name, await EsploraReplay.start(spec)]))) as Record<
    Name,
    EsploraReplay
  >;
  const receiver = await Receiver.start();
  const endpoints = specs.map(([name, { operator }]) => ({ name, url: replays[name].url, ...(operator === undefined ? {} : { operator }) }));
  const gw = await startWatchersKernel(
    { btc: { testnet: { providers: endpoints, startHeight: HEIGHT, ...(quorum === undefined ? {} : { quorum }) } } },
    { ...drivenByTests(4), 'chains.testNetworks': { btc: 'testnet' }, 'plugins.watchers.publicProviders': false, ...config },
    { role: 'gateway' },
  );
  t.teardown(() => stopAll(gw, receiver, ...Object.values<EsploraReplay>(replays)));
  const project = await watchedProject(gw, receiver, `quorum-${Math.random().toString(36).slice(2)}`, 'btc');
  await gw.kernel.cradle.invoicesPolicies.set(project.projectId, { confirmations: { btc: 1 } }, CLI_ACTOR);
  return { gw, project, replays };
}

/** One pass that ran (its backoff cleared first: these tests stand for the time passing). */
async function pass({ gw }: Setup) {
  const { db, watchersScanner, watchersRegistry } = gw.kernel.cradle;
  await db('watchers_cursors').where({ chain: 'btc', network: 'testnet' }).update({ next_scan_at: null });
  for (;;) {
    const report = await watchersScanner.pass(watchersRegistry.get('btc', 'testnet')!);
    if (report.ran) return report;
  }
}

/** An invoice of `amount` BTC, created (as far as matching knows) before the recorded block. */
const invoice = ({ gw, project }: Setup, amount: string) => invoiceBeforeBlock(gw, project, amount);

const get = async ({ gw, project }: Setup, id: string) => (await signedFetch(gw.url, `/api/v1/invoices/${id}`, project)).body;
const transferOf = ({ gw }: Setup, invoiceId: string) => gw.kernel.cradle.db('watchers_transfers').where({ invoice_id: invoiceId }).first();
const eventsOf = async ({ gw }: Setup, invoiceId: string) =>
  (await gw.kernel.cradle.db('webhooks_events').where({ invoice_id: invoiceId }).orderBy('id')).map((e) => ({
    type: e.event_type as string,
    data: JSON.parse(e.body).data as Record<string, unknown>,
  }));
/** The value of one series of the kernel's /metrics text. */
async function metric({ gw }: Setup, series: string): Promise<number | undefined> {
  const text = await gw.kernel.cradle.metrics.registry.metrics();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}
/** The decision time has passed (the test stands for `disagreementDecisionSeconds` going by). */
const ripen = ({ gw }: Setup, id: string) =>
  gw.kernel.cradle
    .db('watchers_disagreements')
    .where({ id })
    .update({ decide_after: gw.kernel.cradle.db.raw(`now() - interval '1 second'`) });
/** The disagreement's backoff has passed: the next pass asks the providers again. */
const due = ({ gw }: Setup) =>
  gw.kernel.cradle
    .db('watchers_disagreements')
    .where({ status: 'open' })
    .update({ next_check_at: gw.kernel.cradle.db.raw('now()') });
/** The disagreements' backoff has passed, then one pass ran. */
async function passWhenDue(s: Setup) {
  await due(s);
  return pass(s);
}
/** The providers marked so far, in the order they were. */
const markedProviders = async ({ gw }: Setup) => (await gw.kernel.cradle.watchersDisagreements.marks()).map((m) => m.provider);
const codeOf = async (promise: Promise<unknown>) => {
  try {
    await promise;
    return 'none';
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
};

test.serial(
  'quorum 1 (one provider): paid on its word in the pass that finds the payment, attested single, no request more, no sources in the events',
  async (t) => {
    const s = await setup(t, { 'own-esplora': {} });
    const own = s.replays['own-esplora'];
    t.deepEqual(
      JSON.parse(pageWithOutputTo(0, ADDRESS_0)),
      JSON.parse(PAGE),
      'the script rewriting of the liars below is the recorded one for a recorded address',
    );
    const inv = await invoice(s, '0.01');
    t.is(inv.address, ADDRESS_0, 'the first invoice gets pool address 0, which the recorded transaction pays');
    await pass(s);
    t.like(await get(s, inv.id), { status: 'paid', confirmations: 1 });
    t.like(await transferOf(s, inv.id), { tx_hash: TXID, output_index: 0, attestation: 'single', attested_by: null, confirmations: 1 });
    t.is(own.asked(`/block/${HASH}/txs/0`).length, 1, 'the block is read once: nothing is asked twice');
    const events = await eventsOf(s, inv.id);
    t.deepEqual(
      events.map((e) => e.type),
      ['invoice.detected', 'invoice.paid'],
    );
    t.false(
      events.some((e) => 'sources' in e.data),
      'events as before',
    );
    t.is(await metric(s, 'gateway_watcher_disagreements{chain="btc",network="testnet",state="open"}'), undefined, 'no quorum series for a network of quorum 1');
  },
);

test.serial(
  'a liar inventing a transfer into an invoice address: never paid, the disagreement is reported, the liar is marked and passed over; the real payment in the same block is paid by both; the operator rejects after the decision time',
  async (t) => {
    const s = await setup(t, { liar: { operator: 'liar-co' }, honest: { operator: 'honest-co' } });
    const { liar, honest } = s.replays;
    t.is(s.gw.kernel.cradle.watchersRegistry.get('btc', 'testnet')!.quorum, 2, 'two operators: quorum 2 by default');
    const real = await invoice(s, '0.01');
    t.is(real.address, ADDRESS_0);
    const target = await invoice(s, '0.240998');
    t.not(target.address, ADDRESS_0);
    liar.page = pageWithOutputTo(1, target.address);

    // The liar comes first: the pass scans through it and records both transfers.
    await pass(s);
    t.like(await get(s, real.id), { status: 'paid' }, 'the real payment, reported by both, is paid');
    t.like(await transferOf(s, real.id), { attestation: 'quorum', attested_by: ['liar', 'honest'] });
    const held = await get(s, target.id);
    t.like(held, { status: 'detected', confirmations: 0 }, 'the invented one is held below the threshold');
    t.like(held.transactions[0], { tx_hash: TXID, output_index: 1, amount_units: '24099800', block_height: HEIGHT, confirmations: 0 });
    t.like(await transferOf(s, target.id), { attestation: null, attested_at: null });
    const detected = (await eventsOf(s, target.id)).find((e) => e.type === 'invoice.detected')!;
    t.deepEqual(detected.data['sources'], { detected_by: 1, required_for_paid: 2 }, 'the detection says it rests on one source');

    const desk = s.gw.kernel.cradle.watchersDisagreements;
    const [open] = await desk.list({ status: 'open' });
    t.like(open, {
      chain: 'btc',
      network: 'testnet',
      txHash: TXID,
      outputIndex: 1,
      toAddress: target.address,
      amountUnits: '24099800',
      invoiceId: target.id,
      blockHeight: HEIGHT,
      blockHash: HASH,
      reportedBy: ['liar'],
      deniedBy: ['honest'],
      otherBranch: [],
      lagging: [],
      status: 'open',
    });
    t.is(open!.kind, 'contradiction');
    t.true(open!.decideAfter.getTime() - open!.openedAt.getTime() >= 1800_000 - 1000, 'decidable after disagreementDecisionSeconds (1800 by default)');
    t.deepEqual(await desk.marks(), [], 'one round of answers marks nobody');
    t.is(await metric(s, 'gateway_watcher_provider_marked{chain="btc",network="testnet",provider="liar"}'), 0);

    // Asked again once the backoff has passed (before it, the next pass leaves the disagreement alone): the same answers mark the liar.
    await pass(s);
    t.deepEqual(await desk.marks(), [], 'not re-checked before the backoff');
    await passWhenDue(s);
    const [mark] = await desk.marks();
    t.like(mark, { chain: 'btc', network: 'testnet', provider: 'liar', disagreementId: open!.id });
    t.regex(mark!.reason, /which honest do not have/);
    t.like(await s.gw.kernel.cradle.db('kernel_audit_log').where({ action: 'watcher.provider_mark' }).first(), {
      actor: 'watchers',
      channel: 'system',
      target: 'provider:btc:testnet:liar',
    });
    t.is(await metric(s, 'gateway_watcher_disagreements{chain="btc",network="testnet",state="open"}'), 1);
    t.is(await metric(s, 'gateway_watcher_disagreements{chain="btc",network="testnet",state="awaiting_decision"}'), 0);
    t.is(await metric(s, 'gateway_watcher_provider_marked{chain="btc",network="testnet",provider="liar"}'), 1);
    t.is(await metric(s, 'gateway_watcher_provider_marked{chain="btc",network="testnet",provider="honest"}'), 0);
    t.is(await metric(s, 'gateway_watcher_attestations_total{chain="btc",network="testnet",provider="honest",answer="denied"}'), 2);
    t.is(await metric(s, 'gateway_watcher_attestations_total{chain="btc",network="testnet",provider="liar",answer="reported"}'), 3);

    // Passed over: the next passes ask the honest provider, and the liar not at all; the invoice still waits.
    const liarAsked = liar.asked().length;
    await pass(s);
    await passWhenDue(s);
    t.is(liar.asked().length, liarAsked, 'the marked liar is asked nothing');
    t.true(honest.asked('/blocks/tip/height').length >= 2);
    t.like(await get(s, target.id), { status: 'detected', confirmations: 0 });
    t.like(await desk.get(open!.id), { status: 'open', reportedBy: ['liar'], deniedBy: ['honest'] }, 'what the marked liar said stays on record');

    t.is(await codeOf(desk.decide(open!.id, 'reject', CLI_ACTOR, 'invented by liar')), 'disagreement_not_ripe');
    t.is(await codeOf(desk.decide(open!.id, 'reject', CLI_ACTOR, '  ')), 'validation_error', 'a reason is required');
    await ripen(s, open!.id);
    t.is(await metric(s, 'gateway_watcher_disagreements{chain="btc",network="testnet",state="awaiting_decision"}'), 1);
    const rejected = await desk.decide(open!.id, 'reject', CLI_ACTOR, 'invented by liar: honest has the block without it');
    t.like(rejected, { status: 'rejected', decidedBy: 'operator-cli', reason: 'invented by liar: honest has the block without it' });
    t.like(await get(s, target.id), { status: 'pending' }, 'dropped: the invoice waits for a real payment');
    t.like(await transferOf(s, target.id), { status: 'reverted', attestation: null });
    t.truthy((await transferOf(s, target.id)).rejected_at);
    const audit = await s.gw.kernel.cradle.db('kernel_audit_log').where({ action: 'watcher.disagreement_reject' });
    t.like(audit[0], { actor: 'operator-cli', channel: 'cli', project_id: s.project.projectId, target: `disagreement:${open!.id}` });
    t.is(await codeOf(desk.decide(open!.id, 'accept', CLI_ACTOR, 'changed my mind')), 'disagreement_closed');
    t.is(await metric(s, 'gateway_watcher_disagreements{chain="btc",network="testnet",state="awaiting_decision"}'), 0);

    // Reported again (a rescan through the liar), the rejected transfer stays rejected.
    const row = await transferOf(s, target.id);
    const again: ObservedTransfer = {
      chain: 'btc',
      network: 'testnet',
      coin: 'btc',
      txHash: TXID,
      outputIndex: 1,
      toAddress: target.address,
      amountUnits: 24_099_800n,
      blockHeight: HEIGHT,
      blockHash: HASH,
      observedAt: new Date(),
    };
    const at = (await s.gw.kernel.cradle.watchersRegistry.get('btc', 'testnet')!.watched.lookup([target.address])).get(target.address)!;
    const outcome = await s.gw.kernel.cradle.db.transaction((trx) =>
      s.gw.kernel.cradle.watchersMatcher.recordMany(trx, [{ transfer: again, at }], HEIGHT, undefined, 2),
    );
    t.deepEqual(outcome, ['known']);
    t.like(await transferOf(s, target.id), { id: row.id, status: 'reverted' });
    t.like(await get(s, target.id), { status: 'pending' });

    // The operator clears the mark (audited); the liar is asked again from the next pass on.
    await desk.unmark('btc', 'testnet', 'liar', CLI_ACTOR);
    t.deepEqual(await desk.marks(), []);
    t.is(await codeOf(desk.unmark('btc', 'testnet', 'liar', CLI_ACTOR)), 'provider_not_marked');
    t.like(await s.gw.kernel.cradle.db('kernel_audit_log').where({ action: 'watcher.provider_unmark' }).first(), {
      actor: 'operator-cli',
      target: 'provider:btc:testnet:liar',
    });
    t.is(await metric(s, 'gateway_watcher_provider_marked{chain="btc",network="testnet",provider="liar"}'), 0);
    t.is(await codeOf(desk.get('01HZZZZZZZZZZZZZZZZZZZZZZZ')), 'disagreement_not_found');
  },
);

test.serial('a lagging second provider: confirmations wait for it, then the invoice is paid; nothing is lost or counted twice', async (t) => {
  const s = await setup(t, { first: { operator: 'alpha' }, behind: { operator: 'beta', tip: HEIGHT - 1 } });
  const { behind } = s.replays;
  const inv = await invoice(s, '0.01');
  t.is(inv.address, ADDRESS_0);
  for (let i = 0; i < 2; i++) {
    await pass(s);
    t.like(await get(s, inv.id), { status: 'detected', confirmations: 0 }, 'waits for the second provider');
  }
  t.is(behind.asked(`/block/`).length, 0, 'a provider below the threshold depth is asked its tip only');
  t.deepEqual(await s.gw.kernel.cradle.watchersDisagreements.list(), [], 'lagging is no disagreement');
  t.true((await metric(s, 'gateway_watcher_attestations_total{chain="btc",network="testnet",provider="behind",answer="lagging"}'))! >= 2);

  behind.tip = HEIGHT;
  await pass(s);
  const paid = await get(s, inv.id);
  t.like(paid, { status: 'paid', confirmations: 1 });
  t.is(paid.transactions.length, 1);
  t.like(paid.transactions[0], { tx_hash: TXID, output_index: 0, amount_units: '1000000', status: 'confirmed' });
  t.like(await transferOf(s, inv.id), { attestation: 'quorum', attested_by: ['first', 'behind'], confirmations: 1 });
  t.is((await s.gw.kernel.cradle.db('watchers_transfers').where({ invoice_id: inv.id })).length, 1, 'recorded once');
  const events = await eventsOf(s, inv.id);
  t.deepEqual(
    events.map((e) => e.type),
    ['invoice.detected', 'invoice.paid'],
  );
  t.is(events[1]!.data['paid_units'], '1000000');
  await pass(s);
  t.deepEqual(
    (await eventsOf(s, inv.id)).map((e) => e.type),
    ['invoice.detected', 'invoice.paid'],
    'nothing more',
  );
});

test.serial('an orphan payment is attributed only once the quorum reported it: refused while the second provider lags, a paid invoice after', async (t) => {
  const s = await setup(t, { first: { operator: 'alpha' }, behind: { operator: 'beta', tip: HEIGHT - 1 } });
  const { behind } = s.replays;
  // No invoice waits at address 0: the recorded payment to it is an orphan.
  await pass(s);
  const orphan = await s.gw.kernel.cradle.db('watchers_transfers').where({ tx_hash: TXID, output_index: 0 }).first();
  t.like(orphan, { to_address: ADDRESS_0, match: 'orphan', status: 'in_block', attestation: null });
  const attribute = () =>
    signedFetch(s.gw.url, `/api/v1/orphan-payments/${TXID}/attribute`, { ...s.project, method: 'POST', body: { external_id: 'stray-1' } });
  const early = await attribute();
  t.is(early.status, 409);
  t.like(early.body, { error_code: 'orphan_not_confirmed', details: { attested: false } });
  behind.tip = HEIGHT;
  await pass(s);
  t.like(await s.gw.kernel.cradle.db('watchers_transfers').where({ id: orphan.id }).first(), { attestation: 'quorum', attested_by: ['first', 'behind'] });
  const attributed = await attribute();
  t.is(attributed.status, 200, JSON.stringify(attributed.body));
  t.like(attributed.body, { status: 'paid', external_id: 'stray-1' });
});

test.serial(
  'a provider that has the block without the payment: the reporter is marked, the invoice waits; the operator accepts after the decision time and it is paid at once',
  async (t) => {
    const s = await setup(t, { honest: { operator: 'alpha' }, denier: { operator: 'beta', page: pageWithOutputTo(0, OTHER) } });
    const inv = await invoice(s, '0.01');
    await pass(s);
    t.like(await get(s, inv.id), { status: 'detected', confirmations: 0 });
    const desk = s.gw.kernel.cradle.watchersDisagreements;
    const [open] = await desk.list();
    t.like(open, { kind: 'contradiction', reportedBy: ['honest'], deniedBy: ['denier'], status: 'open', invoiceId: inv.id });
    t.deepEqual(await desk.marks(), []);
    // Safety over liveness: with two providers, the same answers after the backoff mark the one that reports; a denier can delay a payment, never credit one.
    await passWhenDue(s);
    t.deepEqual(await markedProviders(s), ['honest']);
    t.is(await codeOf(desk.decide(open!.id, 'accept', CLI_ACTOR, 'checked on my own node')), 'disagreement_not_ripe');
    await ripen(s, open!.id);
    const accepted = await desk.decide(open!.id, 'accept', CLI_ACTOR, 'checked on my own node');
    t.like(accepted, { status: 'accepted', decidedBy: 'operator-cli', reason: 'checked on my own node' });
    t.like(await get(s, inv.id), { status: 'paid', confirmations: 1 }, 'counted at once');
    t.like(await transferOf(s, inv.id), { attestation: 'operator', attested_by: ['honest'], confirmations: 1 });
    t.like(await s.gw.kernel.cradle.db('kernel_audit_log').where({ action: 'watcher.disagreement_accept' }).first(), {
      actor: 'operator-cli',
      project_id: s.project.projectId,
    });
    await desk.unmark('btc', 'testnet', 'honest', CLI_ACTOR);
    await pass(s);
    t.like(await get(s, inv.id), { status: 'paid' });
    t.deepEqual(
      (await eventsOf(s, inv.id)).map((e) => e.type),
      ['invoice.detected', 'invoice.paid'],
    );
  },
);

test.serial('agreement arriving later resolves a disagreement: a third provider catches up and reports the payment; nobody is marked', async (t) => {
  const s = await setup(
    t,
    { honest: { operator: 'alpha' }, denier: { operator: 'beta', page: pageWithOutputTo(0, OTHER) }, late: { operator: 'gamma', tip: HEIGHT - 1 } },
    2,
  );
  const { late } = s.replays;
  const inv = await invoice(s, '0.01');
  await pass(s);
  const desk = s.gw.kernel.cradle.watchersDisagreements;
  const [open] = await desk.list();
  t.like(open, { reportedBy: ['honest'], deniedBy: ['denier'], lagging: ['late'], status: 'open' });
  t.deepEqual(await desk.marks(), [], 'not every operator has answered: nobody is marked yet');
  t.like(await get(s, inv.id), { status: 'detected', confirmations: 0 });

  late.tip = HEIGHT;
  await pass(s);
  t.like(await get(s, inv.id), { status: 'detected' }, 'asked again only after the backoff');
  await passWhenDue(s);
  t.like(await desk.get(open!.id), { status: 'resolved', reportedBy: ['honest', 'late'], deniedBy: ['denier'], lagging: [] });
  t.like(await get(s, inv.id), { status: 'paid', confirmations: 1 });
  t.like(await transferOf(s, inv.id), { attestation: 'quorum', attested_by: ['honest', 'late'] });
  t.deepEqual(await desk.marks(), []);
  t.is(await codeOf(desk.decide(open!.id, 'reject', CLI_ACTOR, 'too late')), 'disagreement_closed');
  t.is(await metric(s, 'gateway_watcher_disagreements{chain="btc",network="testnet",state="open"}'), 0);
});

test.serial(
  'three operators, quorum 3, one denier: two reporters against one denier get nobody marked, however often asked; the payment waits on the desk and the operator accepts it',
  async (t) => {
    const s = await setup(
      t,
      { first: { operator: 'alpha' }, second: { operator: 'beta' }, denier: { operator: 'gamma', page: pageWithOutputTo(0, OTHER) } },
      3,
    );
    const inv = await invoice(s, '0.01');
    await pass(s);
    const desk = s.gw.kernel.cradle.watchersDisagreements;
    const [open] = await desk.list();
    t.like(open, { kind: 'contradiction', reportedBy: ['first', 'second'], deniedBy: ['denier'], lagging: [], status: 'open' });
    for (let round = 0; round < 3; round++) {
      await passWhenDue(s);
    }
    t.like(await desk.get(open!.id), { status: 'open', reportedBy: ['first', 'second'], deniedBy: ['denier'] });
    t.deepEqual(await desk.marks(), [], 'fewer denying operators than reporting ones: nobody is marked');
    for (const provider of ['first', 'second', 'denier']) {
      t.is(await metric(s, `gateway_watcher_provider_marked{chain="btc",network="testnet",provider="${provider}"}`), 0);
    }
    t.like(await get(s, inv.id), { status: 'detected', confirmations: 0 }, 'the payment waits: the quorum is 3');
    await ripen(s, open!.id);
    await desk.decide(open!.id, 'accept', CLI_ACTOR, 'two of three providers and my explorer have it');
    t.like(await get(s, inv.id), { status: 'paid', confirmations: 1 });
  },
);

test.serial(
  'a provider stuck behind the threshold: no disagreement at first, then, once the payment waited the decision time, an unattested one the operator can decide at once; the gauges show the wait',
  async (t) => {
    const s = await setup(t, { first: { operator: 'alpha' }, stuck: { operator: 'beta', tip: HEIGHT - 1 } });
    const { db } = s.gw.kernel.cradle;
    const inv = await invoice(s, '0.01');
    await pass(s);
    await pass(s);
    const desk = s.gw.kernel.cradle.watchersDisagreements;
    t.deepEqual(await desk.list(), [], 'lagging within the decision time is no disagreement');
    t.like(await get(s, inv.id), { status: 'detected', confirmations: 0 });
    t.truthy((await transferOf(s, inv.id)).attestation_asked_at, 'first asked at its threshold');
    t.is(await metric(s, 'gateway_watcher_unattested_transfers{chain="btc",network="testnet"}'), 1);
    t.true((await metric(s, 'gateway_watcher_unattested_oldest_seconds{chain="btc",network="testnet"}'))! < 1800);

    // The test stands for disagreementDecisionSeconds (1800) going by since the providers were first asked.
    await db('watchers_transfers')
      .where({ invoice_id: inv.id })
      .update({ attestation_asked_at: db.raw(`now() - interval '1801 seconds'`) });
    t.true((await metric(s, 'gateway_watcher_unattested_oldest_seconds{chain="btc",network="testnet"}'))! >= 1801);
    await pass(s);
    const [open] = await desk.list();
    t.like(open, {
      kind: 'unattested',
      status: 'open',
      invoiceId: inv.id,
      txHash: TXID,
      outputIndex: 0,
      reportedBy: ['first'],
      deniedBy: [],
      otherBranch: [],
      lagging: ['stuck'],
    });
    t.true(open!.decideAfter.getTime() <= Date.now(), 'the payment has waited the decision time already: the operator decides now');
    t.is(await metric(s, 'gateway_watcher_disagreements{chain="btc",network="testnet",state="awaiting_decision"}'), 1);
    t.deepEqual(await desk.marks(), [], 'a provider behind contradicts nobody');
    t.like(await get(s, inv.id), { status: 'detected', confirmations: 0 }, 'still not paid on one word');

    const accepted = await desk.decide(open!.id, 'accept', CLI_ACTOR, 'the stuck provider is down; my node has the payment');
    t.like(accepted, { status: 'accepted', kind: 'unattested' });
    t.like(await get(s, inv.id), { status: 'paid', confirmations: 1 });
    t.like(await transferOf(s, inv.id), { attestation: 'operator', attested_by: ['first'] });
    t.is(await metric(s, 'gateway_watcher_unattested_transfers{chain="btc",network="testnet"}'), 0);
    t.is(await metric(s, 'gateway_watcher_disagreements{chain="btc",network="testnet",state="awaiting_decision"}'), 0);
  },
);

test.serial(
  "a marked provider's old answers count for nothing: it once denied a payment two others report, and once it is marked (for inventing another), those two are not marked on its word",
  async (t) => {
    // forger scans first, and invents a transfer into the target's address (output 1); late is behind at first.
    const s = await setup(t, { forger: { operator: 'f-co' }, honest: { operator: 'h-co' }, late: { operator: 'l-co', tip: HEIGHT - 1 } }, 3);
    const { forger, late } = s.replays;
    const real = await invoice(s, '0.01');
    const target = await invoice(s, '0.240998');
    forger.page = pageWithOutputTo(1, target.address);
    await pass(s);
    const desk = s.gw.kernel.cradle.watchersDisagreements;
    const [invented] = await desk.list();
    t.like(invented, { outputIndex: 1, invoiceId: target.id, reportedBy: ['forger'], deniedBy: ['honest'], lagging: ['late'] });
    t.is((await desk.list()).length, 1, 'the real payment, reported by two and lagging at one, is no disagreement yet');

    // Now forger also denies the real payment (its output 0 pays another address), and late has caught up.
    forger.page = rewrittenPage(pageWithOutputTo(1, target.address), 0, OTHER);
    late.tip = HEIGHT;
    await passWhenDue(s);
    const realOne = (await desk.list()).find((d) => d.outputIndex === 0)!;
    t.like(realOne, { kind: 'contradiction', invoiceId: real.id, reportedBy: ['honest', 'late'], deniedBy: ['forger'] });
    t.deepEqual(await desk.marks(), []);
    await passWhenDue(s);
    t.deepEqual(
      await markedProviders(s),
      ['forger'],
      'the same answers twice: the one who alone reports the invented transfer against two deniers is marked; one denier against two reporters marks nobody',
    );

    // forger is marked: not asked, and what it denied before decides nothing.
    const forgerAsked = forger.asked().length;
    await passWhenDue(s);
    await passWhenDue(s);
    t.is(forger.asked().length, forgerAsked);
    t.deepEqual(await markedProviders(s), ['forger'], 'honest and late, reporting the real payment, are not marked on the word of a marked provider');
    t.like(
      await desk.get(realOne.id),
      { status: 'open', reportedBy: ['honest', 'late'], deniedBy: ['forger'] },
      'its old denial stays on record for the operator, and the payment waits: two operators are short of the quorum of 3',
    );
    t.like(await get(s, real.id), { status: 'detected' });
    await ripen(s, realOne.id);
    await desk.decide(realOne.id, 'accept', CLI_ACTOR, 'honest and late have it; forger is marked');
    t.like(await get(s, real.id), { status: 'paid' });
  },
);

test.serial(
  'every in-block receipt is attested, dust too (the treasury may spend it): not confirmed for the treasury while the second provider lags, confirmed once both report it',
  async (t) => {
    // A dust floor above the recorded 1,000,000 sats: the payment to address 0 is dust, given to no invoice.
    const s = await setup(t, { first: { operator: 'alpha' }, behind: { operator: 'beta', tip: HEIGHT - 1 } }, undefined, {
      'plugins.invoices.dustFloorUnits': { btc: '2000000' },
    });
    const outputs = s.gw.kernel.cradle.watchersOutputs;
    const outpoint = { txHash: TXID, outputIndex: 0 };
    await pass(s);
    const [dust] = await outputs.byOutpoints('btc', 'testnet', [outpoint]);
    t.like(dust, { match: 'dust', invoiceId: null, status: 'in_block', blockHeight: HEIGHT, attestation: null, confirmed: false });
    t.deepEqual((await outputs.list({ chain: 'btc', network: 'testnet', confirmedOnly: true, limit: 10 })).outputs, []);
    t.like((await outputs.balances({ groupBy: 'network', chain: 'btc', network: 'testnet', limit: 10 })).rows[0], {
      confirmedUnits: 0n,
      unconfirmedUnits: 1_000_000n,
    });
    s.replays.behind.tip = HEIGHT;
    await pass(s);
    const [attested] = await outputs.byOutpoints('btc', 'testnet', [outpoint]);
    t.like(attested, { match: 'dust', attestation: 'quorum', confirmed: true });
    t.like((await outputs.balances({ groupBy: 'network', chain: 'btc', network: 'testnet', limit: 10 })).rows[0], {
      confirmedUnits: 1_000_000n,
      unconfirmedUnits: 0n,
    });
  },
);
