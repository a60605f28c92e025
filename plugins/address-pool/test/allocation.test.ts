import test, { type ExecutionContext } from 'ava';
import { ethChain } from '@gw/chain-eth';
import { tonChain } from '@gw/chain-ton';
import { tronChain } from '@gw/chain-tron';
import { type AppError, type ChainId, CLI_ACTOR, isAppError, sql, sqlQuery } from '@gw/kernel';
import { startTestKernel, type TestKernel } from '@gw/kernel/testing';
import { addressPoolPlugin, type Allocation } from '@gw/plugin-address-pool';
import { tenancyPlugin } from '@gw/plugin-tenancy';
import { walletsPlugin } from '@gw/plugin-wallets';
import { projectWithWallets, startPoolKernel } from './helpers.js';

// No worker role: nothing replenishes behind the tests' backs; they call the replenisher directly.
let gw: TestKernel, operatorId: string;
test.before(async () => {
  ({ gw, operatorId } = await startPoolKernel({
    chains: [ethChain, tronChain, tonChain],
    role: 'gateway',
    config: { 'plugins.address-pool.targetFree': 150 },
    operator: 'pool-alloc',
  }));
});
test.after.always(async () => {
  await gw?.close();
});

function allocate(projectId: string, chain: ChainId, invoiceRef = 'inv'): Promise<Allocation> {
  return gw.kernel.cradle.db.transaction((trx) => gw.kernel.cradle.addressPoolService.allocate(trx, { projectId, chain, invoiceRef }));
}

function release(addressId: string): Promise<void> {
  return gw.kernel.cradle.db.transaction((trx) => gw.kernel.cradle.addressPoolService.release(trx, addressId));
}

async function errorOf(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (isAppError(error)) return error;
    throw error;
  }
  throw new Error('expected an AppError');
}

test('200 parallel allocations over 150 free rows: the pool grows on the request path, no address is shared below the hard cap', async (t) => {
  const { addressPoolReplenisher, db } = gw.kernel.cradle;
  const projectId = await projectWithWallets(gw, operatorId, ['eth']);
  const [report] = await addressPoolReplenisher.replenish({ projectId, chain: 'eth' });
  t.is(report!.derived, 150);

  const results = await Promise.all(Array.from({ length: 200 }, (_, i) => allocate(projectId, 'eth', `inv-${i}`)));
  t.deepEqual(
    results.filter((r) => r.isOverlay),
    [],
    'no overlay while the pool can grow',
  );
  t.is(new Set(results.map((r) => r.address)).size, 200, 'every allocation got its own address');

  const rows = await db('address_pool_addresses').where({ project_id: projectId });
  const allocated = rows.filter((r) => r.state === 'allocated');
  t.is(allocated.length, 200);
  t.true(allocated.every((r) => r.active_allocations === 1));
  const indexes = rows.map((r) => r.derivation_index).sort((a, b) => a - b);
  t.deepEqual(
    indexes,
    Array.from({ length: rows.length }, (_, i) => i),
    'growth continues the derivation without holes or repeats',
  );
});

/** A kernel whose pools stop at `hardCap` rows (so overlay can happen), with a project's filled eth pool. */
async function cappedPool(
  t: ExecutionContext,
  hardCap: number,
): Promise<{ capped: TestKernel; projectId: string; allocateIn: (invoiceRef: string) => Promise<Allocation> }> {
  const capped = await startTestKernel({
    plugins: [tenancyPlugin, walletsPlugin, addressPoolPlugin],
    chains: [ethChain],
    role: 'gateway',
    config: { 'plugins.address-pool.targetFree': hardCap, 'plugins.address-pool.hardCap': hardCap },
  });
  t.teardown(() => capped.close());
  const projectId = await projectWithWallets(capped, (await capped.kernel.cradle.tenancyOperators.create('pool-overlay', CLI_ACTOR)).id, ['eth']);
  await capped.kernel.cradle.addressPoolReplenisher.replenish({ projectId, chain: 'eth' });
  const { db, addressPoolService } = capped.kernel.cradle;
  return { capped, projectId, allocateIn: (invoiceRef) => db.transaction((trx) => addressPoolService.allocate(trx, { projectId, chain: 'eth', invoiceRef })) };
}

