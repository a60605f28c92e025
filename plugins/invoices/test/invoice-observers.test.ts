/**
 * `INVOICE_OBSERVERS` (issue 38): a tiny plugin contributes an observer that records each status
 * change as it hears it, with the invoice's status inside the change's transaction and outside it
 * (committed), and throws when asked to, which must roll the change back. Every way a status
 * changes (payments and their settlement, expiry, cancel, orphan attribution) reaches it exactly
 * once, inside the changing transaction.
 */
import test from 'ava';
import { CLI_ACTOR, contribute, definePlugin, withDeps, type ProjectPrincipal } from '@gw/kernel';
import { startTestKernel, type TestKernel } from '@gw/kernel/testing';
import { addressPoolPlugin } from '@gw/plugin-address-pool';
import { ratesPlugin } from '@gw/plugin-rates';
import { tenancyPlugin } from '@gw/plugin-tenancy';
import { walletsPlugin } from '@gw/plugin-wallets';
import type { Knex } from 'knex';
import { INVOICE_OBSERVERS, type InvoiceObserver, type InvoiceStatusChange } from '../src/contract.js';
import { invoicesPlugin } from '../src/index.js';
import { confirmInvoice, expireInvoice, payInvoice } from '../src/testing.js';
import { ALL_CHAINS, FIXED_RATES, projectWithPools, type TestProject } from './helpers.js';
import { StatusChangeRecorder } from '@gw/testing';

/** What the observer saw of each change: the invoice's status inside the change's transaction and outside it; it throws on a change to `failOn`. */
const observed = new StatusChangeRecorder<InvoiceStatusChange>('invoices_invoices', (change) => change.invoiceId);

const observerPlugin = definePlugin({
  id: 'invoice-observer-probe',
  dependsOn: ['invoices'],
  contributes: [
    contribute(
      INVOICE_OBSERVERS,
      withDeps(['db'], (deps): InvoiceObserver[] => [
        {
          onStatus: (trx: Knex.Transaction, change: InvoiceStatusChange) => observed.record(trx, change, deps.db),
        },
      ]),
    ),
  ],
});

let gw: TestKernel;
let project: TestProject;
let principal: ProjectPrincipal;

test.before(async () => {
  gw = await startTestKernel({
    plugins: [tenancyPlugin, walletsPlugin, addressPoolPlugin, ratesPlugin, invoicesPlugin, observerPlugin],
    chains: ALL_CHAINS,
    role: 'gateway',
    config: { 'plugins.rates.providers': ['fixed'], 'plugins.rates.fixed': FIXED_RATES, 'plugins.address-pool.targetFree': 5 },
  });
  const operatorId = (await gw.kernel.cradle.tenancyOperators.create('invoice-observers', CLI_ACTOR)).id;
  project = await projectWithPools(gw, operatorId, ['eth'], 'testnet');
  principal = (await gw.kernel.cradle.tenancyProjects.principal(project.projectId))!;
});
test.after.always(async () => {
  await gw?.close();
});

async function invoice(externalId: string, amountCrypto = '0.01') {
  return (await gw.kernel.cradle.invoicesService.create(principal, { external_id: externalId, coin: 'eth', amount_crypto: amountCrypto }, CLI_ACTOR)).invoice;
}

/** What the observer heard of the invoice, as `from>to event`, and the statuses it saw. */
function heard(invoiceId: string): string[] {
  return observed.seen
    .filter((s) => s.change.invoiceId === invoiceId)
    .map((s) => `${s.change.previousStatus ?? 'new'}>${s.change.status} ${s.change.eventType ?? '-'}`);
}

test.serial('paid: each change once, in its transaction (the new status inside, the old one outside), with the totals after it', async (t) => {
  const { id } = await invoice('obs-paid');
  t.deepEqual(heard(id), [], 'creation in pending is no change');
  await payInvoice(gw.kernel.cradle, project.projectId, id);
  await confirmInvoice(gw.kernel.cradle, project.projectId, id);
  t.deepEqual(heard(id), ['pending>detected invoice.detected', 'detected>paid invoice.paid']);
  const [detected, paid] = observed.seen.filter((s) => s.change.invoiceId === id);
  t.like(detected, { inside: 'detected', outside: 'pending' });
  t.like(paid, { inside: 'paid', outside: 'detected' });
  t.like(paid!.change, {
    projectId: project.projectId,
    projectKind: 'testnet',
    externalId: 'obs-paid',
    coin: 'eth',
    amountUnits: 10_000_000_000_000_000n,
    receivedUnits: 10_000_000_000_000_000n,
    underpaymentTolerance: '0',
  });
  await confirmInvoice(gw.kernel.cradle, project.projectId, id);
  t.is(heard(id).length, 2, 'a later confirmation changes nothing and is not heard');
});

