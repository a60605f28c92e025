import { AppError, type ChainAdapter, type ChainId, type ChainRegistry, type ChainTreasury, type FeeEstimate } from '@gw/kernel';
import type { ReceivedOutputs } from '@gw/plugin-watchers/contract';
import type { TreasuryConfig } from '../config.js';
import { treasuryErrors } from '../errors.js';
import { requireTreasury, type TreasuryKind, treasuryNetworkIds, unlessUnavailable } from './treasury-kind.js';

/** A chain network the treasury can move money on. */
export interface TreasuryNetwork {
  readonly chain: ChainId;
  readonly network: string;
  readonly adapter: ChainAdapter;
  readonly treasury: ChainTreasury;
  /** The chain's native coin: what its outputs hold. */
  readonly coin: string;
  /** Confirmations after which a plan's transaction counts as confirmed (the chain's default, at least 1). */
  readonly confirmations: number;
}

/**
 * The treasury of each enabled, watched chain network (the watchers build it over their
 * providers), with the operator's fee settings.
 */
export class TreasuryNetworks {
  constructor(private readonly deps: { chains: ChainRegistry; watchersOutputs: ReceivedOutputs; treasuryConfig: TreasuryConfig }) {}

  private readonly kind: TreasuryKind<ChainTreasury> = {
    implemented: (definition) => Boolean(definition.capabilities.treasury),
    of: (chain, network) => this.deps.watchersOutputs.treasuryOf(chain, network),
    none: (chain) => `${chain} has no treasury yet: its balances are shown, nothing can be planned.`,
  };

  /** The network, or undefined where {@link get} would throw. */
  find(chain: string, network: string): TreasuryNetwork | undefined {
    return unlessUnavailable(() => this.get(chain, network));
  }

  /** Throws 422 `treasury_unavailable` for a chain not enabled, a network not watched, or a chain without a treasury. */
  get(chain: string, network: string): TreasuryNetwork {
    const { adapter, treasury } = requireTreasury(this.deps.chains, this.kind, chain, network);
    const native = adapter.definition.coins.find((c) => !c.contracts) ?? adapter.definition.coins[0]!;
    return { chain: adapter.definition.id, network, adapter, treasury, coin: native.id, confirmations: Math.max(1, adapter.definition.defaultConfirmations) };
  }

  /** Every network with a treasury (the jobs' work list). */
  all(): TreasuryNetwork[] {
    return treasuryNetworkIds(this.deps.chains, this.kind).map(({ chain, network }) => this.get(chain, network));
  }

  /** The configured rate, if any (regtest has no estimate). */
  configuredRate(chain: string, network: string): bigint | undefined {
    const rate = this.deps.treasuryConfig.networks[chain]?.[network]?.feeRate;
    return rate === undefined ? undefined : BigInt(rate);
  }

  ceiling(chain: string, network: string): bigint | undefined {
    const rate = this.deps.treasuryConfig.networks[chain]?.[network]?.feeCeiling;
    return rate === undefined ? undefined : BigInt(rate);
  }

  /**
   * The provider's estimate, or the configured rate standing in for every figure. The provider is
   * asked even when a rate is configured (a treasury may need a fresh look at the ledger before it
   * builds: Cardano's protocol parameters); its failure then falls back to the configured rate.
   * Throws 503 `treasury_fee_rate_unavailable` when neither answers, and a treasury's refusal
   * (`treasury_providers_unsupported`: no provider it can read) as it is, a configured rate or not.
   */
  async estimate(target: TreasuryNetwork): Promise<FeeEstimate> {
    const configured = this.configuredRate(target.chain, target.network);
    let estimate: FeeEstimate | undefined;
    let failure: unknown;
    try {
      estimate = await target.treasury.feeEstimate();
    } catch (error) {
      if (error instanceof AppError && error.code === 'treasury_providers_unsupported') throw error;
      failure = error;
    }
    if (configured !== undefined) return { nextBlock: configured, hour: configured, minimum: estimate?.minimum ?? (configured < 1n ? configured : 1n) };
    if (estimate) return estimate;
    throw treasuryErrors.treasury_fee_rate_unavailable({ cause: failure, details: { chain: target.chain, network: target.network } });
  }

  /** Refuses a rate above the operator's ceiling (422 `treasury_fee_above_ceiling`). */
  checkCeiling(target: TreasuryNetwork, rate: bigint): void {
    const ceiling = this.ceiling(target.chain, target.network);
    if (ceiling !== undefined && rate > ceiling) {
      throw treasuryErrors.treasury_fee_above_ceiling({
        message: `The fee rate ${rate} is above the ceiling ${ceiling} for ${target.chain} ${target.network}.`,
        details: { fee_rate: rate.toString(), ceiling: ceiling.toString() },
      });
    }
  }
}