test('overlay only when the pool cannot grow: 30 parallel allocations over 20 rows at a hard cap of 20 share the allocated ones', async (t) => {
  const { capped, projectId, allocateIn } = await cappedPool(t, 20);
  const results = await Promise.all(Array.from({ length: 30 }, (_, i) => allocateIn(`inv-${i}`)));
  const fresh = results.filter((r) => !r.isOverlay);
  const overlay = results.filter((r) => r.isOverlay);
  t.is(fresh.length, 20);
  t.is(new Set(fresh.map((r) => r.address)).size, 20);
  t.is(overlay.length, 10);
  const freshAddresses = new Set(fresh.map((r) => r.address));
  t.true(
    overlay.every((r) => freshAddresses.has(r.address)),
    'overlay reuses allocated addresses only',
  );
  const rows = await capped.kernel.cradle.db('address_pool_addresses').where({ project_id: projectId });
  t.is(rows.length, 20);
  t.is(
    rows.reduce((sum, r) => sum + r.active_allocations, 0),
    30,
  );
});

test('release puts an address into cooldown; it is reused once the cooldown is over', async (t) => {
  const { addressPoolReplenisher, db } = gw.kernel.cradle;
  const projectId = await projectWithWallets(gw, operatorId, ['eth']);
  await addressPoolReplenisher.replenish({ projectId, chain: 'eth' });
  const first = await allocate(projectId, 'eth', 'a');
  t.is(first.derivationIndex, 0);
  t.is(first.derivationPath, "m/44'/60'/0'/0/0");
  t.is(first.address, '0x9858EfFD232B4033E47d90003D41EC34EcaEda94');
  await release(first.addressId);
  const cooled = await db('address_pool_addresses').where({ id: first.addressId }).first();
  t.is(cooled.state, 'cooldown');
  const rest = new Date(cooled.cooldown_until).getTime() - Date.now();
  t.true(rest > 86_000_000 && rest <= 86_400_000, 'default cooldown 24 h');
  await release(first.addressId); // releasing again changes nothing
  t.is((await db('address_pool_addresses').where({ id: first.addressId }).first()).state, 'cooldown');

  const second = await allocate(projectId, 'eth', 'b');
  t.is(second.derivationIndex, 1, 'a cooling address is not handed out');

  await db('address_pool_addresses')
    .where({ id: first.addressId })
    .update({ cooldown_until: new Date(Date.now() - 1000) });
  const third = await allocate(projectId, 'eth', 'c');
  t.is(third.addressId, first.addressId, 'reused after the cooldown, lowest index first');
  t.false(third.isOverlay);
  const row = await db('address_pool_addresses').where({ id: first.addressId }).first();
  t.is(row.allocation_count, 2);
  t.is(row.cooldown_until, null);
});

test('an overlaid address goes into cooldown only when its last holder releases it', async (t) => {
  const { capped, allocateIn } = await cappedPool(t, 1);
  const { db, addressPoolService } = capped.kernel.cradle;
  const releaseIn = (addressId: string) => db.transaction((trx) => addressPoolService.release(trx, addressId));
  const a = await allocateIn('a');
  const b = await allocateIn('b');
  t.false(a.isOverlay);
  t.true(b.isOverlay);
  t.is(b.addressId, a.addressId);
  await releaseIn(a.addressId);
  t.like(await db('address_pool_addresses').where({ id: a.addressId }).first(), { state: 'allocated', active_allocations: 1 });
  await releaseIn(a.addressId);
  t.like(await db('address_pool_addresses').where({ id: a.addressId }).first(), { state: 'cooldown', active_allocations: 0 });
});

