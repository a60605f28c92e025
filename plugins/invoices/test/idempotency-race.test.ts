import test from 'ava';
import { CLI_ACTOR } from '@gw/kernel';
import { signedFetch, type TestKernel } from '@gw/kernel/testing';
import { projectWithPools, saturatePools, startInvoicesKernel } from './helpers.js';

let gw: TestKernel;
test.before(async () => {
  gw = await startInvoicesKernel({ 'database.poolMax': 30 });
});
test.after.always(async () => {
  await gw?.close();
});

/** `n` creates of 1 ADA submitted at once to the creator service (external ids `<prefix>-<i>`), every query seen by `capture` while they run. */
async function createAtOnce(projectId: string, prefix: string, n: number, capture: (query: { sql: string }) => void) {
  const { db, tenancyProjects, invoicesCreator } = gw.kernel.cradle;
  const principal = (await tenancyProjects.principal(projectId))!;
  db.on('query', capture);
  return Promise.all(
    Array.from({ length: n }, (_, i) => invoicesCreator.create(principal, { external_id: `${prefix}-${i}`, amount_crypto: '1', coin: 'ada' }, CLI_ACTOR)),
  ).finally(() => db.off('query', capture));
}

test('N parallel identical creates: exactly one 201, the rest 200 with the same invoice, one address used', async (t) => {
  const operatorId = (await gw.kernel.cradle.tenancyOperators.create('race', CLI_ACTOR)).id;
  const p = await projectWithPools(gw, operatorId, ['eth']);
  const N = 24;
  for (const [round, body] of [
    { external_id: 'race-usd', amount_usd: 49.99, coin: 'usdt_erc20' },
    { external_id: 'race-crypto', amount_crypto: '0.25', coin: 'eth', metadata: { cart: [1, 2, 3] } },
  ].entries()) {
    const responses = await Promise.all(Array.from({ length: N }, () => signedFetch(gw.url, '/api/v1/invoices', { ...p, method: 'POST', body })));
    const statuses = responses.map((r) => r.status).sort();
    t.is(statuses.length, N);
    t.is(statuses.filter((s) => s === 201).length, 1, `round ${round}: ${JSON.stringify(statuses)}`);
    t.is(statuses.filter((s) => s === 200).length, N - 1);
    const ids = new Set(responses.map((r) => r.body.id));
    t.is(ids.size, 1);
    const winner = responses.find((r) => r.status === 201)!.body;
    for (const r of responses) t.deepEqual(r.body, winner);

    const { db } = gw.kernel.cradle;
    t.is(Number((await db('invoices_invoices').where({ project_id: p.projectId, external_id: body.external_id }).count('* as n'))[0]!.n), 1);
    const holders = await db('address_pool_addresses').where({ project_id: p.projectId, last_invoice_ref: winner.id });
    t.is(holders.length, 1);
    t.is(holders[0].active_allocations, 1);
    t.is(
      Number(
        (
          await db('kernel_audit_log')
            .where({ action: 'invoice.create', target: `invoice:${winner.id}` })
            .count('* as n')
        )[0]!.n,
      ),
      1,
    );
  }
  // Exactly two addresses are held in the whole pool: one per created invoice.
  t.is(Number((await gw.kernel.cradle.db('address_pool_addresses').where({ project_id: p.projectId }).sum('active_allocations as n'))[0]!.n), 2);
});

