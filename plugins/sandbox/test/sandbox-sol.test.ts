/**
 * The sandbox with Solana turned on (issue 43): a generated sandbox key (an address whose private
 * half is dropped), invoices of the three coins paying that one address with a Solana Pay reference
 * each, and every named simulation driving a Solana invoice as it drives any other chain's.
 */
import test from 'ava';
import { stopAll } from '@gw/testing';
import { SIMULATIONS } from '../src/index.js';
import { sandboxClient, startSandboxKernel, type SandboxClient } from './helpers.js';
import type { TestKernel } from '@gw/kernel/testing';

let gw: TestKernel;
let c: SandboxClient;
test.before(async () => {
  gw = await startSandboxKernel({ 'chains.enabled': ['btc', 'eth', 'tron', 'ada', 'polygon', 'bsc', 'ton', 'sol'] });
  c = await sandboxClient(gw);
});
test.after.always(() => stopAll(gw));

let seq = 0;
const create = async (coin: string, body: Record<string, unknown> = { amount_crypto: '1.5' }) => {
  const res = await c.call('POST', '/invoices', { external_id: `sol-${coin}-${++seq}`, coin, ...body });
  if (res.status !== 201) throw new Error(`create ${coin}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string; address: string; payment_uri: string; status: string; amount_crypto: string };
};
const simulate = async (id: string, what: string, body?: unknown) => c.call('POST', `/invoices/${id}/simulate-${what}`, body);
const status = async (id: string) => (await c.call('GET', `/invoices/${id}`)).body.status as string;

test.serial('provisioning generates a Solana key; every Solana invoice pays that address with its own reference', async (t) => {
  const sol = c.sandbox.wallets.find((w) => w.chain === 'sol');
  t.truthy(sol, JSON.stringify(c.sandbox.wallets.map((w) => w.chain)));
  t.regex(sol!.xpub, /^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'a base58 address');
  const usdt = gw.kernel.cradle.chains.get('sol').definition.coins.find((coin) => coin.id === 'usdt_sol')!;
  const references = new Set<string>();
  for (const coin of ['sol', 'usdc_sol', 'usdt_sol', 'sol']) {
    const inv = await create(coin);
    t.is(inv.address, sol!.xpub, `${coin} pays the merchant's one address`);
    const uri = new URL(inv.payment_uri);
    t.is(uri.protocol, 'solana:');
    t.is(uri.pathname, sol!.xpub);
    t.is(uri.searchParams.get('amount'), '1.5');
    const reference = uri.searchParams.get('reference');
    t.truthy(reference, inv.payment_uri);
    references.add(reference!);
    if (coin === 'usdt_sol')
      t.is(uri.searchParams.get('spl-token'), usdt.sandboxContract ?? 'a sandbox contract', 'no devnet USDT: the synthetic sandbox mint');
    if (coin === 'sol') t.is(uri.searchParams.get('spl-token'), null);
  }
  t.is(references.size, 4, 'a fresh reference per invoice');
});

test.serial('every named simulation drives a Solana invoice', async (t) => {
  const seen = new Set<string>();
  const run = async (id: string, what: (typeof SIMULATIONS)[number], expected: string, body?: unknown) => {
    const res = await simulate(id, what, body);
    t.is(res.status, 200, `${what}: ${JSON.stringify(res.body)}`);
    t.is(await status(id), expected, what);
    seen.add(what);
  };
  const a = await create('sol');
  await run(a.id, 'detect', 'detected');
  await run(a.id, 'paid', 'paid');
  await run(a.id, 'reorg', 'reverted');
  await run(a.id, 'reconfirm', 'paid');
  const over = await create('usdc_sol');
  await run(over.id, 'detect', 'detected');
  await run(over.id, 'overpaid', 'overpaid', { multiplier: 1.5 });
  const partial = await create('usdt_sol');
  await run(partial.id, 'detect', 'detected');
  await run(partial.id, 'partial', 'detected', { fraction: 0.25 });
  const amounts = (await c.call('GET', `/invoices/${partial.id}`)).body.transactions.map((tx: { status: string; amount_units: string }) => [
    tx.status,
    tx.amount_units,
  ]);
  t.deepEqual(
    amounts,
    [
      ['dropped', '1500000'],
      ['pending', '375000'],
    ],
    'a quarter of 1.5 USDT (6 decimals) replaced the detected payment',
  );
  const late = await create('sol');
  await run(late.id, 'expire', 'expired');
  await run(late.id, 'late-payment', 'expired_paid_late');
  t.deepEqual([...seen].sort(), [...SIMULATIONS].sort(), 'all of them');
});
