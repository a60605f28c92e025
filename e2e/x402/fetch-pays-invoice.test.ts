/**
 * An agent holding USDC pays a merchant's invoice, and a checkout session, with the standard x402
 * client (issue 41, "Tests with real parts: anvil"): `@x402/fetch` GETs the payer URL, gets 402 with
 * the requirements, signs an EIP-3009 authorization with a viem account and retries; the gateway
 * verifies it, its gas wallet settles it on anvil, and the answer carries the transaction in
 * `PAYMENT-RESPONSE`. The invoice turns paid only when the watcher sees the transfer; the signed
 * `invoice.paid` webhook arrives; the money is at the invoice's own address and in the treasury.
 *
 * The node: anvil with the EIP-3009 test token as the gateway's eth/anvil coin `usdc`; the
 * gateway: the shipped composition's plugins, settlement by its own capped gas wallet.
 */
import test from 'ava';
import { getAddress } from 'ethers';
import { signedFetch } from '@gw/kernel/testing';
import { plugins } from '@gw/app-gateway';
import { Receiver, stopAll } from '@gw/testing';
import { ANVIL_CAIP, startX402, USDC, USDC_DOMAIN, type X402Harness } from '@gw/plugin-x402/testing';
import { decodePaymentResponseHeader } from '@x402/core/http';
import { gasNonce, paymentRequiredAt, payingFetch, transfersTo, untilPaid, webhookOf } from './peers.js';

let h: X402Harness;
let receiver: Receiver;

test.before(async () => {
  receiver = await Receiver.start();
  h = await startX402({ plugins, webhookUrl: `${receiver.url}/hooks` });
});
test.after.always(() => stopAll(h, receiver));

test('@x402/fetch pays an invoice’s checkout URL: 402 with its requirements, settled by the gas wallet, the watcher turns it paid, invoice.paid arrives signed', async (t) => {
  const invoice: any = await h.invoice('1.5');
  const units = 1_500_000n;

  // What an agent sees first: 402 and the requirements of this invoice, nothing else.
  const asked = await paymentRequiredAt(invoice.checkout_url);
  t.is(asked.status, 402);
  t.like(asked.required, { x402Version: 2, error: 'Payment required', resource: { url: invoice.checkout_url } });
  t.deepEqual(
    asked.required?.accepts.map((r) => ({ ...r, extra: { name: r.extra['name'], version: r.extra['version'] } })),
    [
      {
        scheme: 'exact',
        network: ANVIL_CAIP,
        asset: getAddress(h.usdc),
        amount: units.toString(),
        payTo: getAddress(invoice.address),
        maxTimeoutSeconds: 300,
        extra: USDC_DOMAIN,
      },
    ],
  );
  // A browser still gets the page.
  const page = await fetch(invoice.checkout_url, { headers: { accept: 'text/html' } });
  t.is(page.status, 200);
  t.regex(page.headers.get('content-type') ?? '', /text\/html/);

  const payer = await h.payer(10n * USDC);
  const gasBefore = await gasNonce(h);
  const response = await payingFetch(h, payer)(invoice.checkout_url);
  const body: any = await response.json();
  t.is(response.status, 200, JSON.stringify(body));
  const settled = decodePaymentResponseHeader(response.headers.get('payment-response')!);
  t.like(settled, { success: true, network: ANVIL_CAIP });
  t.is(getAddress(settled.payer!), payer.address);
  t.regex(settled.transaction, /^0x[0-9a-f]{64}$/);
  t.like(body, { object: 'x402_payment', invoice_id: invoice.id, transaction: settled.transaction, network: ANVIL_CAIP });
  t.is(getAddress(body.payer), payer.address);

  // On chain: one transaction of the gas wallet, the token moved from the payer into the invoice's address.
  t.is(await gasNonce(h), gasBefore + 1n);
  const receipt = await h.chain.anvil.receipt(settled.transaction);
  t.is(receipt.status, '0x1');
  t.deepEqual(await transfersTo(h, invoice.address), [{ from: payer.address, value: units, txHash: settled.transaction }]);
  t.is(await h.balanceOf(invoice.address), units);
  t.is(await h.balanceOf(payer.address), 10n * USDC - units);

  // The settlement's word credits nothing: the watcher does.
  t.not((await signedFetch(h.gw.url, `/api/v1/invoices/${invoice.id}`, h.project)).body.status, 'paid');
  const paid = await untilPaid(h, invoice.id);
  t.deepEqual(
    paid.transactions.map((tx: any) => [tx.tx_hash, tx.amount_units, tx.status]),
    [[settled.transaction, units.toString(), 'confirmed']],
  );
  const hook = await webhookOf(receiver, h.project, 'invoice.paid', invoice.id);
  t.is(hook.data.invoice_id, invoice.id);

  // The treasury shows the money at the invoice's address.
  const { rows } = await h.gw.kernel.cradle.treasuryBalances.balances(
    { groupBy: 'address', chain: 'eth', network: 'anvil', projectId: h.project.projectId, limit: 100 },
    { projectId: h.project.projectId },
  );
  t.like(
    rows.find((r) => r.coin === 'usdc' && r.address?.toLowerCase() === invoice.address.toLowerCase()),
    { confirmed_units: units.toString(), unclaimed_units: '0' },
    JSON.stringify(rows),
  );

  // Paid: the URL asks for nothing more (the page, showing it paid).
  const after = await paymentRequiredAt(invoice.checkout_url);
  t.is(after.status, 200);
  t.is(after.required, undefined);
});

test('@x402/fetch pays a checkout session’s URL: the session’s coin is picked for the agent, the invoice settled, the session completes', async (t) => {
  const created = await signedFetch(h.gw.url, '/api/v1/checkout-sessions', {
    ...h.project,
    method: 'POST',
    body: { price_currency: 'usdc', price_amount: '2.5' },
  });
  t.is(created.status, 201, JSON.stringify(created.body));
  const session = created.body;

  const asked = await paymentRequiredAt(session.url);
  t.is(asked.status, 402);
  t.like(asked.required?.accepts[0], { scheme: 'exact', network: ANVIL_CAIP, asset: getAddress(h.usdc), amount: '2500000' });

  const payer = await h.payer(10n * USDC);
  const response = await payingFetch(h, payer)(session.url);
  const body: any = await response.json();
  t.is(response.status, 200, JSON.stringify(body));
  const settled = decodePaymentResponseHeader(response.headers.get('payment-response')!);
  t.true(settled.success);
  t.like(body, { object: 'x402_payment', session_id: session.id, transaction: settled.transaction });

  const picked = (await signedFetch(h.gw.url, `/api/v1/checkout-sessions/${session.id}`, h.project)).body;
  t.like(picked, { coin: 'usdc', invoice_id: body.invoice_id });
  t.is(asked.required?.accepts[0]?.payTo, getAddress((await signedFetch(h.gw.url, `/api/v1/invoices/${body.invoice_id}`, h.project)).body.address));

  await untilPaid(h, body.invoice_id);
  await webhookOf(receiver, h.project, 'invoice.paid', body.invoice_id);
  t.is((await signedFetch(h.gw.url, `/api/v1/checkout-sessions/${session.id}`, h.project)).body.status, 'completed');
});
