/**
 * x402 requirements and verification of invoices (issue 41, DESIGN41 "Requirements for an
 * invoice", "Verification") on anvil: the EIP-3009 test token as the project's USDC on eth/anvil,
 * payments signed as an x402 client signs them (ethers `signTypedData`), every refusal with the
 * protocol's reason, and nothing sent on chain by a verification.
 */
import test from 'ava';
import { waitFor } from '@gw/kernel/testing';
import type { InvoiceView } from '@gw/plugin-invoices/contract';
import { getAddress, Wallet } from 'ethers';
import { RpcProxy } from '@gw/testing';
import { EIP3009_ABI } from '@gw/chain-evm';
import type { PaymentRequirements } from '../src/protocol/messages.js';
import type { PaymentTarget } from '../src/services/payment-target.js';
import { ANVIL_CAIP, resourceOf, signPayment, startX402, USDC, USDC_DOMAIN, type PaymentOptions, type X402Harness } from './helpers.js';

let h: X402Harness;

test.before(async () => {
  h = await startX402();
});
test.after.always(() => h?.stop());

const payments = () => h.gw.kernel.cradle.x402Payments;
const targetOf = (invoice: InvoiceView): PaymentTarget => ({ projectId: h.project.projectId, invoiceId: invoice.id, source: 'invoice' });

/** A fresh USDC invoice of `amount` and the one requirement the gateway asks for it. */
async function offered(amount = '2.5'): Promise<{ invoice: InvoiceView; requirements: PaymentRequirements }> {
  const invoice = await h.invoice(amount);
  const required = await payments().requirementsFor(invoice, resourceOf(`${h.gw.url}/checkout/x`, `Invoice ${invoice.id}`));
  if (!required) throw new Error('the invoice has no x402 requirement');
  return { invoice, requirements: required.accepts[0]! };
}

/** Pays `units` of USDC to the invoice's address from anvil's funder, then scans until the invoice is in `status`. */
async function payDirectly(invoice: InvoiceView, units: bigint, status: string): Promise<InvoiceView> {
  await h.chain.anvil.sendToken(h.usdc, h.chain.funder, invoice.address, units);
  return waitFor(
    async () => {
      await h.scan();
      const now = await h.reload(invoice.id);
      if (now.status === status) return now;
      await h.chain.anvil.mine(1);
      return undefined;
    },
    30_000,
    `invoice ${status}`,
  );
}

test.serial('a USDC invoice asks for exact on eip155:31337: the token, the amount due, its address, the domain from the chain', async (t) => {
  const invoice = await h.invoice('2.5');
  const resource = resourceOf(`${h.gw.url}/checkout/token`, `Invoice ${invoice.id}`);
  const required = await payments().requirementsFor(invoice, resource);
  t.deepEqual(required, {
    x402Version: 2,
    error: 'Payment required',
    resource,
    accepts: [
      {
        scheme: 'exact',
        network: ANVIL_CAIP,
        asset: getAddress(h.usdc),
        amount: '2500000',
        payTo: getAddress(invoice.address),
        maxTimeoutSeconds: 300,
        extra: { name: USDC_DOMAIN.name, version: USDC_DOMAIN.version },
      },
    ],
  });
});

test.serial(
  'no requirement for a coin without EIP-3009 (the ERC-20 tok), the native coin, or a paid invoice; the rest still due after a partial payment',
  async (t) => {
    const resource = resourceOf('http://x.test/pay');
    t.is(await payments().requirementsFor(await h.invoice('3', { coin: 'tok' }), resource), undefined);
    t.is(await payments().requirementsFor(await h.invoice('0.01', { coin: 'eth' }), resource), undefined);

    const partial = await payDirectly(await h.invoice('2'), 500_000n, 'partial');
    t.is((await payments().requirementsFor(partial, resource))?.accepts[0]?.amount, '1500000');

    const paid = await payDirectly(await h.invoice('1'), USDC, 'paid');
    t.is(await payments().requirementsFor(paid, resource), undefined);
  },
);

