/**
 * What the x402 end-to-end tests share (issue 41): the official `@x402/*` clients as the payer's
 * independent peers (the gateway implements the protocol itself), invoices over the signed API,
 * the watcher driven to `paid`, and the signed webhooks read at the partner's receiver.
 */
import { signedFetch, waitFor } from '@gw/kernel/testing';
import type { Receiver, TestProject } from '@gw/testing';
import { ANVIL_CAIP, type X402Harness } from '@gw/plugin-x402/testing';
import { getAddress, id as eventTopic, zeroPadValue, type Wallet } from 'ethers';
import { verifyWebhook } from '@gw/webhook-verify';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { authorizationTypes } from '@x402/evm';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment, x402Client, x402HTTPClient } from '@x402/fetch';
import { privateKeyToAccount } from 'viem/accounts';

/** The payer's key as viem takes it. */
const viemAccount = (payer: Wallet) => privateKeyToAccount(payer.privateKey as `0x${string}`);

/** A payer's x402 client (`exact` on anvil's network with a viem account), its spend controls opened to the test token. */
export function payerClient(h: X402Harness, payer: Wallet): x402Client {
  return new x402Client()
    .register(ANVIL_CAIP, new ExactEvmScheme(viemAccount(payer)))
    .setSpendControls({ allowedAssets: [{ network: ANVIL_CAIP, asset: getAddress(h.usdc) }] });
}

/** `fetch` that pays a 402 the way an agent's does: `@x402/fetch` around `payerClient`. */
export function payingFetch(h: X402Harness, payer: Wallet): typeof fetch {
  return wrapFetchWithPayment(fetch, payerClient(h, payer));
}

/** The manual side of the same client: payloads made from a 402 (to alter them) and encoded as the header. */
export function payerHttpClient(h: X402Harness, payer: Wallet): x402HTTPClient {
  return new x402HTTPClient(payerClient(h, payer));
}

/** What a machine client's plain GET of a payer URL answers: status, the decoded `PAYMENT-REQUIRED`, the body. */
export async function paymentRequiredAt(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; required: PaymentRequired | undefined; body: any }> {
  const response = await fetch(url, { headers: { accept: 'application/json', ...headers } });
  const header = response.headers.get('payment-required');
  const text = await response.text();
  return {
    status: response.status,
    required: header ? decodePaymentRequiredHeader(header) : undefined,
    body: (response.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text,
  };
}

/**
 * Scans eth/anvil until the invoice is `paid`, mining a block between passes (confirmations);
 * answers the invoice as the API shows it.
 */
export async function untilPaid(h: X402Harness, invoiceId: string): Promise<any> {
  return waitFor(
    async () => {
      await h.scan();
      const invoice = (await signedFetch(h.gw.url, `/api/v1/invoices/${invoiceId}`, h.project)).body;
      if (invoice.status === 'paid') return invoice;
      await h.chain.anvil.mine(1);
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
  payer: Wallet,
  change: { accepted?: Partial<PaymentRequirements>; authorization?: Partial<Authorization> },
): Promise<PaymentPayload> {
  const accepted = { ...payment.accepted, ...change.accepted };
  const authorization = { ...(payment.payload['authorization'] as Authorization), ...change.authorization };
  const signature = await viemAccount(payer).signTypedData({
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

const TRANSFER = eventTopic('Transfer(address,address,uint256)');

/** The test token's `Transfer` logs into `to` (every block), oldest first. */
export async function transfersTo(h: X402Harness, to: string): Promise<{ readonly from: string; readonly value: bigint; readonly txHash: string }[]> {
  const logs = await h.chain.anvil.rpc<{ topics: string[]; data: string; transactionHash: string }[]>('eth_getLogs', [
    { address: h.usdc, fromBlock: '0x0', toBlock: 'latest', topics: [TRANSFER, null, zeroPadValue(getAddress(to), 32)] },
  ]);
  return logs.map((log) => ({ from: getAddress(`0x${log.topics[1]!.slice(26)}`), value: BigInt(log.data), txHash: log.transactionHash }));
}

/** What the gas wallet has sent so far (its next nonce, pending counted). */
export async function gasNonce(h: X402Harness): Promise<bigint> {
  return BigInt(await h.chain.anvil.rpc<string>('eth_getTransactionCount', [h.gasWallet.address, 'pending']));
}
