/**
 * The operator who holds no key (issue 41, "Gas for settlement": an external facilitator's URL): a
 * gateway with `plugins.x402.settlement: facilitator` pointed at an independent facilitator, here
 * the official in-process `x402Facilitator` with `@x402/evm`'s facilitator `ExactEvmScheme` (a viem
 * wallet on anvil pays its gas) served over HTTP the way the protocol's reference facilitator is.
 * An agent pays an invoice with `@x402/fetch`: the gateway verifies it itself, asks the facilitator
 * to verify and settle, and answers with the facilitator's transaction; the watcher turns the
 * invoice paid and `invoice.paid` arrives signed. A payment the gateway refuses never reaches the
 * facilitator's `/settle`.
 */
import { createServer, type Server } from 'node:http';
import test from 'ava';
import express from 'express';
import { getAddress, Wallet } from 'ethers';
import type { TestKernel } from '@gw/kernel/testing';
import { plugins } from '@gw/app-gateway';
import { closeServer, listenOnLoopback, Receiver, stopAll } from '@gw/testing';
import { ANVIL_CAIP, officialFacilitator, startX402, USDC, type X402Harness } from '@gw/plugin-x402/testing';
import { decodePaymentResponseHeader } from '@x402/core/http';
import { altered, gasNonce, payingFetch, payerHttpClient, paymentRequiredAt, transfersTo, untilPaid, webhookOf } from './peers.js';

let h: X402Harness;
/** The instance whose settlement is the external facilitator's (the harness's own settles with its gas wallet). */
let gw: TestKernel;
let receiver: Receiver;
let facilitatorServer: Server;
let facilitatorAddress: string;
const facilitatorCalls: string[] = [];

/** The official facilitator over HTTP (`POST /verify`, `POST /settle`, `GET /supported`), its gas paid by `wallet` on anvil. */
async function startFacilitator(wallet: Wallet): Promise<{ server: Server; url: string }> {
  const facilitator = officialFacilitator(h, wallet);
  const app = express();
  app.use(express.json());
  app.get('/supported', (_req, res) => {
    facilitatorCalls.push('supported');
    res.json(facilitator.getSupported());
  });
  for (const route of ['verify', 'settle'] as const) {
    app.post(`/${route}`, async (req, res) => {
      facilitatorCalls.push(route);
      const { paymentPayload, paymentRequirements } = req.body ?? {};
      if (!paymentPayload || !paymentRequirements) return void res.status(400).json({ error: 'paymentPayload and paymentRequirements are required' });
      try {
        res.json(
          route === 'verify' ? await facilitator.verify(paymentPayload, paymentRequirements) : await facilitator.settle(paymentPayload, paymentRequirements),
        );
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        res.json(
          route === 'verify'
            ? { isValid: false, invalidReason: reason }
            : { success: false, errorReason: reason, transaction: '', network: paymentRequirements.network },
        );
      }
    });
  }
  const server = createServer(app);
  return { server, url: `http://127.0.0.1:${await listenOnLoopback(server)}` };
}

test.before(async () => {
  receiver = await Receiver.start();
  h = await startX402({ plugins, webhookUrl: `${receiver.url}/hooks` });
  const wallet = new Wallet(Wallet.createRandom().privateKey);
  facilitatorAddress = wallet.address;
  await h.chain.anvil.sendEth(h.chain.funder, wallet.address, 10n ** 18n);
  const facilitator = await startFacilitator(wallet);
  facilitatorServer = facilitator.server;
  // An instance of the gateway that holds no key: its settlement is the external facilitator's.
  gw = await h.second({
    'plugins.x402.settlement': 'facilitator',
    'plugins.x402.gasWallets': {},
    'plugins.x402.facilitator': { url: facilitator.url, timeoutSeconds: 30 },
  });
});
test.after.always(() => stopAll(h, facilitatorServer ? { close: () => closeServer(facilitatorServer) } : undefined, receiver));

/** The invoice's payer URL at the instance settling through the facilitator. */
const payerUrl = (invoice: any): string => invoice.checkout_url.replace(h.gw.url, gw.url);

test.serial('a payment the gateway refuses (expired) never reaches the external facilitator’s /settle', async (t) => {
  const invoice = await h.invoice('1');
  const payer = await h.payer(5n * USDC);
  const client = payerHttpClient(h, payer);
  const asked = await paymentRequiredAt(payerUrl(invoice));
  t.is(asked.status, 402);
  const valid = await client.createPaymentPayload(asked.required!);
  const expired = await altered(valid, payer, { authorization: { validBefore: String(Math.floor(Date.now() / 1000) - 60) } });
  const before = facilitatorCalls.length;
  const answer = await paymentRequiredAt(payerUrl(invoice), client.encodePaymentSignatureHeader(expired));
  t.is(answer.status, 402);
  t.is(answer.required?.error, 'invalid_exact_evm_payload_authorization_valid_before');
  t.false(facilitatorCalls.slice(before).includes('settle'), JSON.stringify(facilitatorCalls.slice(before)));
});

test.serial(
  '@x402/fetch pays an invoice through a gateway whose settlement is the external facilitator’s: its transaction, its gas; the watcher turns the invoice paid',
  async (t) => {
    const invoice: any = await h.invoice('2');
    const payer = await h.payer(5n * USDC);
    const gasWalletNonce = await gasNonce(h);
    const before = facilitatorCalls.length;
    const response = await payingFetch(h, payer)(payerUrl(invoice));
    const body: any = await response.json();
    t.is(response.status, 200, JSON.stringify(body));
    const settled = decodePaymentResponseHeader(response.headers.get('payment-response')!);
    t.like(settled, { success: true, network: ANVIL_CAIP });
    // The facilitator was asked to verify, then to settle, once each: one verification per paid request.
    const calls = facilitatorCalls.slice(before).filter((c) => c !== 'supported');
    t.deepEqual(calls, ['verify', 'settle']);

    const tx = await h.chain.anvil.rpc<{ from: string }>('eth_getTransactionByHash', [settled.transaction]);
    t.is(getAddress(tx.from), facilitatorAddress, 'the facilitator paid the gas');
    t.is(await gasNonce(h), gasWalletNonce, 'the gateway sent nothing');
    t.deepEqual(await transfersTo(h, invoice.address), [{ from: payer.address, value: 2n * USDC, txHash: settled.transaction }]);

    await untilPaid(h, invoice.id);
    await webhookOf(receiver, h.project, 'invoice.paid', invoice.id);
  },
);