test.serial('a valid payment verifies with its payer, and nothing is sent on chain', async (t) => {
  const { invoice, requirements } = await offered();
  const payer = await h.payer(10n * USDC);
  const payload = await signPayment(payer, requirements);
  const sentBefore = await h.sentCount(h.gasWallet.address);
  t.deepEqual(await payments().verify(payload, requirements, targetOf(invoice)), { isValid: true, payer: payer.address });
  t.is(await h.sentCount(h.gasWallet.address), sentBefore);
  t.is(await h.balanceOf(payer.address), 10n * USDC);
  t.truthy(payments().match(payload, [requirements]));
});

/** Verifies and expects the refusal `reason`. */
async function refused(t: import('ava').ExecutionContext, payload: unknown, requirements: PaymentRequirements, target: PaymentTarget, reason: string) {
  const answer = await payments().verify(payload, requirements, target);
  t.false(answer.isValid, JSON.stringify(answer));
  t.is(answer.invalidReason, reason, JSON.stringify(answer));
  return answer;
}

/**
 * A fresh offer, a payer holding 10 USDC, and `refusedSigned(options, reason)`: verifies the
 * payer's payment of the offer signed with `options` and expects the refusal `reason`.
 */
async function payingOffer(t: import('ava').ExecutionContext) {
  const { invoice, requirements } = await offered();
  const payer = await h.payer(10n * USDC);
  const target = targetOf(invoice);
  const refusedSigned = async (options: PaymentOptions, reason: string) =>
    refused(t, await signPayment(payer, requirements, options), requirements, target, reason);
  return { invoice, requirements, payer, target, refusedSigned };
}

test.serial('unreadable payloads and other versions are refused with invalid_payload and invalid_x402_version', async (t) => {
  const { invoice, requirements } = await offered();
  const payload = await signPayment(await h.payer(10n * USDC), requirements);
  const target = targetOf(invoice);
  for (const bad of [
    'not json',
    null,
    [payload],
    { ...payload, payload: { ...payload.payload, signature: '0x1234' } },
    { ...payload, payload: { ...payload.payload, authorization: { ...payload.payload.authorization, value: '-1' } } },
    { ...payload, payload: { ...payload.payload, authorization: { ...payload.payload.authorization, value: '1e6' } } },
    { ...payload, payload: { ...payload.payload, authorization: { ...payload.payload.authorization, nonce: '0x01' } } },
    { ...payload, payload: { ...payload.payload, authorization: { ...payload.payload.authorization, from: 'alice' } } },
    { ...payload, accepted: { ...payload.accepted, amount: 'x'.repeat(100) } },
    { x402Version: 2 },
  ]) {
    await refused(t, bad, requirements, target, 'invalid_payload');
  }
  await refused(t, { ...payload, x402Version: 1 }, requirements, target, 'invalid_x402_version');
  await refused(t, { x402Version: 1, scheme: 'exact', network: 'base-sepolia', payload: payload.payload }, requirements, target, 'invalid_x402_version');
  t.is(payments().match({ ...payload, x402Version: 1 }, [requirements]), undefined);
});

test.serial('scheme, network and asset other than offered are refused with their reasons', async (t) => {
  const { requirements, payer, target, refusedSigned } = await payingOffer(t);
  const payload = await signPayment(payer, requirements);
  await refused(t, { ...payload, accepted: { ...payload.accepted, scheme: 'upto' } }, requirements, target, 'invalid_exact_evm_scheme');
  await refused(t, payload, { ...requirements, scheme: 'upto' } as unknown as PaymentRequirements, target, 'invalid_exact_evm_scheme');
  await refusedSigned({ accepted: { network: 'eip155:1' } }, 'invalid_exact_evm_network_mismatch');
  // Base mainnet: no network of this gateway.
  const base = { ...requirements, network: 'eip155:8453' as const };
  await refused(t, await signPayment(payer, base), base, target, 'invalid_network');
  // Another token (the ERC-20 tok) in what the payer accepted, or in the requirement a caller names.
  const tok = getAddress(h.chain.contracts.erc20);
  await refusedSigned({ accepted: { asset: tok } }, 'invalid_payment_requirements');
  const tokRequirements = { ...requirements, asset: tok };
  await refused(t, await signPayment(payer, tokRequirements), tokRequirements, target, 'invalid_payment_requirements');
  t.is(payments().match(await signPayment(payer, requirements, { accepted: { asset: tok } }), [requirements]), undefined);
});

