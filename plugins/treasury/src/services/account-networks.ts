import type { AccountTreasury, ChainAdapter, ChainId, ChainRegistry, OperatorAccount } from '@gw/kernel';
import type { ReceivedOutputs } from '@gw/plugin-watchers/contract';
import type { TreasuryConfig } from '../config.js';
import { requireTreasury, type TreasuryKind, treasuryNetworkIds, unlessUnavailable } from './treasury-kind.js';

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

  private readonly kind: TreasuryKind<AccountTreasury> = {
    implemented: (definition) => Boolean(definition.capabilities.accountTreasury),
    of: (chain, network) => this.deps.watchersOutputs.accountTreasuryOf(chain, network),
    none: (chain) => `${chain} has no account treasury: account plans are for EVM chains, TRON, TON and Solana.`,
  };

  /** The network, or undefined where {@link get} would throw. */
  find(chain: string, network: string): AccountNetwork | undefined {
    return unlessUnavailable(() => this.get(chain, network));
  }

  /** Throws 422 `treasury_unavailable` for a chain not enabled, a network not watched, or a chain without an account treasury. */
  get(chain: string, network: string): AccountNetwork {
    const { adapter, treasury } = requireTreasury(this.deps.chains, this.kind, chain, network);
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
    return treasuryNetworkIds(this.deps.chains, this.kind).map(({ chain, network }) => this.get(chain, network));
  }

  /** True when `chain` is an account chain (its plans go through the account plans). */
  isAccountChain(chain: string): boolean {
    return this.deps.chains.has(chain) && Boolean(this.deps.chains.get(chain).definition.capabilities.accountTreasury);
  }
}
