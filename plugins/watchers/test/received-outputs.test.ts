/**
 * `watchersOutputs` (issue 35) against a real PostgreSQL database: the outputs listed page by page,
 * the filters, outputs by outpoint in any state, balances grouped by address, project and network
 * (confirmed, unconfirmed, unclaimed), the rewinder making spent outputs unspent again, and the
 * treasury of a network without one; on a network watched with a quorum (issue 40), an output in a
 * block the quorum has not attested is not confirmed. The transfers are written as rows, the states
 * the scanner, matcher and quorum verifier leave (the real-node test, btc-bcoin-spends.test.ts, has
 * the scanner write them; quorum-esplora.test.ts the verifier).
 */
import test from 'ava';
import { CLI_ACTOR, newId, sql, sqlQuery, type ChainId, type ChainTreasury, type WatcherOptions } from '@gw/kernel';
import type { TestKernel } from '@gw/kernel/testing';
import { ReceivedOutputsReads, WATCHERS_EXPORTS, type ReceivedOutput, type ReceivedOutputs } from '../src/index.js';
import { startWatchersKernel, UNSCANNED } from './scenario.js';
import type { WatcherRegistry } from '../src/services/watcher-registry.js';

let gw: TestKernel;
let outputs: ReceivedOutputs;
let p1: string;
let p2: string;
const ids: Record<string, string> = {};

interface Row {
  readonly name: string;
  readonly project: () => string;
  readonly network?: string;
  readonly address: string;
  readonly units: bigint;
  readonly status?: 'mempool' | 'in_block' | 'reverted';
  readonly match?: 'invoice' | 'late' | 'orphan' | 'ambiguous' | 'dust';
  readonly invoice?: string;
  readonly attributed?: boolean;
  readonly spentBy?: string;
  readonly spentHeight?: number;
  readonly receivedAt?: string;
}

const tx = (name: string) => name.padEnd(64, '0').replace(/[^0-9a-f]/g, 'f');

/**
 * Regtest outputs of two projects, in id order. Unspent and not reverted: a1, a2, a3, c1, c2, d1
 * (and e1 on testnet); a4 is spent, a5 reverted.
 */
const ROWS: Row[] = [
  { name: 'a1', project: () => p1, address: 'addr-a', units: 100n, invoice: 'INV1', receivedAt: '2026-01-01T00:00:00Z' },
  { name: 'a2', project: () => p1, address: 'addr-a', units: 50n, status: 'mempool', match: 'orphan' },
  { name: 'a3', project: () => p1, address: 'addr-a', units: 30n, match: 'late', invoice: 'INV2' },
  { name: 'a4', project: () => p1, address: 'addr-b', units: 70n, invoice: 'INV3', spentBy: tx('5bend'), spentHeight: 12 },
  { name: 'a5', project: () => p1, address: 'addr-b', units: 20n, status: 'reverted', invoice: 'INV4' },
  { name: 'c1', project: () => p1, address: 'addr-c', units: 5n, match: 'dust' },
  // An orphan attributed to a new paid invoice belongs to it: not unclaimed.
  { name: 'c2', project: () => p1, address: 'addr-c', units: 1000n, match: 'orphan', invoice: 'INV5', attributed: true },
  { name: 'd1', project: () => p2, address: 'addr-d', units: 40n, invoice: 'INV6' },
  { name: 'e1', project: () => p1, network: 'testnet', address: 'addr-e', units: 11n, match: 'ambiguous' },
];

