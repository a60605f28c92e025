import test from 'ava';
import type { TestKernel } from '@gw/kernel/testing';
import { CLI_ACTOR } from '@gw/kernel';
import { confirmInvoice, payInvoice } from '../src/testing.js';
import { startWithEthProject, type TestProject } from './helpers.js';

// The overview's aggregate (issue 20): invoices created and paid USD per hour of the last day and
// per UTC day of the last week, in SQL over indexed ranges.

let gw: TestKernel;
let project: TestProject;
test.before(async () => {
  ({ gw, project } = await startWithEthProject('invoices-activity'));
});
test.after.always(async () => {
  await gw?.close();
});

test.serial('activity counts invoices by creation and sums paid USD by payment, per hour and per day, with zero buckets filled', async (t) => {
  const { cradle } = gw.kernel;
  const principal = (await cradle.tenancyProjects.principal(project.projectId))!;
  const create = async (external_id: string, body: { amount_crypto?: string; amount_usd?: number }) =>
    (await cradle.invoicesService.create(principal, { external_id, coin: 'eth', ...body }, CLI_ACTOR)).invoice.id;
  const paid = await create('activity-paid', { amount_crypto: '0.0123456789' });
  const usd = await create('activity-usd', { amount_usd: 12.34 });
  const old = await create('activity-old', { amount_crypto: '1' });
  await payInvoice(cradle, project.projectId, paid, { amountUnits: 12345678900000000n });
  await confirmInvoice(cradle, project.projectId, paid);
  const usdInvoice = await cradle.invoicesService.get(project.projectId, usd);
  await payInvoice(cradle, project.projectId, usd, { amountUnits: BigInt(usdInvoice.amount_crypto_units) });
  await confirmInvoice(cradle, project.projectId, usd);
  // Three days old: in the week, not in the day.
  await cradle
    .db('invoices_invoices')
    .where({ id: old })
    .update({ created_at: new Date(Date.now() - 3 * 86_400_000) });

  const activity = await cradle.invoicesActivity.activity(project.projectId);
  t.is(activity.last_day.buckets.length, 24);
  t.is(activity.last_week.buckets.length, 7);
  t.like(activity.last_day, { invoices: 2, paid: 2 });
  t.like(activity.last_week, { invoices: 3, paid: 2 });
  // 0.0123456789 ETH at the fixed 3200.5 when paid is 39.5123... USD; the USD invoice counts its 12.34.
  t.is(activity.last_day.paid_usd, '51.85');
  t.is(activity.last_week.paid_usd, '51.85');
  const lastHour = activity.last_day.buckets[23]!;
  t.like(lastHour, { invoices: 2, paid: 2, paid_usd: '51.85' });
  // Each paid invoice's share of that sum, as the dashboard shows it; an unpaid one has none.
  const values = await cradle.invoicesActivity.paidValues(project.projectId, [paid, usd, old]);
  t.deepEqual(values.get(paid), { usd: '39.51', rate: '3200.5', source: 'fixed' });
  t.is(values.get(usd)?.usd, '12.34');
  t.false(values.has(old));
  t.is(
    activity.last_day.buckets.slice(0, 23).reduce((n, b) => n + b.invoices, 0),
    0,
  );
  t.is(
    activity.last_week.buckets.reduce((n, b) => n + b.invoices, 0),
    3,
  );
  t.true(
    activity.last_week.buckets.every((b) => b.start_iso.endsWith('T00:00:00.000Z')),
    'days are UTC days',
  );

  const other = await cradle.invoicesActivity.activity('01ARZ3NDEKTSV4RRFFQ69G5FAV');
  t.like(other.last_week, { invoices: 0, paid: 0, paid_usd: '0.00' });
});

test.serial("the audit log reads an invoice's rows, newest first, only within the given projects", async (t) => {
  const { cradle } = gw.kernel;
  const principal = (await cradle.tenancyProjects.principal(project.projectId))!;
  const { invoice } = await cradle.invoicesService.create(
    principal,
    { external_id: 'activity-audit', coin: 'eth', amount_crypto: '0.5' },
    { ...CLI_ACTOR, requestId: 'req-audit' },
  );
  await cradle.invoicesService.cancel(project.projectId, invoice.id, CLI_ACTOR);
  const rows = await cradle.audit.list({ projectIds: [project.projectId], target: `invoice:${invoice.id}`, limit: 10 });
  t.deepEqual(rows.items.map((r) => r.action).slice(0, 1), ['invoice.cancel']);
  t.true(rows.items.some((r) => r.action === 'invoice.create' && r.channel === 'cli'));
  const page = await cradle.audit.list({ projectIds: [project.projectId], channel: 'cli', limit: 1 });
  t.is(page.items.length, 1);
  t.truthy(page.next_cursor);
  const next = await cradle.audit.list({ projectIds: [project.projectId], channel: 'cli', limit: 1, cursor: page.next_cursor });
  t.true(next.items[0]!.id < page.items[0]!.id);
  t.deepEqual((await cradle.audit.list({ projectIds: ['01ARZ3NDEKTSV4RRFFQ69G5FAV'], target: `invoice:${invoice.id}`, limit: 10 })).items, []);
  t.deepEqual((await cradle.audit.list({ projectIds: [], limit: 10 })).items, []);
});
