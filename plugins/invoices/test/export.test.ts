import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { CLI_ACTOR, type ProjectPrincipal } from '@gw/kernel';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import type { TestKernel } from '@gw/kernel/testing';
import { addressPoolPlugin } from '@gw/plugin-address-pool';
import { ratesPlugin } from '@gw/plugin-rates';
import { tenancyPlugin } from '@gw/plugin-tenancy';
import { walletsPlugin } from '@gw/plugin-wallets';
import { cliRunner } from '@gw/testing';
import { CSV_COLUMNS, invoicesPlugin } from '../src/index.js';
import { confirmInvoice, payInvoice } from '../src/testing.js';
import { ALL_CHAINS, FIXED_RATES, startWithEthProject, type TestProject } from './helpers.js';

let gw: TestKernel;
let project: TestProject;
let dir: string;
const ids: { paid: string; odd: string; open: string } = { paid: '', odd: '', open: '' };
test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gw-export-'));
  let principal: ProjectPrincipal;
  ({ gw, project, principal } = await startWithEthProject('invoices-export'));
  const create = async (external_id: string, body: Record<string, string | number>) =>
    (await gw.kernel.cradle.invoicesService.create(principal, { external_id, coin: 'eth', ...body }, CLI_ACTOR)).invoice.id;
  ids.paid = await create('order-paid', { amount_crypto: '0.0123456789' });
  ids.odd = await create('=SUM(A1),"quoted"\nsecond line', { amount_usd: 12.34 });
  ids.open = await create('order-open', { amount_crypto: '1' });
  // Paid in two transfers, confirmed: USD at payment from the rate then (the fixed 3200.5).
  await payInvoice(gw.kernel.cradle, project.projectId, ids.paid, { amountUnits: 12345678900000000n - 10n ** 13n });
  await payInvoice(gw.kernel.cradle, project.projectId, ids.paid, { amountUnits: 10n ** 13n });
  await confirmInvoice(gw.kernel.cradle, project.projectId, ids.paid);
});
test.after.always(async () => {
  await gw?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const cli = cliRunner({
  plugins: [tenancyPlugin, walletsPlugin, addressPoolPlugin, ratesPlugin, invoicesPlugin],
  chains: ALL_CHAINS,
  databaseUrl: () => gw.database.url,
  overrides: () => ({ 'http.port': 0, 'plugins.rates.providers': ['fixed'], 'plugins.rates.fixed': FIXED_RATES }),
});

/** RFC 4180 records (quoted fields may hold commas, quotes and line breaks). */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 1;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      record.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i += 1;
    } else field += c;
  }
  return records;
}

test('CSV: every invoice with each transaction, exact decimal amounts, USD at creation and at payment, safe quoting', async (t) => {
  const file = join(dir, 'all.csv');
  const run = await cli('invoice', 'export', '--project', project.projectId, '--from', '2000-01-01', '--to', '2029-12-31', '--format', 'csv', '--output', file);
  t.is(run.code, 0, run.stderr);
  const [header, ...rows] = parseCsv(readFileSync(file, 'utf8'));
  t.deepEqual(header, [...CSV_COLUMNS]);
  const col = (row: string[], name: (typeof CSV_COLUMNS)[number]) => row[CSV_COLUMNS.indexOf(name)];
  // Two lines for the invoice paid in two transfers, one for each of the others.
  t.is(rows.length, 4);
  const paid = rows.filter((r) => col(r, 'invoice_id') === ids.paid);
  t.is(paid.length, 2);
  t.is(col(paid[0]!, 'status'), 'paid');
  t.is(col(paid[0]!, 'amount_crypto'), '0.0123456789');
  t.deepEqual(paid.map((r) => col(r, 'tx_amount_crypto')).sort(), ['0.00001', '0.0123356789'].sort());
  t.is(col(paid[0]!, 'received_crypto'), '0.0123456789');
  t.is(col(paid[0]!, 'usd_rate_at_payment'), '3200.5');
  t.is(col(paid[0]!, 'usd_rate_source_at_payment'), 'fixed');
  t.is(col(paid[0]!, 'received_usd_at_payment'), '39.51234532');
  // Priced in crypto: no USD amount was quoted at creation.
  t.is(col(paid[0]!, 'amount_usd_at_creation'), '');
  t.truthy(col(paid[0]!, 'paid_at'));
  // A hostile external_id survives quoting and cannot start a spreadsheet formula.
  const odd = rows.find((r) => col(r, 'invoice_id') === ids.odd)!;
  t.is(col(odd, 'external_id'), `'=SUM(A1),"quoted"\nsecond line`);
  t.is(col(odd, 'amount_usd_at_creation'), '12.34000000');
  t.is(col(odd, 'tx_hash'), '');
  t.is(col(odd, 'paid_at'), '');
  t.is(col(odd, 'received_crypto'), '0');
  // Oldest first.
  t.deepEqual([...new Set(rows.map((r) => col(r, 'invoice_id')))], [ids.paid, ids.odd, ids.open]);
});