test.before(async () => {
  // Watched but never scanned here (no pass runs): a network whose chain has no treasury, and one with two operators' providers (quorum 2).
  const twoOperators = {
    providers: [
      { name: 'a', url: 'http://127.0.0.1:9', operator: 'a-co' },
      { name: 'b', url: 'http://127.0.0.1:9', operator: 'b-co' },
    ],
  };
  gw = await startWatchersKernel({ eth: { sepolia: UNSCANNED }, btc: { signet: twoOperators } }, {}, { role: 'cli' });
  const { tenancyOperators, tenancyProjects, db } = gw.kernel.cradle;
  const operator = (await tenancyOperators.create('outputs', CLI_ACTOR)).id;
  p1 = (await tenancyProjects.create({ name: 'outputs-1', kind: 'testnet', operator }, CLI_ACTOR)).project.id;
  p2 = (await tenancyProjects.create({ name: 'outputs-2', kind: 'testnet', operator }, CLI_ACTOR)).project.id;
  for (const [i, row] of ROWS.entries()) {
    ids[row.name] = newId();
    const status = row.status ?? 'in_block';
    await db('watchers_transfers').insert({
      id: ids[row.name],
      chain: 'btc',
      network: row.network ?? 'regtest',
      coin: 'btc',
      tx_hash: tx(row.name),
      output_index: i,
      to_address: row.address,
      amount_units: row.units.toString(),
      block_height: status === 'mempool' ? null : 10,
      block_hash: status === 'mempool' ? null : tx('b10'),
      status,
      project_id: row.project(),
      pool_address_id: `POOL-${row.address}`,
      invoice_id: row.invoice ?? null,
      match: row.match ?? 'invoice',
      attributed_at: row.attributed ? new Date() : null,
      received_at: row.receivedAt ?? '2026-02-01T00:00:00Z',
      spent_by: row.spentBy ?? null,
      spent_height: row.spentHeight ?? null,
    });
  }
  outputs = gw.kernel.cradle.watchersOutputs;
});
test.after.always(async () => {
  await gw?.close();
});

const names = (list: readonly ReceivedOutput[]) => list.map((o) => ROWS.find((r) => ids[r.name] === o.id)!.name);
const REGTEST = { chain: 'btc' as ChainId, network: 'regtest' };

test.serial('watchersOutputs is exported to other plugins', (t) => {
  t.true(WATCHERS_EXPORTS.includes('watchersOutputs'));
});

test.serial('list pages the unspent outputs oldest first by id; reverted ones never, spent ones on request', async (t) => {
  const seen: string[] = [];
  let after: string | undefined;
  for (let page = 0; page < 10; page++) {
    const { outputs: batch, next } = await outputs.list({ ...REGTEST, limit: 2, ...(after ? { after } : {}) });
    seen.push(...names(batch));
    if (next === null) break;
    t.is(batch.length, 2);
    after = next;
  }
  t.deepEqual(seen, ['a1', 'a2', 'a3', 'c1', 'c2', 'd1']);

  const spent = await outputs.list({ ...REGTEST, spent: 'spent', limit: 10 });
  t.deepEqual(names(spent.outputs), ['a4']);
  t.like(spent.outputs[0], { spentBy: tx('5bend'), spentHeight: 12, amountUnits: 70n, status: 'in_block', projectId: p1, address: 'addr-b' });
  t.is(typeof spent.outputs[0]!.amountUnits, 'bigint');
  t.deepEqual(names((await outputs.list({ ...REGTEST, spent: 'any', limit: 10 })).outputs), ['a1', 'a2', 'a3', 'a4', 'c1', 'c2', 'd1']);

  const [a1] = (await outputs.list({ ...REGTEST, limit: 1 })).outputs;
  t.deepEqual(a1, {
    id: ids['a1']!,
    txHash: tx('a1'),
    outputIndex: 0,
    chain: 'btc',
    network: 'regtest',
    coin: 'btc',
    projectId: p1,
    address: 'addr-a',
    poolAddressId: 'POOL-addr-a',
    amountUnits: 100n,
    blockHeight: 10,
    status: 'in_block',
    attestation: null,
    confirmed: true,
    invoiceId: 'INV1',
    match: 'invoice',
    receivedAt: new Date('2026-01-01T00:00:00Z'),
    spentBy: null,
    spentHeight: null,
  });
});

