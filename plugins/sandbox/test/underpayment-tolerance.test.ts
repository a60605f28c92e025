/**
 * Underpayment tolerance (issue 38) end to end in the sandbox: the project's policy is snapshotted
 * on its invoices, and the sandbox's payments go through the real matcher and lifecycle, so a
 * payment short by less than the tolerance settles as paid (its `invoice.paid` telling what was
 * forgiven), while one short by more stays partial, as without a tolerance.
 */
import test from 'ava';
import { CLI_ACTOR } from '@gw/kernel';
import type { TestKernel } from '@gw/kernel/testing';
import { createSandboxInvoice, sandboxClient, startSandboxKernel, type SandboxClient } from './helpers.js';

let gw: TestKernel;
let c: SandboxClient;
test.before(async () => {
  gw = await startSandboxKernel();
  c = await sandboxClient(gw);
  await gw.kernel.cradle.invoicesPolicies.set(c.projectId, { underpaymentTolerance: '0.01' }, CLI_ACTOR);
});
test.after.always(async () => {
  await gw?.close();
});

let seq = 0;
async function invoice(body: Record<string, unknown> = {}): Promise<any> {
  return createSandboxInvoice(c, { external_id: `tolerance-${++seq}`, coin: 'eth', amount_crypto: '1', ...body });
}
const simulate = (id: string, what: string, body?: unknown) => c.call('POST', `/invoices/${id}/simulate-${what}`, body);
/** simulate-event of a settling event on a detected invoice: `amountUnits` replaces the detected payment, then confirms. */
async function settleWith(id: string, eventType: string, amountUnits: bigint) {
  await simulate(id, 'detect');
  return simulate(id, 'event', { eventType, expectedCurrentStatus: 'detected', amountUnits: amountUnits.toString(), confirmations: 20, blockHeight: 100 });
}
const ONE_ETH = 10n ** 18n;

test('a payment short by less than the tolerance settles paid, with the shortfall in the event', async (t) => {
  const inv = await invoice();
  t.is(inv.underpayment_tolerance, '0.01');
  const paid = await settleWith(inv.id, 'invoice.paid', ONE_ETH - ONE_ETH / 200n);
  t.is(paid.status, 200, JSON.stringify(paid.body));
  t.is(paid.body.status, 'paid');
  const event = (await c.call('GET', `/webhooks/events/${paid.body.event_id}`)).body;
  t.like(event.payload.data, { status: 'paid', paid_units: (ONE_ETH - ONE_ETH / 200n).toString(), remaining_units: (ONE_ETH / 200n).toString() });
});

test('exactly at the tolerance is paid; one unit below is partial, and simulate-partial refuses a payment the tolerance forgives', async (t) => {
  const edge = await settleWith((await invoice()).id, 'invoice.paid', ONE_ETH - ONE_ETH / 100n);
  t.is(edge.body.status, 'paid', JSON.stringify(edge.body));

  const below = await invoice();
  const refused = await settleWith(below.id, 'invoice.paid', ONE_ETH - ONE_ETH / 100n - 1n);
  t.is(refused.status, 422);
  t.is(refused.body.error_code, 'sandbox_invoice_transition_invalid');
  t.like(refused.body.details, { status: 'partial' });
  const partial = await settleWith(below.id, 'invoice.partial', ONE_ETH - ONE_ETH / 100n - 1n);
  t.is(partial.body.status, 'partial', JSON.stringify(partial.body));

  const forgiven = await invoice();
  await simulate(forgiven.id, 'detect');
  const notShort = await simulate(forgiven.id, 'partial', { fraction: 0.995 });
  t.is(notShort.status, 422, 'a payment the tolerance forgives is not partial, so no invoice.partial');
  t.is((await c.call('GET', `/invoices/${forgiven.id}`)).body.status, 'detected');
});

test('each invoice keeps the tolerance it was created with, whatever the policy says later', async (t) => {
  const other = await sandboxClient(gw);
  const create = async (externalId: string) => (await other.call('POST', '/invoices', { external_id: externalId, coin: 'eth', amount_crypto: '1' })).body;
  const settle = async (id: string, amountUnits: bigint) => {
    await other.call('POST', `/invoices/${id}/simulate-detect`);
    return other.call('POST', `/invoices/${id}/simulate-event`, {
      eventType: 'invoice.paid',
      expectedCurrentStatus: 'detected',
      amountUnits: amountUnits.toString(),
      confirmations: 20,
      blockHeight: 100,
    });
  };
  const strict = await create('before-the-policy');
  t.is(strict.underpayment_tolerance, '0');
  await gw.kernel.cradle.invoicesPolicies.set(other.projectId, { underpaymentTolerance: '0.05' }, CLI_ACTOR);
  const tolerant = await create('under-the-policy');
  t.is(tolerant.underpayment_tolerance, '0.05');
  await gw.kernel.cradle.invoicesPolicies.set(other.projectId, { underpaymentTolerance: null }, CLI_ACTOR);
  t.is((await settle(strict.id, ONE_ETH - 1n)).body.error_code, 'sandbox_invoice_transition_invalid', 'created without one: one unit short is partial');
  t.is((await settle(tolerant.id, ONE_ETH - ONE_ETH / 20n)).body.status, 'paid', 'created under 5 %: 5 % short is paid though the policy is off now');
});