test.serial('partial: the short settlement and a top-up still short, each with what has arrived', async (t) => {
  const { id } = await invoice('obs-partial');
  await payInvoice(gw.kernel.cradle, project.projectId, id, { amountUnits: 4_000_000_000_000_000n, confirmations: 12 });
  await payInvoice(gw.kernel.cradle, project.projectId, id, { amountUnits: 1_000_000_000_000_000n, confirmations: 12 });
  t.deepEqual(heard(id), ['pending>detected invoice.detected', 'detected>partial invoice.partial', 'partial>partial invoice.partial']);
  const changes = observed.seen.filter((s) => s.change.invoiceId === id).map((s) => s.change.receivedUnits);
  t.deepEqual(changes, [4_000_000_000_000_000n, 4_000_000_000_000_000n, 5_000_000_000_000_000n]);
});

test.serial('expired and cancelled (no event) are heard; attributing a late payment at the address is a new invoice, previous status null', async (t) => {
  const expiring = await invoice('obs-expired');
  await expireInvoice(gw.kernel.cradle, project.projectId, expiring.id);
  t.deepEqual(heard(expiring.id), ['pending>expired invoice.expired']);

  const cancelling = await invoice('obs-cancelled');
  await gw.kernel.cradle.invoicesService.cancel(project.projectId, cancelling.id, CLI_ACTOR);
  t.deepEqual(heard(cancelling.id), ['pending>cancelled -']);

  const row = await gw.kernel.cradle.db('invoices_invoices').where('id', cancelling.id).first();
  const result = await gw.kernel.cradle.db.transaction((trx) =>
    gw.kernel.cradle.invoicesAttribution.createPaid(
      trx,
      {
        projectId: project.projectId,
        projectKind: 'testnet',
        externalId: 'obs-attributed',
        coin: 'eth',
        address: row.address,
        poolAddressId: row.pool_address_id,
        derivationPath: row.derivation_path,
        txHash: `0x${'ab'.repeat(32)}`,
        outputIndex: 0,
        amountUnits: 7_000_000_000_000_000n,
        confirmations: 100,
        blockHeight: 10n,
        blockHash: null,
      },
      CLI_ACTOR,
    ),
  );
  if (!('invoice' in result)) return t.fail('attribution refused');
  t.deepEqual(heard(result.invoice.id), ['new>paid invoice.paid']);
  t.like(
    observed.seen.find((s) => s.change.invoiceId === result.invoice.id),
    {
      inside: 'paid',
      outside: undefined,
      change: { previousStatus: null, externalId: 'obs-attributed', amountUnits: 7_000_000_000_000_000n, receivedUnits: 7_000_000_000_000_000n },
    },
  );
});

test.serial('an observer that throws rolls the change back: nothing of it is written, and it is heard when it finally happens', async (t) => {
  const { id } = await invoice('obs-refused');
  observed.failOn = 'cancelled';
  try {
    await t.throwsAsync(gw.kernel.cradle.invoicesService.cancel(project.projectId, id, CLI_ACTOR), { message: 'observer refuses cancelled' });
  } finally {
    observed.failOn = null;
  }
  t.is((await gw.kernel.cradle.invoicesService.get(project.projectId, id)).status, 'pending');
  const audited = await gw.kernel.cradle.db('kernel_audit_log').where({ target: `invoice:${id}`, action: 'invoice.cancel' });
  t.is(audited.length, 0, 'no audit row of the refused cancel');
  t.deepEqual(heard(id), []);
  await gw.kernel.cradle.invoicesService.cancel(project.projectId, id, CLI_ACTOR);
  t.deepEqual(heard(id), ['pending>cancelled -']);
});
