import test from 'ava';
import type { ClaimView, ItemView } from '../contract.js';
import { CLAIM_ASSETS } from './claim-routes.js';
import { placeholderMismatches } from '@gw/plugin-checkout/contract';
import { claimPage, claimState, proofMessageFor, type CoinFacts } from './claim-page.js';
import { CLAIM_MESSAGES } from './claim-i18n.js';

const ITEM: ItemView = {
  id: '01JREFUND0000000000000000',
  object: 'refund',
  project_id: 'p1',
  status: 'awaiting_claim',
  invoice_id: 'inv1',
  chain: 'btc',
  network: 'signet',
  coin: 'btc',
  amount: '1234.5',
  amount_units: '123450000000',
  amount_usd: null,
  rate: null,
  rate_rule: 'coin_amount',
  spread_percent: null,
  address: null,
  reference: null,
  reason: null,
  metadata: null,
  address_source: null,
  claim_url: 'http://127.0.0.1/refunds/claim/abc',
  claim_requires_proof: false,
  approvals: [],
  approvals_required: 1,
  plan_id: null,
  txid: null,
  fee_units: null,
  failure_reason: null,
  created_at_iso: '2026-01-01T00:00:00.000Z',
  updated_at_iso: '2026-01-01T00:00:00.000Z',
  claimed_at_iso: null,
  approved_at_iso: null,
  sent_at_iso: null,
  completed_at_iso: null,
};
const HOSTILE = '"><script>alert(1)</script><img src=x onerror=alert(2)>';
const FACTS: CoinFacts = { symbol: 'BTC', networkName: 'Bitcoin signet', family: 'utxo' };
const view = (item: Partial<ItemView> = {}, rest: Partial<ClaimView> = {}): ClaimView => ({
  item: { ...ITEM, ...item },
  projectName: HOSTILE,
  externalId: HOSTILE,
  proofMessage: `Refund ${ITEM.id} of invoice ${HOSTILE}: pay to <address>`,
  open: (item.status ?? ITEM.status) === 'awaiting_claim',
  ...rest,
});
const render = (v: ClaimView, extra: Partial<Parameters<typeof claimPage>[0]> = {}) =>
  claimPage({ view: v, locale: 'en', facts: FACTS, assets: CLAIM_ASSETS, base: '/refunds/claim/abc', formToken: 'x'.repeat(22), ...extra });

test('every text from partners and payers is escaped: project name, external id, entered values, the proof message', (t) => {
  const page = render(view({ claim_requires_proof: true }), {
    refused: { code: 'claim_address_mismatch', values: { address: HOSTILE, addressConfirmation: HOSTILE, signature: HOSTILE } },
  });
  t.false(page.includes('<script>'));
  t.false(page.includes('<img src=x'));
  t.true(page.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
  t.true(page.includes('data-error-code="claim_address_mismatch"'));
  t.true(page.includes('The two addresses differ.'));
});

test('an open refund shows the form; with a proof, the message for the entered address and the chain’s hint', (t) => {
  const plain = render(view());
  t.true(plain.includes('name="address"'));
  t.true(plain.includes('name="address_confirmation"'));
  t.false(plain.includes('name="signature"'));
  t.true(plain.includes('1,234.5 BTC'));
  const proof = render(view({ claim_requires_proof: true }, { externalId: 'order-1' }), {
    refused: { code: 'claim_proof_required', values: { address: 'tb1qexample', addressConfirmation: 'tb1qexample', signature: '' } },
  });
  t.true(proof.includes(`<pre class="message" id="proof-message">Refund ${ITEM.id} of invoice order-1: pay to tb1qexample</pre>`));
  t.true(proof.includes('name="signature"'));
  t.true(proof.includes('“Sign message”'));
  t.is(proofMessageFor(view({}, { externalId: 'order-1' }), ''), `Refund ${ITEM.id} of invoice order-1: pay to <address>`);
});

test('after the claim the page shows its state and no form; German speaks German', (t) => {
  for (const [status, state] of [
    ['claimed', 'claimed'],
    ['pending_approval', 'claimed'],
    ['approved', 'approved'],
    ['batched', 'approved'],
    ['sent', 'sent'],
    ['completed', 'completed'],
    ['cancelled', 'cancelled'],
    ['failed', 'failed'],
  ] as const) {
    const v = view({ status, address: 'tb1qpaid', txid: status === 'sent' || status === 'completed' ? 'ab'.repeat(32) : null });
    t.is(claimState(v), state);
    const page = render(v);
    t.false(page.includes('<form'), status);
    t.true(page.includes(`data-state="${state}"`));
    t.true(page.includes('tb1qpaid'));
  }
  t.is(claimState(view({ status: 'awaiting_claim' }, { open: false })), 'cancelled');
  const de = claimPage({ view: view({ status: 'completed', txid: 'ff' }), locale: 'de', facts: FACTS, assets: CLAIM_ASSETS, base: '/r', formToken: 'x' });
  t.true(de.includes('<html lang="de">'));
  t.true(de.includes('Abgeschlossen'));
});

test('every language of the claim texts fills every placeholder English fills, and no other', (t) => {
  t.deepEqual(placeholderMismatches(CLAIM_MESSAGES), []);
});

test('a Solana refund’s proof hint names the wallets’ Sign Message and the signature forms the chain accepts', (t) => {
  const page = render(view({ claim_requires_proof: true, chain: 'sol', network: 'devnet', coin: 'usdc_sol' }), {
    facts: { symbol: 'USDC', networkName: 'Solana devnet', family: 'sol' },
  });
  t.true(page.includes('(Phantom, Solflare)'));
  t.true(page.includes('base58, base64 or hex'));
  t.false(page.includes(CLAIM_MESSAGES.t('en', 'hint_other')));
});