test('JSON: an array of invoices with their transactions; the range bounds creation time', async (t) => {
  const file = join(dir, 'all.json');
  t.is(
    (await cli('invoice', 'export', '--project', project.projectId, '--from', '2000-01-01', '--to', '2029-12-31', '--format', 'json', '--output', file)).code,
    0,
  );
  const all = JSON.parse(readFileSync(file, 'utf8'));
  t.deepEqual(
    all.map((i: { invoice_id: string }) => i.invoice_id),
    [ids.paid, ids.odd, ids.open],
  );
  t.is(all[0].transactions.length, 2);
  t.is(all[0].received_usd_at_payment, '39.51234532');
  t.is(typeof all[0].transactions[0].amount_crypto, 'string');
  const none = join(dir, 'none.json');
  t.is(
    (await cli('invoice', 'export', '--project', project.projectId, '--from', '2000-01-01', '--to', '2000-01-02', '--format', 'json', '--output', none)).code,
    0,
  );
  t.deepEqual(JSON.parse(readFileSync(none, 'utf8')), []);
  const bad = await cli('invoice', 'export', '--project', project.projectId, '--from', '2026-02-31', '--to', '2027-01-01', '--format', 'csv', '--output', none);
  t.is(bad.code, 1);
  t.regex(bad.stderr, /validation_error/);
  const unwritable = await cli(
    'invoice',
    'export',
    '--project',
    project.projectId,
    '--from',
    '2000-01-01',
    '--to',
    '2029-12-31',
    '--format',
    'csv',
    '--output',
    join(dir, 'no-such-folder', 'x.csv'),
  );
  t.is(unwritable.code, 1, "a file that cannot be written is the command's error");
  t.regex(unwritable.stderr, /validation_error/);
  t.regex(unwritable.stderr, /--output: cannot write/);
  t.notRegex(unwritable.stderr, /at .*\.ts:\d+/, 'no stack trace');
});

// Its invoices are created in 2030, outside the ranges the other tests export (tests run concurrently).
test('paging never repeats or skips an invoice, even when many share one creation time', async (t) => {
  const db = gw.kernel.cradle.db;
  // 2,500 copies of one invoice: every column as the source has it, except those given here.
  await db.raw(
    `insert into invoices_invoices
     select copy.* from invoices_invoices i cross join generate_series(1, 2500) g
       cross join lateral jsonb_populate_record(i, jsonb_build_object(
         'id', '01' || lpad(g::text, 24, '0'),
         'external_id', 'bulk-' || g,
         'payment_token', 'f' || lpad(to_hex(g), 15, '0'),
         'checkout_token', 'bulk-checkout-' || g,
         'created_at', '2030-01-01T00:00:00Z'::timestamptz)) copy
      where i.id = ?`,
    [ids.open],
  );
  const seen: string[] = [];
  for await (const invoice of gw.kernel.cradle.invoicesExporter.invoices(
    { projectId: project.projectId, from: new Date('2030-01-01T00:00:00Z'), to: new Date('2030-01-01T00:00:00Z') },
    333,
  ))
    seen.push(invoice.invoice_id);
  t.is(seen.length, 2500);
  t.is(new Set(seen).size, 2500);
  t.deepEqual(seen, [...seen].sort());
});