test.serial('list filters: project, invoices, addresses, received before, minimum value, confirmed only', async (t) => {
  const list = async (query: Record<string, unknown>) => names((await outputs.list({ ...REGTEST, limit: 100, ...query })).outputs);
  t.deepEqual(await list({ projectId: p2 }), ['d1']);
  t.deepEqual(await list({ invoiceIds: ['INV1', 'INV2', 'INV3'] }), ['a1', 'a3'], 'INV3 paid a4, which is spent');
  t.deepEqual(await list({ addresses: ['addr-c'] }), ['c1', 'c2']);
  t.deepEqual(await list({ receivedBefore: new Date('2026-01-15T00:00:00Z') }), ['a1']);
  t.deepEqual(await list({ minUnits: 50n }), ['a1', 'a2', 'c2']);
  t.deepEqual(await list({ confirmedOnly: true }), ['a1', 'a3', 'c1', 'c2', 'd1']);
  t.deepEqual(names((await outputs.list({ chain: 'btc', network: 'testnet', limit: 100 })).outputs), ['e1']);
});

test.serial('byOutpoints answers the outputs named in any state, and leaves out the unknown', async (t) => {
  const found = await outputs.byOutpoints('btc', 'regtest', [
    { txHash: tx('a5'), outputIndex: 4 },
    { txHash: tx('a4'), outputIndex: 3 },
    { txHash: tx('a1'), outputIndex: 0 },
    { txHash: tx('a1'), outputIndex: 1 },
    { txHash: tx('e1'), outputIndex: 8 },
  ]);
  t.deepEqual(names(found), ['a1', 'a4', 'a5']);
  t.is(found.find((o) => o.id === ids['a5'])!.status, 'reverted');
  t.is(found.find((o) => o.id === ids['a4'])!.spentBy, tx('5bend'));
  t.deepEqual(await outputs.byOutpoints('btc', 'regtest', []), []);
});

test.serial(
  'balances by address: unspent value, confirmed and unconfirmed apart, unclaimed for orphans, late payments and dust; paged by cursor',
  async (t) => {
    const rows = [];
    let after: string | undefined;
    for (let page = 0; page < 10; page++) {
      const answer = await outputs.balances({ groupBy: 'address', chain: 'btc', limit: 1, ...(after ? { after } : {}) });
      rows.push(...answer.rows);
      if (answer.next === null) break;
      after = answer.next;
    }
    t.deepEqual(rows, [
      {
        chain: 'btc',
        network: 'regtest',
        coin: 'btc',
        projectId: p1,
        address: 'addr-a',
        confirmedUnits: 130n,
        unconfirmedUnits: 50n,
        outputs: 3,
        unclaimedUnits: 80n,
      },
      {
        chain: 'btc',
        network: 'regtest',
        coin: 'btc',
        projectId: p1,
        address: 'addr-c',
        confirmedUnits: 1005n,
        unconfirmedUnits: 0n,
        outputs: 2,
        unclaimedUnits: 5n,
      },
      {
        chain: 'btc',
        network: 'regtest',
        coin: 'btc',
        projectId: p2,
        address: 'addr-d',
        confirmedUnits: 40n,
        unconfirmedUnits: 0n,
        outputs: 1,
        unclaimedUnits: 0n,
      },
      {
        chain: 'btc',
        network: 'testnet',
        coin: 'btc',
        projectId: p1,
        address: 'addr-e',
        confirmedUnits: 11n,
        unconfirmedUnits: 0n,
        outputs: 1,
        unclaimedUnits: 11n,
      },
    ]);
    const one = await outputs.balances({ groupBy: 'address', ...REGTEST, projectId: p2, limit: 10 });
    t.deepEqual(
      one.rows.map((r) => r.address),
      ['addr-d'],
    );
    t.is(one.next, null);
  },
);

