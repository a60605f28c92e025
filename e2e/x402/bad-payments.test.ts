/**
 * Bad x402 payments over HTTP (issue 41, "Bad input"), each refused at the invoice's payer URL with
 * 402 and the protocol's reason in `PAYMENT-REQUIRED`, and nothing sent on chain (the gas wallet's
 * nonce unchanged): a replayed authorization, an expired one, the wrong amount, asset or network,
 * a `payTo` that is not the invoice's, a payer short of the amount, a settlement over the gas
 * wallet's caps. Then two instances of the gateway on one database, sharing the gas wallet,
 * settling the same authorization at once: exactly one transaction.
 *
 * Each bad payload starts as a valid one made by the official client (`x402HTTPClient`
 * `createPaymentPayload` from the invoice's 402) and is altered and signed again with viem, as a
 * cheating or confused client would.
 */
import test, { type ExecutionContext } from 'ava';
import type { TestKernel } from '@gw/kernel/testing';
import { plugins } from '@gw/app-gateway';
import { startX402, USDC, type X402Harness } from '@gw/plugin-x402/testing';
import type { PaymentPayload } from '@x402/core/types';
import { getAddress, Wallet } from 'ethers';
import { altered, gasNonce, paymentRequiredAt, payerHttpClient, transfersTo } from './peers.js';

let h: X402Harness;
let other: TestKernel;

test.before(async () => {
  // A pool for every invoice of the file: none shares an address.
  h = await startX402({ plugins, poolSize: 24 });
  // A second instance of the same gateway: the same database, configuration and gas wallet.
  other = await h.second();
});
test.after.always(() => h?.stop());

/** A valid payment of `payer` for the invoice at `url`, as the official client makes it from the 402. */
async function validPayment(url: string, payer: Wallet): Promise<PaymentPayload> {
  const asked = await paymentRequiredAt(url);
  if (asked.status !== 402 || !asked.required) throw new Error(`no 402 at ${url}: ${asked.status} ${JSON.stringify(asked.body)}`);
  return payerHttpClient(h, payer).createPaymentPayload(asked.required);
}

/** Sends `payment` to `url` (as the payment header) and answers the status and the reason the 402 gives. */
async function send(url: string, payment: PaymentPayload, payer: Wallet): Promise<{ status: number; reason: string | undefined; body: any }> {
  const answer = await paymentRequiredAt(url, payerHttpClient(h, payer).encodePaymentSignatureHeader(payment));
  return { status: answer.status, reason: answer.required?.error, body: answer.body };
}

/** Asserts that `url` refuses `payment` with 402 and `reason`, and that the gas wallet sent nothing meanwhile. */
async function refused(t: ExecutionContext, url: string, payment: PaymentPayload, payer: Wallet, reason: string): Promise<void> {
  const nonce = await gasNonce(h);
  const answer = await send(url, payment, payer);
  t.is(answer.status, 402, JSON.stringify(answer.body));
  t.is(answer.reason, reason);
  t.is(await gasNonce(h), nonce, 'nothing sent on chain');
}

/**
 * A fresh invoice of 1 USDC, a valid payment of it by a payer holding 5, and
 * `refusedAltered(change, reason)`: asserts that the payment altered by `change` (and signed again)
 * is refused with `reason`, nothing sent.
 */
async function alteredPayments(t: ExecutionContext) {
  const invoice: any = await h.invoice('1');
  const payer = await h.payer(5n * USDC);
  const payment = await validPayment(invoice.checkout_url, payer);
  const refusedAltered = async (change: Parameters<typeof altered>[2], reason: string) =>
    refused(t, invoice.checkout_url, await altered(payment, payer, change), payer, reason);
  return { refusedAltered };
}

const nowSeconds = () => BigInt(Math.floor(Date.now() / 1000));

test.serial('a replayed authorization: the first settles, the same header again is invalid_exact_evm_nonce_already_used, nothing sent', async (t) => {
  const invoice: any = await h.invoice('1');
  const payer = await h.payer(5n * USDC);
  const payment = await validPayment(invoice.checkout_url, payer);
  const nonce = await gasNonce(h);
  const first = await send(invoice.checkout_url, payment, payer);
  t.is(first.status, 200, JSON.stringify(first.body));
  t.is(await gasNonce(h), nonce + 1n);
  // The invoice asks nothing more (its settlement counts before the watchers record it), and the
  // payment is told why: its authorization was settled.
  await refused(t, invoice.checkout_url, payment, payer, 'invalid_exact_evm_nonce_already_used');
  // Another instance of the gateway knows it too.
  await refused(t, invoice.checkout_url.replace(h.gw.url, other.url), payment, payer, 'invalid_exact_evm_nonce_already_used');
  t.is(await h.balanceOf(invoice.address), USDC);
});

test.serial('an expired authorization is invalid_exact_evm_payload_authorization_valid_before; one not yet valid is …_valid_after', async (t) => {
  const { refusedAltered } = await alteredPayments(t);
  await refusedAltered({ authorization: { validBefore: (nowSeconds() - 60n).toString() } }, 'invalid_exact_evm_payload_authorization_valid_before');
  await refusedAltered({ authorization: { validAfter: (nowSeconds() + 600n).toString() } }, 'invalid_exact_evm_payload_authorization_valid_after');
});

