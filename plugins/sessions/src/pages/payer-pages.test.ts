import test from 'ava';
import { pino } from 'pino';
import { createChainRegistry } from '@gw/kernel';
import { LANGUAGE_TAGS, LOCALES, placeholderMismatches, type Branding } from '@gw/plugin-checkout/contract';
import { ALL_CHAINS } from '@gw/testing';
import type { PayerSession, PaymentLinkView, SessionView } from '../contract.js';
import { linkPage, linkPageState } from './link-page.js';
import { formatPrice, lineTotal, maskEmail } from './payer-format.js';
import { PAYER_MESSAGES, payerErrorText } from './payer-texts.js';
import { receiptPage, type ReceiptPayment } from './receipt-page.js';
import { sessionPage, sessionPageState } from './session-page.js';

const chains = createChainRegistry(ALL_CHAINS, pino({ level: 'silent' }));
const HOSTILE = '"><script>alert(1)</script><img src=x onerror=alert(2)>';
const TOKEN = 'ab'.repeat(16);
const BRANDING: Branding = { displayName: HOSTILE, logoDataUri: null, colour: null };

const SESSION: SessionView = {
  id: '01JSESSION000000000000000A',
  object: 'checkout_session',
  project_id: 'p1',
  mode: 'sandbox',
  status: 'open',
  price_currency: 'EUR',
  price_amount: '1234.5',
  allowed_coins: ['usdt_trc20', 'eth', 'btc'],
  description: HOSTILE,
  line_items: [
    { name: HOSTILE, quantity: 3, unit_amount: '0.10' },
    { name: 'Tea', quantity: 1, unit_amount: '1234.2' },
  ],
  external_id: HOSTILE,
  customer_email: null,
  return_url: 'https://shop.example/thanks',
  cancel_url: 'https://shop.example/cart',
  metadata: { secret: 'partner-only' },
  url: `http://127.0.0.1/pay/${TOKEN}`,
  coin: null,
  invoice_id: null,
  invoices: [],
  payment_link_id: null,
  receipt_url: null,
  expires_at_iso: '2030-01-01T12:00:00.000Z',
  completed_at_iso: null,
  created_at_iso: '2030-01-01T11:00:00.000Z',
};
const payer = (session: Partial<SessionView> = {}, checkoutUrl: string | null = null): PayerSession => ({
  session: { ...SESSION, ...session },
  projectName: HOSTILE,
  checkoutUrl,
});
const renderSession = (p: PayerSession, extra: Partial<Parameters<typeof sessionPage>[0]> = {}) =>
  sessionPage({ payer: p, branding: BRANDING, locale: 'en', chains, path: `/pay/${TOKEN}`, formToken: 'x'.repeat(22), ...extra });

const LINK: PaymentLinkView = {
  id: '01JLINK0000000000000000000',
  object: 'payment_link',
  project_id: 'p1',
  mode: 'production',
  active: true,
  price_currency: 'EUR',
  price_amount: null,
  min_amount: '5',
  max_amount: '500',
  allowed_coins: ['btc'],
  description: HOSTILE,
  line_items: [],
  max_uses: 3,
  uses: 0,
  ask_email: true,
  return_url: null,
  metadata: null,
  url: `http://127.0.0.1/l/${TOKEN}`,
  qr_url: `http://127.0.0.1/l/${TOKEN}/qr.svg`,
  created_at_iso: '2030-01-01T11:00:00.000Z',
  deactivated_at_iso: null,
};
const renderLink = (link: Partial<PaymentLinkView> = {}, extra: Partial<Parameters<typeof linkPage>[0]> = {}) =>
  linkPage({ link: { ...LINK, ...link }, branding: BRANDING, locale: 'en', chains, path: `/l/${TOKEN}`, formToken: 'y'.repeat(22), ...extra });

const escaped = (t: { false(v: boolean, m?: string): void; true(v: boolean, m?: string): void }, page: string) => {
  t.false(page.includes('<script>'), 'no script tag from partner text');
  t.false(page.includes('<img src=x'), 'no element from partner text');
  t.true(page.includes('&lt;script&gt;alert(1)&lt;/script&gt;'), 'the text is shown, escaped');
};

test('every text from partners and payers is escaped on the session page, the link page and the receipt', (t) => {
  escaped(t, renderSession(payer(), { refused: { code: 'email_invalid', email: HOSTILE } }));
  escaped(t, renderLink({}, { refused: { code: 'amount_invalid', values: { amount: HOSTILE, email: HOSTILE }, field: 'amount' } }));
  const receipt = receiptPage({
    payer: payer({ status: 'completed', completed_at_iso: '2030-01-01T11:30:00.000Z', receipt_url: 'http://127.0.0.1/receipts/x' }),
    payments: [],
    branding: BRANDING,
    locale: 'en',
    chains,
    path: '/receipts/x',
  });
  escaped(t, receipt);
  t.false(renderSession(payer()).includes('partner-only'), 'the partner’s metadata is never shown');
});