test('parallel creates of different invoices are batched: fresh addresses first, then shared ones, each request its own outcome', async (t) => {
  const operatorId = (await gw.kernel.cradle.tenancyOperators.create('parallel', CLI_ACTOR)).id;
  const p = await projectWithPools(gw, operatorId, ['ada']);
  await saturatePools(gw, p.projectId);
  const { db } = gw.kernel.cradle;
  const free = Number((await db('address_pool_addresses').where({ project_id: p.projectId, state: 'available' }).count('* as n'))[0]!.n);
  const N = 30;
  const responses = await Promise.all(
    Array.from({ length: N }, (_, i) =>
      signedFetch(gw.url, '/api/v1/invoices', {
        ...p,
        method: 'POST',
        body: { external_id: `par-${i}`, amount_crypto: '1', coin: 'ada', ...(i % 10 === 9 ? { matching_mode: 'any' } : {}) },
      }),
    ),
  );
  const created = responses.filter((r) => r.status === 201);
  const refused = responses.filter((r) => r.status !== 201);
  // Only `exact` may share an address; an `any` request either got a fresh address or was refused.
  for (const r of refused) t.is(r.body.error_code, 'overlay_matching_mode_required_exact');
  t.is(new Set(created.map((r) => r.body.id)).size, created.length);
  t.is(new Set(created.map((r) => r.body.payment_token)).size, created.length);
  t.is(
    new Set(created.filter((r) => r.body.matching_mode === 'any').map((r) => r.body.address)).size,
    created.filter((r) => r.body.matching_mode === 'any').length,
  );
  t.is(new Set(created.map((r) => r.body.address)).size, free, 'every free address used, then shared');
  t.is(Number((await db('address_pool_addresses').where({ project_id: p.projectId }).sum('active_allocations as n'))[0]!.n), created.length);
  t.is(Number((await db('invoices_invoices').where({ project_id: p.projectId }).count('* as n'))[0]!.n), created.length);
  t.is(Number((await db('kernel_audit_log').where({ project_id: p.projectId, action: 'invoice.create' }).count('* as n'))[0]!.n), created.length);

  // Batched, counted: 30 creates submitted in one tick form at most three batches (one alone, as nothing
  // ran; 25, the size a busy batcher waits for; the last 4), and a batch sends one rate-limit
  // statement for all its creates. (HTTP arrivals are spread by the network, so the count is taken
  // on the service itself; with the pool saturated, shared addresses take the per-invoice path, so
  // inserts are not the measure.) Mutation checked: with the creator's batcher at maxBatch 1 (a
  // batch per invoice) this fails.
  let batches = 0;
  const direct = await createAtOnce(p.projectId, 'direct', N, (query) => {
    if (query.sql.includes('kernel_rate_limit_counters')) batches++;
  });
  t.true(direct.every((r) => r.created));
  // Usually exactly three; a loaded machine can let the first batch gather more, never fewer
  // batches than creates would mean no batching.
  t.true(batches >= 1 && batches <= 3, `${N} creates in ${batches} rate-limit statements`);
});

// Serial: ava runs it before the others of this file, so the statements counted are its own.
test.serial(
  'fresh creates of one batch commit through its two statements, none one by one (the write statement travels with its commit, ADR 0014)',
  async (t) => {
    const operatorId = (await gw.kernel.cradle.tenancyOperators.create('pipelined', CLI_ACTOR)).id;
    const p = await projectWithPools(gw, operatorId, ['ada']);
    const { db } = gw.kernel.cradle;
    const shapes: string[] = [];
    const capture = (query: { sql: string }) => shapes.push(query.sql.replace(/\s+/g, ' ').trim().slice(0, 60));
    // As many as the pool has free rows: more would take the pool's one-by-one rules on purpose.
    const free = Number((await db('address_pool_addresses').where({ project_id: p.projectId, state: 'available' }).count('* as n'))[0]!.n);
    const N = Math.min(8, free);
    t.true(N >= 2, `a pool of ${free} free rows`);
    const results = await createAtOnce(p.projectId, 'piped', N, capture);
    t.true(results.every((r) => r.created));
    t.is(new Set(results.map((r) => r.invoice.address)).size, N, 'distinct addresses');
    // A batch that failed as a whole would have created them one by one, each under its own lock statement.
    t.is(shapes.filter((s) => s.startsWith('select pg_advisory_xact_lock(hashtextextended(')).length, 0, JSON.stringify(shapes));
    t.true(shapes.some((s) => s.startsWith('with ins as (insert into invoices_invoices')));
    t.is(Number((await db('address_pool_addresses').where({ project_id: p.projectId }).sum('active_allocations as n'))[0]!.n), N);
    t.is(Number((await db('kernel_audit_log').where({ project_id: p.projectId, action: 'invoice.create' }).count('* as n'))[0]!.n), N);
  },
);