test.serial(
  'the wrong amount: an authorization of less than the requirement, or an accepted amount the invoice never asked, is …_value_mismatch',
  async (t) => {
    const { refusedAltered } = await alteredPayments(t);
    const less = (USDC - 1n).toString();
    await refusedAltered({ authorization: { value: less } }, 'invalid_exact_evm_payload_authorization_value_mismatch');
    await refusedAltered({ accepted: { amount: less }, authorization: { value: less } }, 'invalid_exact_evm_payload_authorization_value_mismatch');
  },
);

test.serial('the wrong asset (another token signed for) is invalid_payment_requirements', async (t) => {
  const { refusedAltered } = await alteredPayments(t);
  await refusedAltered({ accepted: { asset: getAddress(h.chain.contracts.erc20) } }, 'invalid_payment_requirements');
});

test.serial('the wrong network (Ethereum mainnet signed for) is invalid_exact_evm_network_mismatch', async (t) => {
  const { refusedAltered } = await alteredPayments(t);
  await refusedAltered({ accepted: { network: 'eip155:1' } }, 'invalid_exact_evm_network_mismatch');
});

test.serial('a payTo that is not the invoice’s, in what was accepted or in the authorization alone, is invalid_exact_evm_recipient_mismatch', async (t) => {
  const { refusedAltered } = await alteredPayments(t);
  const elsewhere = Wallet.createRandom().address;
  await refusedAltered({ accepted: { payTo: elsewhere }, authorization: { to: elsewhere } }, 'invalid_exact_evm_recipient_mismatch');
  await refusedAltered({ authorization: { to: elsewhere } }, 'invalid_exact_evm_recipient_mismatch');
  t.deepEqual(await transfersTo(h, elsewhere), []);
});

test.serial('a payer holding less than the amount is invalid_exact_evm_insufficient_balance', async (t) => {
  const invoice: any = await h.invoice('1');
  const payer = await h.payer(USDC - 1n);
  await refused(t, invoice.checkout_url, await validPayment(invoice.checkout_url, payer), payer, 'invalid_exact_evm_insufficient_balance');
});

test.serial('a header that is no payment is invalid_payload', async (t) => {
  const invoice: any = await h.invoice('1');
  const nonce = await gasNonce(h);
  const answer = await paymentRequiredAt(invoice.checkout_url, { 'PAYMENT-SIGNATURE': Buffer.from('{"x402Version":2,"payload":{}}').toString('base64') });
  t.is(answer.status, 402);
  t.is(answer.required?.error, 'invalid_payload');
  t.is(await gasNonce(h), nonce);
});

test.serial(
  'the gas wallet’s caps hold: over the cap per settlement, and over the cap per 24 hours (summed over every instance), refused before anything is sent',
  async (t) => {
    const gasWallet = (limits: { maxPerSettlementUnits: string; maxPerDayUnits: string }) => ({
      'plugins.x402.gasWallets': { eth: { anvil: { privateKeyFile: h.gasKeyFile, ...limits } } },
    });
    const invoice: any = await h.invoice('1');
    const payer = await h.payer(5n * USDC);
    const payment = await validPayment(invoice.checkout_url, payer);

    const perSettlement = await h.second(gasWallet({ maxPerSettlementUnits: '1', maxPerDayUnits: (10n ** 19n).toString() }));
    await refused(t, invoice.checkout_url.replace(h.gw.url, perSettlement.url), payment, payer, 'unexpected_verify_error');

    // Every settlement so far (the other tests') counts against the day: a cap of exactly what they spent leaves no room.
    const spent = (await h.gw.kernel.cradle.x402Settlements.list({ limit: 1000 })).reduce((sum, s) => sum + BigInt(s.spend_units ?? '0'), 0n);
    t.true(spent > 0n, 'earlier settlements recorded their spend');
    const perDay = await h.second(gasWallet({ maxPerSettlementUnits: (10n ** 17n).toString(), maxPerDayUnits: spent.toString() }));
    await refused(t, invoice.checkout_url.replace(h.gw.url, perDay.url), payment, payer, 'unexpected_verify_error');

    // The same payment within the caps settles.
    const settled = await send(invoice.checkout_url, payment, payer);
    t.is(settled.status, 200, JSON.stringify(settled.body));
  },
);

test.serial(
  'two instances settling the same authorization at once: exactly one transaction, one 200 and one invalid_exact_evm_nonce_already_used',
  async (t) => {
    for (let round = 0; round < 3; round++) {
      const invoice: any = await h.invoice('1');
      const payer = await h.payer(5n * USDC);
      const payment = await validPayment(invoice.checkout_url, payer);
      const nonce = await gasNonce(h);
      const answers = await Promise.all([send(invoice.checkout_url, payment, payer), send(invoice.checkout_url.replace(h.gw.url, other.url), payment, payer)]);
      t.deepEqual(answers.map((a) => a.status).sort(), [200, 402], JSON.stringify(answers));
      t.is(answers.find((a) => a.status === 402)!.reason, 'invalid_exact_evm_nonce_already_used');
      t.is(await gasNonce(h), nonce + 1n, 'one transaction of the gas wallet');
      t.is((await transfersTo(h, invoice.address)).length, 1, 'one transfer into the invoice’s address');
      const rows = (await h.gw.kernel.cradle.x402Settlements.list({ projectId: h.project.projectId, limit: 1000 })).filter((r) => r.invoice_id === invoice.id);
      t.deepEqual(
        rows.map((r) => r.status),
        ['settled'],
        'one settlement recorded',
      );
      t.is(await h.balanceOf(payer.address), 4n * USDC);
    }
  },
);