test.serial('the wrong amount is refused: in what was accepted, in the signed value, or in requirements the gateway did not offer', async (t) => {
  const { requirements, payer, target, refusedSigned } = await payingOffer(t);
  await refusedSigned({ accepted: { amount: '1' } }, 'invalid_exact_evm_payload_authorization_value_mismatch');
  await refusedSigned({ authorization: { value: '2499999' } }, 'invalid_exact_evm_payload_authorization_value_mismatch');
  const cheaper = { ...requirements, amount: '1' };
  await refused(t, await signPayment(payer, cheaper), cheaper, target, 'invalid_payment_requirements');
});

test.serial('a payTo that is not the invoice’s address is refused: signed to another, accepted for another, or another invoice’s requirement', async (t) => {
  const { requirements, payer, target, refusedSigned } = await payingOffer(t);
  const other = await offered();
  const elsewhere = Wallet.createRandom().address;
  await refusedSigned({ authorization: { to: elsewhere } }, 'invalid_exact_evm_recipient_mismatch');
  await refusedSigned({ accepted: { payTo: elsewhere } }, 'invalid_exact_evm_recipient_mismatch');
  // A requirement of another invoice of the project, verified for this one.
  await refused(t, await signPayment(payer, other.requirements), other.requirements, target, 'invalid_payment_requirements');
  // A target the project does not have.
  await refused(
    t,
    await signPayment(payer, requirements),
    requirements,
    { ...target, invoiceId: '01ARZ3NDEKTSV4RRFFQ69G5FAV' },
    'invalid_payment_requirements',
  );
});

test.serial('an expired authorization, one expiring within the margin, and one not yet valid are refused', async (t) => {
  const { refusedSigned } = await payingOffer(t);
  const now = Math.floor(Date.now() / 1000);
  await refusedSigned({ authorization: { validBefore: String(now - 60) } }, 'invalid_exact_evm_payload_authorization_valid_before');
  await refusedSigned({ authorization: { validBefore: String(now + 2) } }, 'invalid_exact_evm_payload_authorization_valid_before');
  await refusedSigned({ authorization: { validAfter: String(now + 3600) } }, 'invalid_exact_evm_payload_authorization_valid_after');
});

test.serial('a signature of another key, or under another domain, is refused with invalid_exact_evm_signature', async (t) => {
  const { requirements, payer, target, refusedSigned } = await payingOffer(t);
  const forged = await signPayment(Wallet.createRandom() as unknown as Wallet, requirements, { authorization: { from: payer.address } });
  await refused(t, forged, requirements, target, 'invalid_exact_evm_signature');
  await refusedSigned({ domain: { version: '1' } }, 'invalid_exact_evm_signature');
  await refusedSigned({ domain: { chainId: 1n } }, 'invalid_exact_evm_signature');
  const tampered = await signPayment(payer, requirements);
  const s = tampered.payload.signature;
  await refused(
    t,
    { ...tampered, payload: { ...tampered.payload, signature: `${s.slice(0, 10)}${s[10] === '0' ? '1' : '0'}${s.slice(11)}` } },
    requirements,
    target,
    'invalid_exact_evm_signature',
  );
});

test.serial('a nonce already used on chain (submitted by someone else) is refused with invalid_exact_evm_nonce_already_used', async (t) => {
  const { invoice, requirements } = await offered();
  const payer = await h.payer(10n * USDC);
  const payload = await signPayment(payer, requirements);
  t.true((await payments().verify(payload, requirements, targetOf(invoice))).isValid);
  await h.submitDirectly(payload);
  t.is(await h.balanceOf(payer.address), 10n * USDC - 2_500_000n);
  await refused(t, payload, requirements, targetOf(invoice), 'invalid_exact_evm_nonce_already_used');
});

