import type { ChainRegistry, Deps } from '@gw/kernel';
import type { X402Config } from '../config.js';
import { X402_VERSION } from '../protocol/messages.js';
import type { GasWalletView } from '../services/gas-wallets.js';
import { nativeAmount, type NativeAmount } from './native-amount.js';

/** What the operator's status reads (the CLI's `x402 status`, the dashboard's x402 page, the readiness checks). */
export const X402_STATUS_DEPS = ['chains', 'x402Config', 'x402Networks', 'x402GasWallets', 'x402ExternalFacilitator'] as const;
export type X402StatusDeps = Deps<(typeof X402_STATUS_DEPS)[number]>;

/** A coin payable with x402 on one network. */
export interface PayableAssetView {
  readonly coin: string;
  readonly chain: string;
  readonly network: string;
  /** The protocol's network id (`eip155:84532`). */
  readonly caip: string;
  /** The token contract. */
  readonly asset: string;
  readonly decimals: number;
  /** The token's EIP-712 domain name and version (the requirement's `extra`). */
  readonly eip712: { readonly name: string; readonly version: string };
}

/** A settlement gas wallet's standing: amounts in the network's native coin. */
export interface GasWalletStatus {
  readonly chain: string;
  readonly network: string;
  readonly address: string;
  /** Null when the network is not watched here or its node did not answer. */
  readonly balance: NativeAmount | null;
  readonly spent_24h: NativeAmount;
  readonly max_per_settlement: NativeAmount;
  readonly max_per_day: NativeAmount;
  /** What the day's cap still allows (`max_per_day` − `spent_24h`, not below 0). */
  readonly day_left: NativeAmount;
  /** How many settlements at the per-settlement cap the balance pays for (0: settlements there are refused); null when the balance is unknown. */
  readonly settlements_covered: string | null;
}

/** The external facilitator of `settlement: facilitator`, and what its `/supported` answered now. */
export interface FacilitatorStatus {
  readonly url: string;
  /** Whether settlements go through it (`settlement` is `facilitator`). */
  readonly in_use: boolean;
  readonly answers: boolean;
  /** The networks it settles with x402 v2's `exact` scheme (CAIP-2). */
  readonly networks: readonly string[];
  /** Payable networks here it does not list (their payments would be refused by it). */
  readonly missing_networks: readonly string[];
  readonly signers: readonly string[];
  /** Why it did not answer. */
  readonly error: string | null;
}

export interface X402StatusView {
  readonly settlement: X402Config['settlement'];
  readonly assets: readonly PayableAssetView[];
  readonly gas_wallets: readonly GasWalletStatus[];
  /** Why the gas wallets could not be read (a key file, a provider); their list is then empty. */
  readonly gas_wallets_error: string | null;
  readonly facilitator: FacilitatorStatus | null;
  readonly max_timeout_seconds: number;
  readonly receipt_wait_seconds: number;
  readonly pay_to_per_minute: number;
  readonly paid_tools: readonly { readonly tool: string; readonly project_id: string; readonly coin: string; readonly amount: string }[];
}

/**
 * The operator's view of x402 here (issue 41): the settlement mode; the coins payable, per network;
 * the gas wallets with balance, the last 24 hours' spend and their caps (decimal native coin); the
 * external facilitator and whether its `/supported` answers now; the offer settings and paid tools.
 * Reads the chain (token domains, balances) and asks the facilitator: an operator's read, not a
 * request's.
 */
export async function x402Status(deps: X402StatusDeps): Promise<X402StatusView> {
  const config = deps.x402Config;
  const on = config.settlement !== 'off';
  const [assets, wallets, facilitator] = await Promise.all([
    on ? deps.x402Networks.all() : Promise.resolve([]),
    deps.x402GasWallets.views().then(
      (views) => ({ views, error: null }),
      (error: unknown) => ({ views: [], error: messageOf(error) }),
    ),
    facilitatorAnswer(deps),
  ]);
  const assetViews = assets.map((a): PayableAssetView => ({
    coin: a.coin,
    chain: a.chain,
    network: a.network,
    caip: a.caip,
    asset: a.asset,
    decimals: a.decimals,
    eip712: { name: a.domain.name, version: a.domain.version },
  }));
  return {
    settlement: config.settlement,
    assets: assetViews,
    gas_wallets: wallets.views.map((w) => gasWalletStatus(deps.chains, w)),
    gas_wallets_error: wallets.error,
    facilitator: facilitator === null ? null : withMissing(facilitator, assetViews),
    max_timeout_seconds: config.maxTimeoutSeconds,
    receipt_wait_seconds: config.receiptWaitSeconds,
    pay_to_per_minute: config.payToPerMinute,
    paid_tools: Object.entries(config.paidTools).map(([tool, t]) => ({ tool, project_id: t.projectId, coin: t.coin, amount: t.amount })),
  };
}

/** A gas wallet's view with its amounts in the native coin, and the settlements its balance pays for. */
export function gasWalletStatus(chains: ChainRegistry, w: GasWalletView): GasWalletStatus {
  const balance = w.balance_units === null ? null : BigInt(w.balance_units);
  const spent = BigInt(w.spent_24h_units);
  const perSettlement = BigInt(w.max_per_settlement_units);
  const perDay = BigInt(w.max_per_day_units);
  const amount = (units: bigint) => nativeAmount(chains, w.chain, units);
  return {
    chain: w.chain,
    network: w.network,
    address: w.address,
    balance: balance === null ? null : amount(balance),
    spent_24h: amount(spent),
    max_per_settlement: amount(perSettlement),
    max_per_day: amount(perDay),
    day_left: amount(perDay > spent ? perDay - spent : 0n),
    settlements_covered: balance === null ? null : perSettlement === 0n ? '0' : (balance / perSettlement).toString(),
  };
}

/**
 * The external facilitator's `/supported` now, and the payable networks it does not list; null
 * when none is configured.
 */
export async function facilitatorStatus(deps: X402StatusDeps): Promise<FacilitatorStatus | null> {
  const [answer, assets] = await Promise.all([facilitatorAnswer(deps), deps.x402Config.settlement === 'facilitator' ? deps.x402Networks.all() : []]);
  return answer === null ? null : withMissing(answer, assets);
}

async function facilitatorAnswer(deps: X402StatusDeps): Promise<Omit<FacilitatorStatus, 'missing_networks'> | null> {
  const configured = deps.x402Config.facilitator;
  if (!configured) return null;
  const in_use = deps.x402Config.settlement === 'facilitator';
  try {
    const supported = await deps.x402ExternalFacilitator.supported();
    const networks = [...new Set(supported.kinds.filter((k) => k.x402Version === X402_VERSION && k.scheme === 'exact').map((k) => k.network))];
    const signers = [...new Set(Object.values(supported.signers).flat())];
    return { url: configured.url, in_use, answers: true, networks, signers, error: null };
  } catch (error) {
    return { url: configured.url, in_use, answers: false, networks: [], signers: [], error: messageOf(error) };
  }
}

function withMissing(status: Omit<FacilitatorStatus, 'missing_networks'>, assets: readonly { readonly caip: string }[]): FacilitatorStatus {
  const listed = new Set(status.networks);
  const missing = status.answers && status.in_use ? [...new Set(assets.map((a) => a.caip))].filter((n) => !listed.has(n)) : [];
  return { ...status, missing_networks: missing };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
