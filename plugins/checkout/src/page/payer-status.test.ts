import test from 'ava';
import type { InvoiceView } from '@gw/plugin-invoices';
import { brandStylesheet } from './brand-stylesheet.js';
import { payerStatus } from './payer-status.js';

const tx = (amount_units: string, status: 'pending' | 'confirmed' | 'reverted' | 'dropped') =>
  ({ amount_units, status }) as InvoiceView['transactions'][number];
const invoice = (status: InvoiceView['status'], transactions: InvoiceView['transactions'], confirmations = 0) =>
  ({ status, amount_crypto_units: '1000000', confirmation_threshold: 3, confirmations, transactions }) as unknown as InvoiceView;

test('the remainder of a partial invoice is the amount less the payments that still count, exact in base units', (t) => {
  const status = payerStatus(invoice('partial', [tx('250000', 'confirmed'), tx('300000', 'reverted'), tx('150001', 'pending'), tx('90000', 'dropped')]), 6);
  t.is(status.remainder, '0.599999');
  t.false(status.final);
  t.is(payerStatus(invoice('detected', [tx('250000', 'pending')]), 6).remainder, undefined, 'only a partial invoice has a remainder');
  // What the QR code asks for: the amount, then what the counted payments leave, nothing once they cover it.
  t.is(payerStatus(invoice('pending', []), 6).dueUnits, 1_000_000n);
  t.is(status.dueUnits, 599_999n);
  t.is(payerStatus(invoice('detected', [tx('250000', 'pending')]), 6).dueUnits, 750_000n);
  t.is(payerStatus(invoice('detected', [tx('1000000', 'pending')]), 6).dueUnits, 0n);
});

test('final statuses end the stream; the key changes with anything the payer sees', (t) => {
  for (const s of ['paid', 'overpaid', 'expired', 'expired_paid_late', 'reverted', 'cancelled'] as const) t.true(payerStatus(invoice(s, []), 6).final, s);
  for (const s of ['pending', 'detected', 'partial', 'ambiguous'] as const) t.false(payerStatus(invoice(s, []), 6).final, s);
  const one = payerStatus(invoice('detected', [tx('1000000', 'pending')], 1), 6).key;
  const two = payerStatus(invoice('detected', [tx('1000000', 'pending')], 2), 6).key;
  t.not(one, two, 'a new confirmation is a change');
});

test('text on the brand colour is black or white, whichever contrasts more', (t) => {
  t.is(brandStylesheet('#ffff00'), ':root{--accent:#ffff00;--on-accent:#000000}\n');
  t.is(brandStylesheet('#1d4ed8'), ':root{--accent:#1d4ed8;--on-accent:#ffffff}\n');
});
