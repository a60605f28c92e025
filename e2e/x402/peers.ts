/**
 * What the x402 end-to-end tests share (issue 41): the official `@x402/*` clients as the payer's
 * independent peers (the gateway implements the protocol itself), invoices over the signed API,
 * the watcher driven to `paid`, and the signed webhooks read at the partner's receiver.
 */
import { signedFetch, waitFor, type TestKernel } from '@gw/kernel/testing';
import type { Receiver, TestProject, X402Account, X402Anvil } from '@gw/testing';
import { scanOnce } from '@gw/plugin-treasury/testing';
import { verifyWebhook } from '@gw/webhook-verify';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { authorizationTypes } from '@x402/evm';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment, x402Client, x402HTTPClient } from '@x402/fetch';
import { privateKeyToAccount } from 'viem/accounts';

/** A payer's x402 client (`exact` on anvil's network with a viem account), its spend controls opened to the test token. */
export function payerClient(x402: X402Anvil, payer: X402Account): x402Client {
  return new x402Client()
    .register(x402.caip as `${string}:${string}`, new ExactEvmScheme(privateKeyToAccount(payer.privateKey)))
    .setSpendControls({ allowedAssets: [{ network: x402.caip as `${string}:${string}`, asset: x402.token }] });
}

/** `fetch` that pays a 402 the way an agent's does: `@x402/fetch` around `payerClient`. */
export function payingFetch(x402: X402Anvil, payer: X402Account): typeof fetch {
  return wrapFetchWithPayment(fetch, payerClient(x402, payer));
}

/** The manual side of the same client: payloads made from a 402 (to alter them) and encoded as the header. */
export function payerHttpClient(x402: X402Anvil, payer: X402Account): x402HTTPClient {
  return new x402HTTPClient(payerClient(x402, payer));
}

/** An invoice of `amount` test USDC (`usdc` on eth/anvil) over the signed API; throws unless created. */
export async function usdcInvoice(gw: TestKernel, project: TestProject, amount: string): Promise<any> {
  const created = await signedFetch(gw.url, '/api/v1/invoices', {
    ...project,
    method: 'POST',
    body: { external_id: `x402-${Math.random().toString(36).slice(2)}`, coin: 'usdc', amount_crypto: amount },
  });
  if (created.status !== 201) throw new Error(`invoice: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body;
}

/** What a machine client's plain GET of a payer URL answers: status, the decoded `PAYMENT-REQUIRED`, the body. */
export async function paymentRequiredAt(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; required: PaymentRequired | undefined; body: any }> {
  const response = await fetch(url, { headers: { accept: 'application/json', ...headers } });
  const header = response.headers.get('payment-required');
  const text = await response.text();
  return { status: response.status, required: header ? decodePaymentRequiredHeader(header) : undefined, body: text ? JSON.parse(text) : undefined };
}

/**
 * Scans eth/anvil until the invoice is `paid`, mining a block between passes (confirmations);
 * answers the invoice as the API shows it.
 */
export async function untilPaid(gw: TestKernel, x402: X402Anvil, project: TestProject, invoiceId: string): Promise<any> {
  return waitFor(
    async () => {
      await scanOnce(gw, 'eth', 'anvil');
      const invoice = (await signedFetch(gw.url, `/api/v1/invoices/${invoiceId}`, project)).body;
      if (invoice.status === 'paid') return invoice;
      await x402.chain.anvil.mine(1);
      return undefined;
    },
    30_000,
    `invoice ${invoiceId} paid`,
  );
}

/** The webhook `type` of the invoice as the receiver got it, once it arrived; throws unless its signature verifies with the project's secret. */
export async function webhookOf(receiver: Receiver, project: TestProject, type: string, invoiceId: string): Promise<any> {
  const request = await waitFor(
    async () =>
      receiver.requests.find(
        (r) => r.headers['x-service-event-type'] === type && (JSON.parse(r.body) as { data?: { invoice_id?: string } }).data?.invoice_id === invoiceId,
      ),
    30_000,
    `${type} of ${invoiceId} at the receiver`,
  );
  const verdict = verifyWebhook({ header: String(request.headers['x-service-signature']), rawBody: request.body, secrets: [project.secret] });
  if (!verdict.ok) throw new Error(`${type} of ${invoiceId}: the signature does not verify (${JSON.stringify(verdict)})`);
  return JSON.parse(request.body);
}

/** An EIP-3009 authorization as an exact-EVM payload carries it. */
export type Authorization = { from: string; to: string; value: string; validAfter: string; validBefore: string; nonce: `0x${string}` };

/** `payment` with `change` applied to what it accepted and to its authorization, signed again by `payer` under the domain of the (changed) accepted asset and network. */
export async function altered(
  payment: PaymentPayload,
  payer: X402Account,
  change: { accepted?: Partial<PaymentRequirements>; authorization?: Partial<Authorization> },
): Promise<PaymentPayload> {
  const accepted = { ...payment.accepted, ...change.accepted };
  const authorization = { ...(payment.payload['authorization'] as Authorization), ...change.authorization };
  const signature = await privateKeyToAccount(payer.privateKey).signTypedData({
    domain: {
      name: String(accepted.extra['name']),
      version: String(accepted.extra['version']),
      chainId: Number(accepted.network.split(':')[1]),
      verifyingContract: accepted.asset as `0x${string}`,
    },
    types: authorizationTypes,
    primaryType: 'TransferWithAuthorization',
    message: {
      from: authorization.from as `0x${string}`,
      to: authorization.to as `0x${string}`,
      value: BigInt(authorization.value),
      validAfter: BigInt(authorization.validAfter),
      validBefore: BigInt(authorization.validBefore),
      nonce: authorization.nonce,
    },
  });
  return { ...payment, accepted, payload: { authorization, signature } };
}