test.serial('balances by project and by network', async (t) => {
  const byProject = await outputs.balances({ groupBy: 'project', chain: 'btc', limit: 10 });
  t.deepEqual(byProject.rows, [
    { chain: 'btc', network: 'regtest', coin: 'btc', projectId: p1, confirmedUnits: 1135n, unconfirmedUnits: 50n, outputs: 5, unclaimedUnits: 85n },
    { chain: 'btc', network: 'regtest', coin: 'btc', projectId: p2, confirmedUnits: 40n, unconfirmedUnits: 0n, outputs: 1, unclaimedUnits: 0n },
    { chain: 'btc', network: 'testnet', coin: 'btc', projectId: p1, confirmedUnits: 11n, unconfirmedUnits: 0n, outputs: 1, unclaimedUnits: 11n },
  ]);
  const byNetwork = await outputs.balances({ groupBy: 'network', limit: 1 });
  t.deepEqual(byNetwork.rows, [
    { chain: 'btc', network: 'regtest', coin: 'btc', confirmedUnits: 1175n, unconfirmedUnits: 50n, outputs: 6, unclaimedUnits: 85n },
  ]);
  const rest = await outputs.balances({ groupBy: 'network', limit: 1, after: byNetwork.next! });
  t.deepEqual(
    rest.rows.map((r) => [r.network, r.confirmedUnits]),
    [['testnet', 11n]],
  );
  t.is(rest.next, null);
});

test.serial('a bad limit or cursor is a validation error', async (t) => {
  await t.throwsAsync(outputs.list({ ...REGTEST, limit: 0 }), { message: /limit/ });
  await t.throwsAsync(outputs.balances({ groupBy: 'address', limit: 1001 }), { message: /limit/ });
  const error = await t.throwsAsync(outputs.balances({ groupBy: 'project', limit: 5, after: 'not-a-cursor' }));
  t.like(error, { code: 'validation_error' });
  // A cursor of another grouping does not fit.
  const { next } = await outputs.balances({ groupBy: 'network', limit: 1 });
  await t.throwsAsync(outputs.balances({ groupBy: 'address', limit: 5, after: next! }), { message: /cursor/ });
});

test.serial('headHeight is the tip of the last pass, null before the first; treasuryOf is undefined without a treasury or a watcher', async (t) => {
  t.is(await outputs.headHeight('btc', 'regtest'), null);
  await gw.kernel.cradle.db('watchers_cursors').insert({ chain: 'btc', network: 'regtest', height: 11, head_height: 12 });
  t.is(await outputs.headHeight('btc', 'regtest'), 12);
  t.is(outputs.treasuryOf('eth', 'sepolia'), undefined, 'watched, but eth has no treasury');
  t.is(outputs.treasuryOf('btc', 'bitcoin'), undefined, 'not watched');
});

test.serial('a reorganisation below a spend makes the output unspent again, in the rewinder’s transaction', async (t) => {
  const { db, watchersRewinder } = gw.kernel.cradle;
  // Above height 12: a4's spend stays.
  await db.transaction((trx) => watchersRewinder.rewind(trx, 'btc', 'regtest', 12));
  t.is((await outputs.byOutpoints('btc', 'regtest', [{ txHash: tx('a4'), outputIndex: 3 }]))[0]!.spentBy, tx('5bend'));
  // The spending block (12) is undone; the output's own block (10) stays.
  await db.transaction((trx) => watchersRewinder.rewind(trx, 'btc', 'regtest', 11));
  const [a4] = await outputs.byOutpoints('btc', 'regtest', [{ txHash: tx('a4'), outputIndex: 3 }]);
  t.like(a4, { spentBy: null, spentHeight: null, status: 'in_block' });
  const [row] = await sqlQuery<{ n: string }>(db, sql`select count(*) as n from watchers_transfers where spent_by is not null`);
  t.is(Number(row!.n), 0);
});

