/**
 * Base units become bigint where invoice rows are read (issue 34 item 6): model queries, the
 * plain-SQL transfer reader and the lifecycle's load all hand services bigint `amount_units`.
 */
import test from 'ava';
import { CLI_ACTOR, type ProjectPrincipal } from '@gw/kernel';
import type { TestKernel } from '@gw/kernel/testing';
import { Invoice } from '../src/models/invoice.js';
import { InvoiceTransaction, transactionsByInvoice } from '../src/models/invoice-transaction.js';
import { payInvoice } from '../src/testing.js';
import { startWithEthProject, type TestProject } from './helpers.js';

let gw: TestKernel;
let project: TestProject;
let invoiceId: string;
test.before(async () => {
  let principal: ProjectPrincipal;
  ({ gw, project, principal } = await startWithEthProject('invoices-units-rows'));
  invoiceId = (await gw.kernel.cradle.invoicesService.create(principal, { external_id: 'units-rows', coin: 'eth', amount_crypto: '0.0123456789' }, CLI_ACTOR))
    .invoice.id;
  // Above ETH's dust floor (10^12 wei), so the payment is recorded as the invoice's transfer.
  await payInvoice(gw.kernel.cradle, project.projectId, invoiceId, { amountUnits: 10_000_000_000_000n });
});
test.after.always(async () => {
  await gw?.close();
});

test('model queries read amount_units as bigint', async (t) => {
  const invoice = await Invoice.query(gw.kernel.cradle.db).findById(invoiceId);
  t.is(invoice?.amount_units, 12345678900000000n);
  const [transfer] = await InvoiceTransaction.query(gw.kernel.cradle.db).where({ invoice_id: invoiceId });
  t.is(transfer?.amount_units, 10_000_000_000_000n);
});

test('the plain-SQL readers read amount_units as bigint', async (t) => {
  const byInvoice = await transactionsByInvoice(gw.kernel.cradle.db, [invoiceId]);
  t.deepEqual(
    byInvoice.get(invoiceId)?.map((tx) => tx.amount_units),
    [10_000_000_000_000n],
  );
  const { cradle } = gw.kernel;
  const state = await cradle.db.transaction((trx) => cradle.invoicesLifecycle.lockOwn(trx, project.projectId, invoiceId));
  t.is(state.invoice.amount_units, 12345678900000000n, "the lifecycle's locked load");
});
