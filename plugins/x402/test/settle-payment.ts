/**
 * What the settlement tests hand `X402Settlements.settle`: a payment as `X402Payments.verify`
 * establishes it, built here from an invoice of the harness's project and an authorization the
 * payer signs (`signPayment`), the gas from the chain's own simulation of the submission.
 */
import type { TestKernel } from '@gw/kernel/testing';
import type { InvoiceView } from '@gw/plugin-invoices/contract';
import { getAddress, type Wallet } from 'ethers';
import type { PaymentPayload, PaymentRequirements } from '../src/protocol/messages.js';
import type { X402Config } from '../src/config.js';
import { ExternalFacilitator } from '../src/services/external-facilitator.js';
import { GasWallets } from '../src/services/gas-wallets.js';
import { X402Networks, type X402Asset } from '../src/services/x402-networks.js';
import { X402Payments } from '../src/services/x402-payments.js';
import { X402Settlements, type VerifiedPayment } from '../src/services/x402-settlements.js';
import { ANVIL_CAIP, signPayment, USDC_DOMAIN, type PaymentOptions, type X402Harness } from './helpers.js';

/** The test token on eth/anvil as x402 pays in it, read through `gw`'s watchers (its domain from the chain). */
export async function usdcAsset(h: X402Harness, gw: TestKernel = h.gw): Promise<X402Asset> {
  const transfers = gw.kernel.cradle.watchersOutputs.accountTreasuryOf('eth', 'anvil')?.authorizedTransfers;
  if (!transfers) throw new Error('eth/anvil has no authorized transfers');
  const domain = await transfers.domain('usdc');
  if (!domain) throw new Error('the test token has no EIP-3009 domain');
  return { chain: 'eth', network: 'anvil', caip: ANVIL_CAIP, coin: 'usdc', decimals: 6, asset: getAddress(h.usdc), domain, transfers };
}

/** The requirement an invoice offers (x402's `exact` on eth/anvil, `payTo` its address, its amount). */
export function requirementsOf(h: X402Harness, invoice: Pick<InvoiceView, 'address' | 'amount_crypto_units'>): PaymentRequirements {
  return {
    scheme: 'exact',
    network: ANVIL_CAIP,
    asset: getAddress(h.usdc),
    amount: invoice.amount_crypto_units,
    payTo: getAddress(invoice.address),
    maxTimeoutSeconds: 300,
    extra: { ...USDC_DOMAIN },
  };
}

/** A verified payment of `invoice` by `payer` (the gas from a simulation from the gas wallet), for `gw`'s settlements. */
export async function verifiedPayment(
  h: X402Harness,
  invoice: InvoiceView,
  payer: Wallet,
  options: { readonly gw?: TestKernel; readonly payment?: PaymentOptions } = {},
): Promise<VerifiedPayment & { readonly payload: PaymentPayload }> {
  const requirements = requirementsOf(h, invoice);
  const payload = await signPayment(payer, requirements, options.payment);
  const a = payload.payload.authorization;
  const authorization = {
    from: a.from,
    to: a.to,
    value: BigInt(a.value),
    validAfter: BigInt(a.validAfter),
    validBefore: BigInt(a.validBefore),
    nonce: a.nonce,
  };
  const asset = await usdcAsset(h, options.gw);
  const inspection = await asset.transfers.inspect(asset.domain, authorization, payload.payload.signature, h.gasWallet.address);
  if (!inspection.simulation.ok) throw new Error(`the submission would fail: ${inspection.simulation.reason}`);
  return {
    asset,
    target: { projectId: h.project.projectId, invoiceId: invoice.id, source: 'invoice' },
    payer: payer.address,
    payTo: requirements.payTo,
    authorization,
    signature: payload.payload.signature,
    gasUnits: inspection.simulation.gasUnits,
    request: { x402Version: 2, paymentPayload: payload, paymentRequirements: requirements },
    payload,
  };
}

/**
 * The settlement services (and the payments that verify before settling) as a gateway of `gw`'s
 * database and node builds them, under other settings of `plugins.x402` (caps, mode,
 * facilitator, receipt wait): the same classes over the same database and chain, without a kernel
 * (and its connections) of their own.
 */
export function settlementsWith(
  gw: TestKernel,
  settings: Partial<X402Config>,
): { settlements: X402Settlements; gasWallets: GasWallets; facilitator: ExternalFacilitator; payments: X402Payments } {
  const { db, chains, logger, watchersOutputs, addressPoolService, invoicesService, tenancyProjects, x402Metrics, x402Config: base } = gw.kernel.cradle;
  const x402Config: X402Config = { ...base, ...settings };
  const gasWallets = new GasWallets({ db, logger, x402Config, watchersOutputs, addressPoolService, x402Metrics });
  const facilitator = new ExternalFacilitator({ x402Config });
  const settlements = new X402Settlements({ db, logger, x402Config, x402GasWallets: gasWallets, x402ExternalFacilitator: facilitator, x402Metrics });
  const payments = new X402Payments({
    db,
    chains,
    logger,
    invoicesService,
    tenancyProjects,
    x402Config,
    x402Networks: new X402Networks({ chains, watchersOutputs, x402Config, logger }),
    x402GasWallets: gasWallets,
    x402Settlements: settlements,
    x402ExternalFacilitator: facilitator,
  });
  return { settlements, gasWallets, facilitator, payments };
}

/** A second gateway's settings with small pools: several gateways of a test share one PostgreSQL with the other tests. */
export const SMALL_POOLS = { 'database.poolMax': 4, 'jobs.poolMax': 2 } as const;