test.serial('treasuryOf builds a chain’s treasury once per network, over the watcher’s own providers and network definition', async (t) => {
  const { db, watchersRegistry } = gw.kernel.cradle;
  const real = watchersRegistry.get('eth', 'sepolia')!;
  const built: WatcherOptions[] = [];
  const treasury = { sizeUnit: 'vbyte' } as ChainTreasury;
  // The real eth/sepolia target, its adapter given a createTreasury, as a chain with a treasury has.
  const target = { ...real, adapter: { ...real.adapter, createTreasury: (options: WatcherOptions) => (built.push(options), treasury) } };
  const registry = { get: (chain: string, network: string) => (chain === 'eth' && network === 'sepolia' ? target : undefined) } as unknown as WatcherRegistry;
  const reads = new ReceivedOutputsReads({ db, watchersRegistry: registry });
  t.is(reads.treasuryOf('eth', 'sepolia'), treasury);
  t.is(reads.treasuryOf('eth', 'sepolia'), treasury);
  t.is(reads.treasuryOf('eth', 'mainnet'), undefined);
  t.is(built.length, 1);
  t.is(built[0]!.providers, real.providers!);
  t.is(built[0]!.network.id, 'sepolia');
});

test.serial(
  'on a network watched with a quorum, an output in a block the quorum has not attested is neither confirmed nor counted as such; attested or accepted ones are; reads of every in-block output (for reconciliation) list both',
  async (t) => {
    const { db } = gw.kernel.cradle;
    t.is(gw.kernel.cradle.watchersRegistry.get('btc', 'signet')!.quorum, 2);
    const rows = {
      waiting: { status: 'in_block', attestation: null, units: 1000n },
      attested: { status: 'in_block', attestation: 'quorum', units: 200n },
      accepted: { status: 'in_block', attestation: 'operator', units: 30n },
      pending: { status: 'mempool', attestation: null, units: 4n },
    } as const;
    const signet: Record<string, string> = {};
    for (const [i, [name, row]] of Object.entries(rows).entries()) {
      signet[name] = newId();
      await db('watchers_transfers').insert({
        id: signet[name],
        chain: 'btc',
        network: 'signet',
        coin: 'btc',
        tx_hash: tx(`f${i}`),
        output_index: 0,
        to_address: 'addr-q',
        amount_units: row.units.toString(),
        block_height: row.status === 'mempool' ? null : 20,
        block_hash: row.status === 'mempool' ? null : tx('b20'),
        status: row.status,
        attestation: row.attestation,
        attested_at: row.attestation === null ? null : new Date(),
        attested_by: row.attestation === 'quorum' ? ['a', 'b'] : null,
        project_id: p1,
        pool_address_id: 'POOL-addr-q',
        match: 'orphan',
        received_at: '2026-03-01T00:00:00Z',
      });
    }
    const SIGNET = { chain: 'btc' as ChainId, network: 'signet' };
    const named = (list: readonly ReceivedOutput[]) => list.map((o) => Object.keys(signet).find((name) => signet[name] === o.id));
    t.deepEqual(named((await outputs.list({ ...SIGNET, confirmedOnly: true, limit: 10 })).outputs), ['attested', 'accepted']);
    t.deepEqual(named((await outputs.list({ ...SIGNET, inBlockOnly: true, limit: 10 })).outputs), ['waiting', 'attested', 'accepted']);
    const all = (await outputs.list({ ...SIGNET, limit: 10 })).outputs;
    t.deepEqual(named(all), ['waiting', 'attested', 'accepted', 'pending']);
    t.deepEqual(
      all.map((o) => [o.status, o.attestation, o.confirmed]),
      [
        ['in_block', null, false],
        ['in_block', 'quorum', true],
        ['in_block', 'operator', true],
        ['mempool', null, false],
      ],
    );
    const [waiting] = await outputs.byOutpoints('btc', 'signet', [{ txHash: tx('f0'), outputIndex: 0 }]);
    t.like(waiting, { id: signet['waiting'], status: 'in_block', blockHeight: 20, attestation: null, confirmed: false });
    const [balance] = (await outputs.balances({ groupBy: 'network', ...SIGNET, limit: 10 })).rows;
    t.like(balance, { confirmedUnits: 230n, unconfirmedUnits: 1004n, outputs: 4 });
    // Quorum 1 as before: btc/regtest's in-block rows, never attested here, are confirmed.
    t.true((await outputs.list({ ...REGTEST, confirmedOnly: true, limit: 10 })).outputs.every((o) => o.confirmed && o.attestation === null));
  },
);
