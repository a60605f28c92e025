/**
 * A partner protects its own HTTP API with the standard x402 middleware pointed at the gateway as
 * its facilitator (issue 41, "A facilitator for partners' own APIs"): `@x402/express`'s
 * `paymentMiddleware` with an `x402ResourceServer` over `HTTPFacilitatorClient` at
 * `<gateway>/api/v1/x402/facilitator`, authenticated by the project's facilitator token, its route
 * priced with `@gw/client`'s helpers (`gatewayAsset` for the price, `gatewayPayTo` for a fresh
 * payTo per call). An agent pays three calls with `@x402/fetch`: three 200s, three invoices of the
 * project each paid into its own pool address, three signed `invoice.paid` webhooks.
 */
import { createServer, type Server } from 'node:http';
import test from 'ava';
import express from 'express';
import { signedFetch } from '@gw/kernel/testing';
import { plugins } from '@gw/app-gateway';
import { closeServer, listenOnLoopback, Receiver, stopAll } from '@gw/testing';
import { ANVIL_CAIP, startX402, USDC, type X402Harness } from '@gw/plugin-x402/testing';
import { gatewayAsset, gatewayPayTo, x402FacilitatorToken } from '@gw/client';
import { HTTPFacilitatorClient } from '@x402/core/server';
import { decodePaymentResponseHeader } from '@x402/core/http';
import { ExactEvmScheme as ExactEvmServerScheme } from '@x402/evm/exact/server';
import { paymentMiddleware, x402ResourceServer } from '@x402/express';
import { payingFetch, transfersTo, untilPaid, webhookOf } from './peers.js';

const PRICE = '0.25';
const PRICE_UNITS = 250_000n;
let h: X402Harness;
let receiver: Receiver;
let partner: Server;
let partnerUrl: string;

test.before(async () => {
  receiver = await Receiver.start();
  h = await startX402({ plugins, webhookUrl: `${receiver.url}/hooks` });

  // The partner's API, configured as its docs would tell it: the gateway is up before the middleware asks /supported.
  const facilitatorUrl = `${h.gw.url}/api/v1/x402/facilitator`;
  const token = await x402FacilitatorToken(h.project.projectId, h.project.secret);
  const asset = await gatewayAsset({ facilitatorUrl, token, coin: 'usdc' });
  const facilitator = new HTTPFacilitatorClient({
    url: facilitatorUrl,
    createAuthHeaders: async () => {
      const headers = { Authorization: `Bearer ${token}` };
      return { verify: headers, settle: headers, supported: headers };
    },
  });
  const server = new x402ResourceServer(facilitator).register(asset.network as `${string}:${string}`, new ExactEvmServerScheme());
  const app = express();
  app.use(
    paymentMiddleware(
      {
        'GET /forecast': {
          accepts: {
            scheme: 'exact',
            network: asset.network as `${string}:${string}`,
            payTo: gatewayPayTo({ facilitatorUrl, token, coin: 'usdc', amount: PRICE, description: 'A forecast' }),
            price: { amount: PRICE_UNITS.toString(), asset: asset.asset, extra: asset.extra },
            maxTimeoutSeconds: 120,
          },
          description: 'A forecast',
          mimeType: 'application/json',
        },
      },
      server,
    ),
  );
  app.get('/forecast', (_req, res) => void res.json({ forecast: 'sunny' }));
  partner = createServer(app);
  partnerUrl = `http://127.0.0.1:${await listenOnLoopback(partner)}`;
});
test.after.always(() => stopAll(partner ? { close: () => closeServer(partner) } : undefined, h, receiver));

test('three calls to a partner’s API paid with @x402/fetch through the gateway as facilitator: three 200s, three invoices paid into the operator’s pool, three invoice.paid webhooks', async (t) => {
  const payer = await h.payer(10n * USDC);
  const pay = payingFetch(h, payer);
  const settlements = [];
  for (let call = 0; call < 3; call++) {
    const response = await pay(`${partnerUrl}/forecast`);
    t.is(response.status, 200, await response.clone().text());
    t.deepEqual(await response.json(), { forecast: 'sunny' });
    const settled = decodePaymentResponseHeader(response.headers.get('payment-response')!);
    t.like(settled, { success: true, network: ANVIL_CAIP });
    settlements.push(settled.transaction);
  }
  t.is(new Set(settlements).size, 3, 'three transactions');

  // Each call's payTo was a fresh invoice of the project; each got exactly its price from the payer.
  const listed = (await signedFetch(h.gw.url, '/api/v1/invoices?limit=100', h.project)).body.items as any[];
  const invoices = listed.filter((i) => i.external_id.startsWith('x402_'));
  t.is(invoices.length, 3, JSON.stringify(listed.map((i) => i.external_id)));
  t.is(new Set(invoices.map((i) => i.address.toLowerCase())).size, 3, 'three distinct addresses');
  const transfers = (await Promise.all(invoices.map((i) => transfersTo(h, i.address)))).flat();
  t.deepEqual(
    transfers.map((tr) => [tr.from, tr.value]),
    invoices.map(() => [payer.address, PRICE_UNITS]),
  );
  t.deepEqual(transfers.map((tr) => tr.txHash).sort(), [...settlements].sort());
  t.true(invoices.every((i) => i.coin === 'usdc' && i.amount_crypto === PRICE));
  // The addresses are the operator's own: the project's pool, derived from its verified wallet.
  const pool = await h.gw.kernel.cradle.addressPoolService.lookupAddresses(
    'eth',
    invoices.map((i) => i.address),
  );
  t.deepEqual(
    pool.map((p) => [p.projectId, p.state]),
    invoices.map(() => [h.project.projectId, 'allocated']),
  );

  for (const invoice of invoices) {
    await untilPaid(h, invoice.id);
    await webhookOf(receiver, h.project, 'invoice.paid', invoice.id);
  }
  t.is(await h.balanceOf(payer.address), 10n * USDC - 3n * PRICE_UNITS);
});