test('an open session lists its coins with their networks as buttons of one form, and asks for an e-mail address', (t) => {
  const p = payer();
  t.is(sessionPageState(p), 'open');
  const page = renderSession(p);
  t.true(page.includes(`<form method="post" action="/pay/${TOKEN}/coin?lang=en">`));
  t.true(page.includes('<input type="hidden" name="csrf" value="xxxxxxxxxxxxxxxxxxxxxx">'));
  t.regex(
    page,
    /<button type="submit" name="coin" value="usdt_trc20" data-coin="usdt_trc20"><span class="symbol">USDT<\/span> <span class="coin-network">TRON [^<]+<\/span><\/button>/,
  );
  t.regex(page, /value="eth"[^>]*><span class="symbol">ETH<\/span> <span class="coin-network">Ethereum [^<]+</);
  t.true(page.indexOf('value="usdt_trc20"') < page.indexOf('value="eth"'), 'in the session’s order');
  t.true(page.includes(`action="/pay/${TOKEN}/email?lang=en"`));
  t.true(page.includes('Sandbox: this is a test payment.'));
  t.true(page.includes('<h1>Pay 1,234.50\u00a0EUR</h1>'));
  t.true(page.includes('<td class="num">0.30\u00a0EUR</td>'), '3 × 0.10, exactly');
  t.true(page.includes('id="total">1,234.50\u00a0EUR</td>'));
  t.true(page.includes('href="https://shop.example/cart"'));
  t.false(page.includes('aria-current="true" data-coin'), 'nothing picked yet');
});

test('a picked session links to its checkout page in the page’s language and offers the other coins; a known e-mail address is masked', (t) => {
  const p = payer({ coin: 'eth', invoice_id: 'inv1', customer_email: 'jane.doe@example.com' }, 'http://127.0.0.1/checkout/abc');
  t.is(sessionPageState(p), 'picked');
  const page = renderSession(p, { locale: 'de' });
  t.true(page.includes('<html lang="de">'));
  t.true(page.includes('href="http://127.0.0.1/checkout/abc?lang=de"'));
  t.regex(page, /value="eth" data-coin="eth" aria-current="true"><span class="symbol">ETH<\/span> <span class="coin-network">Ethereum [^<]+ \(aktuelle Wahl\)/);
  t.true(page.includes('Mit einer anderen Währung bezahlen'));
  t.true(page.includes('j•••@example.com'));
  t.false(page.includes('jane.doe'));
  t.false(page.includes('name="email"'), 'no e-mail form once an address is known');
  t.true(page.includes('1.234,50\u00a0EUR'));
});

test('a completed session shows the receipt link and no form; an expired one says so and offers no coin', (t) => {
  const done = renderSession(
    payer({ status: 'completed', receipt_url: 'http://127.0.0.1/receipts/r1', coin: 'btc', invoice_id: 'i' }, 'http://127.0.0.1/checkout/c'),
  );
  t.true(done.includes('data-state="completed"'));
  t.true(done.includes('href="http://127.0.0.1/receipts/r1?lang=en"'));
  t.true(done.includes('href="https://shop.example/thanks"'));
  t.false(done.includes('<form'));
  const expired = renderSession(payer({ status: 'expired' }));
  t.true(expired.includes('data-state="expired"'));
  t.true(expired.includes('This payment request expired'));
  t.false(expired.includes('<form'));
  t.false(expired.includes('name="coin"'));
});

test('a refusal is shown in the payer’s language with its code', (t) => {
  const page = renderSession(payer(), { locale: 'fr', refused: { code: 'coin_not_allowed' } });
  t.true(page.includes('data-error-code="coin_not_allowed"'));
  t.true(page.includes('Cette monnaie ne peut pas être utilisée pour ce paiement.'));
  t.true(page.includes('role="alert"'));
  t.is(payerErrorText('en', 'something_else'), 'This could not be done. Try again.');
  t.is(payerErrorText('en', 'rate_quote_unavailable'), 'No exchange rate is available right now. Try again in a minute.');
});