test('TRON hands out activated addresses only', async (t) => {
  const { addressPoolReplenisher, addressPoolService, addressPoolStatus, db } = gw.kernel.cradle;
  const projectId = await projectWithWallets(gw, operatorId, ['tron', 'eth']);
  await addressPoolReplenisher.replenish({ projectId });
  const none = await errorOf(allocate(projectId, 'tron'));
  t.is(none.code, 'tron_no_activated_addresses_available');
  t.is(none.status, 422);

  const [status] = await addressPoolStatus.status({ projectId, chain: 'tron' });
  t.is(status!.activated, 0);
  t.is(status!.available, 0, 'free rows waiting for activation are not available for invoices');
  t.is(status!.awaiting_activation[0], 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH');
  const target = (await db('address_pool_addresses').where({ project_id: projectId, chain: 'tron', derivation_index: 3 }).first()).address;
  const activated = await addressPoolService.activate({ projectId, chain: 'tron', address: target }, CLI_ACTOR);
  t.is(activated.derivation_index, 3);
  const audit = await db('kernel_audit_log').where({ project_id: projectId, action: 'address_pool.activate' });
  t.is(audit.length, 1);
  t.like((await addressPoolStatus.status({ projectId, chain: 'tron' }))[0], { activated: 1, available: 1 });

  const got = await allocate(projectId, 'tron', 'x');
  t.is(got.address, target);
  t.false(got.isOverlay);
  const shared = await allocate(projectId, 'tron', 'y');
  t.is(shared.address, target, 'inactive rows are never used, even when free');
  t.true(shared.isOverlay);

  t.is((await errorOf(addressPoolService.activate({ projectId, chain: 'eth', address: target }, CLI_ACTOR))).code, 'activation_not_required');
  t.is(
    (await errorOf(addressPoolService.activate({ projectId, chain: 'tron', address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' }, CLI_ACTOR))).code,
    'pool_address_not_found',
  );
});

test('allocation needs a verified wallet; an empty pool of a verified wallet grows on the request path', async (t) => {
  const { tenancyProjects, walletsWallets } = gw.kernel.cradle;
  const projectId = (await tenancyProjects.create({ name: `p-${Date.now()}`, kind: 'production', operator: operatorId }, CLI_ACTOR)).project.id;
  t.is((await errorOf(allocate(projectId, 'eth'))).code, 'wallet_not_bound');
  const { ethWallet } = await import('@gw/testing');
  await walletsWallets.register({ projectId, chain: 'eth', xpub: ethWallet.xpub }, CLI_ACTOR);
  t.is((await errorOf(allocate(projectId, 'eth'))).code, 'xpub_not_verified');

  const verified = await projectWithWallets(gw, operatorId, ['eth']);
  const first = await allocate(verified, 'eth');
  t.like(first, { derivationIndex: 0, isOverlay: false, address: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94' });
  const rows = await gw.kernel.cradle.db('address_pool_addresses').where({ project_id: verified }).orderBy('derivation_index');
  t.is(rows.length, 20, 'one growth derives a chunk for the burst behind it');
  t.deepEqual(
    rows.filter((r) => r.state === 'allocated').map((r) => r.derivation_index),
    [0],
  );
});

test('TON stops at subwallet index 32767', async (t) => {
  const { addressPoolReplenisher, db } = gw.kernel.cradle;
  const projectId = await projectWithWallets(gw, operatorId, ['ton']);
  const [first] = await addressPoolReplenisher.replenish({ projectId, chain: 'ton' });
  t.is(first!.derived, 150);
  // Pretend the pool already reached the top of the subwallet range.
  await db('address_pool_addresses').where({ project_id: projectId }).where('derivation_index', '<', 149).delete();
  await db('address_pool_addresses').where({ project_id: projectId, derivation_index: 149 }).update({ derivation_index: 32765 });
  const [report] = await addressPoolReplenisher.replenish({ projectId, chain: 'ton' });
  t.is(report!.derived, 2);
  const highest = await db('address_pool_addresses').where({ project_id: projectId }).max<{ max: number }[]>('derivation_index as max');
  t.is(highest[0]!.max, 32767);
});

test('the gap gauge: highest allocated index minus highest index released after use', async (t) => {
  const { addressPoolReplenisher, addressPoolStatus } = gw.kernel.cradle;
  const projectId = await projectWithWallets(gw, operatorId, ['eth']);
  await addressPoolReplenisher.replenish({ projectId, chain: 'eth' });
  const allocations: Allocation[] = [];
  for (let i = 0; i < 5; i++) allocations.push(await allocate(projectId, 'eth', `g${i}`));
  t.is((await addressPoolStatus.status({ projectId }))[0]!.gap, 5, 'indexes 0..4 allocated, none used yet');
  await release(allocations[1]!.addressId);
  const [status] = await addressPoolStatus.status({ projectId });
  t.like(status, { gap: 3, highest_allocated_index: 4, highest_used_index: 1, allocated: 4, cooldown: 1, available: 145, total: 150 });
  const metrics = await (await fetch(`${gw.url}/metrics`)).text();
  // Per chain, never per project (bounded cardinality, issue 26 finding 5); other tests' eth pools count too.
  t.false(metrics.includes(projectId), 'no series names a project');
  const value = (name: string) => Number(new RegExp(`^${name}\\{chain="eth"\\} (\\d+)$`, 'm').exec(metrics)?.[1]);
  t.true(
    value('gateway_address_pool_gap_max') >= 3,
    metrics
      .split('\n')
      .filter((l) => l.includes('address_pool'))
      .join('\n'),
  );
  t.true(value('gateway_address_pool_free_min') <= 145);
  t.true(value('gateway_address_pool_free') >= 145);
  t.regex(metrics, /gateway_address_pool_allocations_total\{chain="eth",mode="fresh"\} \d+/);
});

test('the free-row lookups walk the free-row index, never the allocated rows, even with planner statistics from a full pool', async (t) => {
  const { addressPoolReplenisher, addressPoolService, db } = gw.kernel.cradle;
  const projectId = await projectWithWallets(gw, operatorId, ['eth']);
  await addressPoolReplenisher.replenish({ projectId, chain: 'eth' });
  // A pool of production size: rows past the derived ones, copied from the last derived row with
  // made-up addresses (the lookup only reads wallet, state and index).
  await db.raw(
    `insert into address_pool_addresses (id, project_id, chain, wallet_id, derivation_index, address, derivation_path, state, activated)
     select substr(md5(random()::text), 1, 26), project_id, chain, wallet_id, derivation_index + g, address || '-' || g, derivation_path, 'available', activated
       from address_pool_addresses, generate_series(1, 20000) g
      where project_id = ? and derivation_index = (select max(derivation_index) from address_pool_addresses where project_id = ?)`,
    [projectId, projectId],
  );
  // Statistics taken while every row is free: the state in which the benchmark's planner once
  // preferred a unique (wallet, index) index and filtered out every allocated row on each
  // allocation (migration 0002 leaves the partial index as the only one giving that order).
  await db.raw('analyze address_pool_addresses');
  await db.raw(
    `update address_pool_addresses set state = 'allocated', active_allocations = 1, allocation_count = 1 where project_id = ? and derivation_index < 5000`,
    [projectId],
  );
  const allocations = async (refs: string[]) =>
    db.transaction((trx) => Promise.all(refs.map((invoiceRef) => addressPoolService.allocate(trx, { projectId, chain: 'eth', invoiceRef }))));
  const statements: { sql: string; bindings: unknown[] }[] = [];
  const capture = (query: { sql: string; bindings?: unknown[] }) => statements.push({ sql: query.sql, bindings: query.bindings ?? [] });
  db.on('query', capture);
  try {
    await allocations(['probe-1']);
  } finally {
    db.off('query', capture);
  }
  const lookup = statements.find((s) => s.sql.includes('for update skip locked'));
  t.truthy(lookup, 'allocate ran its free-row lookup');
  // The captured text has pg's $n placeholders: explained on a connection of the pool directly.
  const connection = await db.client.acquireConnection();
  const plan = await connection
    .query(`explain (format json) ${lookup!.sql}`, lookup!.bindings)
    .then((result: { rows: unknown[] }) => JSON.stringify(result.rows))
    .finally(() => db.client.releaseConnection(connection));
  t.true(plan.includes('address_pool_addresses_free'), `the partial free-row index is used: ${plan}`);
  t.false(/"Index Name":"address_pool_addresses_wallet_index_unique"/.test(plan), 'the unique index is not walked');

  // The batched picks of the create path (rows and the low-watermark count): the same index, and
  // no sequential scan of the pool (a count without an order once became one).
  const picks = addressPoolService.freshPicks([{ projectId, chain: 'eth', wanted: 3 }]);
  const batched = JSON.stringify(await sqlQuery(db, sql`explain (format json) with ${picks.ctes} select ${picks.result} as pools`));
  t.true(batched.includes('address_pool_addresses_free'), `the partial free-row index is used: ${batched}`);
  t.false(
    /"Relation Name":"address_pool_addresses"[^}]*"Node Type":"Seq Scan"|"Node Type":"Seq Scan"[^}]*"Relation Name":"address_pool_addresses"/.test(batched),
    `no sequential scan of the pool: ${batched}`,
  );
  t.false(/"Index Name":"address_pool_addresses_wallet_index_unique"/.test(batched), 'the unique index is not walked');
  const [read] = await sqlQuery<{ pools: unknown }>(db, sql`with ${picks.ctes} select ${picks.result} as pools`);
  const [group] = picks.read(read!.pools);
  t.deepEqual(
    group!.picks.map((p) => p.derivationIndex),
    [5001, 5002, 5003],
    'the lowest free rows (5000 went to the probe)',
  );
  t.is(group!.walletError, undefined);
});

test('takeSql, the part lent to invoice creation (ADR 0003), allocates exactly the named picked rows and returns its declared columns', async (t) => {
  const { addressPoolReplenisher, addressPoolService, db } = gw.kernel.cradle;
  const projectId = await projectWithWallets(gw, operatorId, ['eth']);
  await addressPoolReplenisher.replenish({ projectId, chain: 'eth' });
  const picks = addressPoolService.freshPicks([{ projectId, chain: 'eth', wanted: 2 }]);
  const { first, second, taken, again, columns } = await db.transaction(async (trx) => {
    const [read] = await sqlQuery<{ pools: unknown }>(trx, sql`with ${picks.ctes} select ${picks.result} as pools`);
    const [group] = picks.read(read!.pools);
    const take = (addressId: string) => addressPoolService.takeSql(sql`select ${addressId}::text, ${'inv-take'}::text`);
    const part = take(group!.picks[0]!.addressId);
    return {
      first: group!.picks[0]!.addressId,
      second: group!.picks[1]!.addressId,
      columns: part.columns,
      taken: await sqlQuery<Record<string, unknown>>(trx, sql`with taken as (${part}) select * from taken`),
      // A row already allocated is left alone and missing from the result.
      again: await sqlQuery<Record<string, unknown>>(trx, sql`with taken as (${take(group!.picks[0]!.addressId)}) select * from taken`),
    };
  });
  t.deepEqual(taken, [{ id: first }]);
  t.deepEqual(Object.keys(taken[0]!), [...columns], 'exactly the columns the contract declares');
  t.deepEqual(again, []);
  const rows = await db('address_pool_addresses').whereIn('id', [first, second]).select('id', 'state', 'active_allocations', 'last_invoice_ref');
  t.like(
    rows.find((r) => r.id === first),
    { state: 'allocated', active_allocations: 1, last_invoice_ref: 'inv-take' },
  );
  t.like(
    rows.find((r) => r.id === second),
    { state: 'available', active_allocations: 0 },
    'a picked row that was not named stays free',
  );
});