test.serial(
  'an authorization used while the inspection read the chain (its nonce read unused, its simulation failing on the next block) is refused with invalid_exact_evm_nonce_already_used: the nonce is read again',
  async (t) => {
    // A second instance reads the chain through a proxy that answers the first authorizationState
    // read as the block before the authorization was used would: unused. Its simulation then runs
    // on the chain where the nonce is used, as when another settler's transaction lands between
    // the inspection's reads.
    const proxy = await RpcProxy.start(h.chain.anvil.url);
    t.teardown(() => proxy.close());
    const watched = (h.config['plugins.watchers.chains'] as { eth: { anvil: Record<string, unknown> } }).eth.anvil;
    const other = await h.second({ 'plugins.watchers.chains': { eth: { anvil: { ...watched, providers: [{ name: 'proxied', url: proxy.url }] } } } });
    const { invoice, requirements } = await offered();
    const payer = await h.payer(10n * USDC);
    const payload = await signPayment(payer, requirements);
    await h.submitDirectly(payload);
    const stateRead = EIP3009_ABI.encodeFunctionData('authorizationState', [payer.address, payload.payload.authorization.nonce]);
    let lies = 0;
    proxy.rewrite = (call, result) => {
      const data = (call.params[0] as { data?: string } | undefined)?.data;
      if (call.method !== 'eth_call' || data?.toLowerCase() !== stateRead.toLowerCase() || lies > 0) return result;
      lies += 1;
      return `0x${'0'.repeat(64)}`;
    };
    const answer = await other.kernel.cradle.x402Payments.verify(payload, requirements, targetOf(invoice));
    t.is(lies, 1, 'the first read of the nonce said unused');
    t.like(answer, { isValid: false, invalidReason: 'invalid_exact_evm_nonce_already_used' });
  },
);

test.serial('a payer holding less than the amount is refused with invalid_exact_evm_insufficient_balance', async (t) => {
  const { invoice, requirements } = await offered();
  const payer = await h.payer(2_499_999n);
  await refused(t, await signPayment(payer, requirements), requirements, targetOf(invoice), 'invalid_exact_evm_insufficient_balance');
});

test.serial('settle verifies first: a refused payment sends nothing; a valid one is settled once and its replay refused', async (t) => {
  const { invoice, requirements } = await offered('1.25');
  const payer = await h.payer(10n * USDC);
  const sentBefore = await h.sentCount(h.gasWallet.address);
  const expired = await signPayment(payer, requirements, { authorization: { validBefore: '1' } });
  t.like(await payments().settle(expired, requirements, targetOf(invoice)), {
    success: false,
    errorReason: 'invalid_exact_evm_payload_authorization_valid_before',
    transaction: '',
    network: ANVIL_CAIP,
  });
  t.is(await h.sentCount(h.gasWallet.address), sentBefore);

  const payload = await signPayment(payer, requirements);
  const settled = await payments().settle(payload, requirements, targetOf(invoice));
  t.like(settled, { success: true, payer: payer.address, network: ANVIL_CAIP }, JSON.stringify(settled));
  t.regex(settled.transaction, /^0x[0-9a-f]{64}$/);
  t.is(await h.balanceOf(invoice.address), 1_250_000n);
  t.is(await h.sentCount(h.gasWallet.address), sentBefore + 1);
  await refused(t, payload, requirements, targetOf(invoice), 'invalid_exact_evm_nonce_already_used');
  t.like(await payments().settle(payload, requirements, targetOf(invoice)), {
    success: false,
    errorReason: 'invalid_exact_evm_nonce_already_used',
    transaction: '',
  });
  t.is(await h.sentCount(h.gasWallet.address), sentBefore + 1);
});

test.serial('with settlement off, no invoice asks for x402', async (t) => {
  const off = await h.second({ 'plugins.x402.settlement': 'off' });
  const invoice = await h.invoice('1');
  t.is(await off.kernel.cradle.x402Payments.requirementsFor(invoice, resourceOf('http://x.test/pay')), undefined);
  t.not(await payments().requirementsFor(invoice, resourceOf('http://x.test/pay')), undefined);
});