test('a link page asks for an amount within its limits and an e-mail address; a fixed price shows the price; inactive and used-up links have no form', (t) => {
  const entry = renderLink();
  t.true(entry.includes('name="amount"'));
  t.true(entry.includes('Between 5.00\u00a0EUR and 500.00\u00a0EUR.'));
  t.true(entry.includes('name="email"'));
  t.true(entry.includes(`<form method="post" action="/l/${TOKEN}?lang=en"`));
  t.true(entry.includes('<svg xmlns="http://www.w3.org/2000/svg" role="img"'), 'the link’s QR code');
  t.true(entry.includes(`href="/l/${TOKEN}/qr.svg"`));
  const fixed = renderLink({ price_amount: '19.99', min_amount: null, max_amount: null, ask_email: false });
  t.true(fixed.includes('<h1>Pay 19.99\u00a0EUR</h1>'));
  t.false(fixed.includes('name="amount"'));
  t.false(fixed.includes('name="email"'));
  t.is(linkPageState({ ...LINK, active: false }), 'inactive');
  t.is(linkPageState({ ...LINK, uses: 3 }), 'used_up');
  t.is(linkPageState({ ...LINK, uses: 2 }), 'open');
  t.is(linkPageState({ ...LINK, max_uses: null, uses: 1000 }), 'open');
  const inactive = renderLink({ active: false });
  t.false(inactive.includes('<form'));
  t.true(inactive.includes('This payment link is no longer active'));
  const refused = renderLink({}, { locale: 'it', refused: { code: 'amount_out_of_range', values: { amount: '1', email: '' }, field: 'amount' } });
  t.true(refused.includes('L’importo deve essere compreso tra 5,00\u00a0EUR e 500,00\u00a0EUR.'));
  t.true(refused.includes('aria-invalid="true"'));
  t.true(refused.includes('value="1"'), 'what was entered is kept');
});

test('a receipt lists the order, each payment with its coin, amount and transactions, and says how to print it', (t) => {
  const payments: ReceiptPayment[] = [
    { invoiceId: 'i1', symbol: 'ETH', network: 'Ethereum Sepolia', amount: '0.5', txids: ['0x' + 'a'.repeat(64)], late: true },
  ];
  const page = receiptPage({
    payer: payer({ status: 'completed', completed_at_iso: '2030-01-01T11:30:00.000Z', receipt_url: 'http://127.0.0.1/receipts/r1' }),
    payments,
    branding: BRANDING,
    locale: 'en',
    chains,
    path: '/receipts/r1',
  });
  t.true(page.includes('Jan 1, 2030'));
  t.true(page.includes('0.5 ETH'));
  t.true(page.includes(`<li class="mono txid">0x${'a'.repeat(64)}</li>`));
  t.true(page.includes('This payment arrived after the coin had been changed'));
  t.true(page.includes('print'));
  t.true(page.includes(SESSION.id));
  t.false(page.includes('<form'));
});

test('every page speaks every language: the html lang, no placeholder left unfilled', (t) => {
  t.deepEqual(placeholderMismatches(PAYER_MESSAGES), []);
  for (const locale of LOCALES) {
    const pages = [
      renderSession(payer(), { locale, refused: { code: 'checkout_session_payment_in_progress' } }),
      renderSession(payer({ coin: 'eth', invoice_id: 'i' }, '/checkout/c'), { locale }),
      renderLink({}, { locale, refused: { code: 'amount_out_of_range', values: { amount: '1', email: '' } } }),
      receiptPage({
        payer: payer({ status: 'completed', completed_at_iso: SESSION.created_at_iso }),
        payments: [],
        branding: BRANDING,
        locale,
        chains,
        path: '/receipts/r',
      }),
    ];
    for (const page of pages) {
      t.true(page.includes(`<html lang="${LANGUAGE_TAGS[locale]}">`), locale);
      t.false(/\{[a-z_]+\}/.test(page), `${locale}: a placeholder is left`);
    }
  }
});

test('prices and line amounts are exact: fiat with the currency’s decimals, coins digit for digit', (t) => {
  t.is(lineTotal({ name: 'x', quantity: 3, unit_amount: '0.10' }), '0.3');
  t.is(lineTotal({ name: 'x', quantity: 7, unit_amount: '0.000000000000000001' }), '0.000000000000000007');
  t.is(lineTotal({ name: 'x', quantity: 2, unit_amount: '1500' }), '3000');
  t.is(formatPrice('en', chains, 'JPY', '1500'), '1,500\u00a0JPY');
  t.is(formatPrice('en', chains, 'btc', '0.00012345'), '0.00012345 BTC');
  t.is(formatPrice('de', chains, 'EUR', '12345678901234567.8'), '12.345.678.901.234.567,80\u00a0EUR');
  t.is(maskEmail('jane@example.com'), 'j•••@example.com');
  t.is(maskEmail('nonsense'), '•••');
});
