import type { AccountTreasury, ChainAdapter, ChainId, ChainRegistry, OperatorAccount } from '@gw/kernel';
import type { ReceivedOutputs } from '@gw/plugin-watchers/contract';
import type { TreasuryConfig } from '../config.js';
import { treasuryErrors } from '../errors.js';

/** An account-chain network the treasury can move money on (issue 36), with the operator's settings for it. */
export interface AccountNetwork {
  readonly chain: ChainId;
  readonly network: string;
  readonly adapter: ChainAdapter;
  readonly treasury: AccountTreasury;
  readonly nativeCoin: string;
  /** Confirmations after which a step's transaction counts as confirmed (the chain's default, at least 1). */
  readonly confirmations: number;
  readonly operatorAccounts: Readonly<Partial<Record<OperatorAccount['role'], OperatorAccount>>>;
  /** EIP-7702 sweeper contract per destination. */
  readonly sweepers: Readonly<Record<string, string>>;
}

/**
 * The account treasury of each enabled, watched account-chain network (the watchers build it over
 * their providers), with the operator accounts and sweepers configured for it.
 */
export class AccountNetworks {
  constructor(private readonly deps: { chains: ChainRegistry; watchersOutputs: ReceivedOutputs; treasuryConfig: TreasuryConfig }) {}

  /** Throws 422 `treasury_unavailable` for a chain not enabled, a network not watched, or a chain without an account treasury. */
  /**
   * The network, or undefined where {@link get} would throw: what a pass over stored plans skips
   * (a chain disabled or a network no longer watched since the plan was made).
   */
  find(chain: string, network: string): AccountNetwork | undefined {
    try {
      return this.get(chain, network);
    } catch {
      return undefined;
    }
  }

  get(chain: string, network: string): AccountNetwork {
    if (!this.deps.chains.has(chain)) throw treasuryErrors.treasury_unavailable({ message: `The chain ${chain} is not enabled.`, details: { chain, network } });
    const adapter = this.deps.chains.get(chain);
    const treasury = this.deps.watchersOutputs.accountTreasuryOf(adapter.definition.id, network);
    if (!treasury) {
      throw treasuryErrors.treasury_unavailable({
        message: adapter.definition.capabilities.accountTreasury
          ? `${chain} ${network} is not watched (plugins.watchers.chains), so the gateway has no provider to build and broadcast with.`
          : `${chain} has no account treasury: account plans are for EVM chains, TRON, TON and Solana.`,
        details: { chain, network },
      });
    }
    const settings = this.deps.treasuryConfig.networks[chain]?.[network];
    const operatorAccounts: Partial<Record<OperatorAccount['role'], OperatorAccount>> = {};
    for (const role of ['gas', 'funding', 'staking', 'nonce'] as const) {
      const account = settings?.operatorAccounts?.[role];
      if (account) operatorAccounts[role] = { role, address: account.address, path: account.path };
    }
    return {
      chain: adapter.definition.id,
      network,
      adapter,
      treasury,
      nativeCoin: treasury.nativeCoin,
      confirmations: Math.max(1, adapter.definition.defaultConfirmations),
      operatorAccounts,
      sweepers: settings?.sweepers ?? {},
    };
  }

  /** Every watched network with an account treasury (the jobs' and gauges' work list). */
  all(): AccountNetwork[] {
    const found: AccountNetwork[] = [];
    for (const adapter of this.deps.chains.list()) {
      const { definition } = adapter;
      if (!definition.capabilities.accountTreasury) continue;
      for (const network of [definition.networks.mainnet, ...definition.networks.testnets]) {
        if (this.deps.watchersOutputs.accountTreasuryOf(definition.id, network.id)) found.push(this.get(definition.id, network.id));
      }
    }
    return found;
  }

  /** True when `chain` is an account chain (its plans go through the account plans). */
  isAccountChain(chain: string): boolean {
    return this.deps.chains.has(chain) && Boolean(this.deps.chains.get(chain).definition.capabilities.accountTreasury);
  }
}
