import test from 'ava';
import { html } from '@gw/kernel';
import type { InvoiceView } from '@gw/plugin-invoices/contract';
import { readingPanel, type CheckoutPanelInput } from './panels.js';

const input = { invoice: { id: '01JINVOICE0000000000000000' } as InvoiceView, locale: 'en' } as CheckoutPanelInput;

test('a reading panel shows what it read, on every project kind and without actions; a failed read is logged and shows nothing', async (t) => {
  const warnings: unknown[][] = [];
  const logger = { warn: (...args: unknown[]) => void warnings.push(args) };
  const shown = readingPanel({ id: 'x', logger, failure: 'x: unreadable', read: async () => 'found', render: (found) => html`<p>${found}</p>` });
  t.is(String(await shown.render(input)), '<p>found</p>');
  t.true(shown.shows('production') && shown.shows('sandbox'));
  t.deepEqual([shown.actions, shown.enabledActions('paid')], [[], []]);
  const failing = readingPanel({ id: 'x', logger, failure: 'x: unreadable', read: () => Promise.reject(new Error('down')), render: () => html`<p>never</p>` });
  t.is(String(await failing.render(input)), '');
  t.is(warnings.length, 1);
  t.like(warnings[0]![0], { invoice_id: input.invoice.id });
  t.is(warnings[0]![1], 'x: unreadable');
});
