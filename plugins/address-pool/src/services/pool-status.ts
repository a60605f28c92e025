import type { ChainId, ChainRegistry } from '@gw/kernel';
import type { WalletService } from '@gw/plugin-wallets/contract';
import type { Knex } from 'knex';
import type { AddressPoolConfig } from '../config.js';
import { maxAddressIndexOf, sql, sqlQuery } from '@gw/kernel';
import { PoolAddress } from '../models/pool-address.js';

/** Counts and gap of one pool (the current verified wallet of a project's chain). */
export interface PoolStatus {
  readonly project_id: string;
  readonly chain: ChainId;
  readonly wallet_id: string;
  /** Rows derived. */
  readonly total: number;
  /**
   * Rows an invoice may be handed now: free (available, or cooldown ended) and, on a chain whose
   * addresses need activation (TRON), activated. A free row still waiting for activation is not.
   */
  readonly available: number;
  readonly allocated: number;
  /** Rows resting after release; those whose cooldown has ended count as available. */
  readonly cooldown: number;
  /** Allocated rows shared by more than one invoice. */
  readonly overlay: number;
  /** The chain's new addresses must exist on chain before invoices use them (TRON). */
  readonly activation_required: boolean;
  /** Rows activated (every row on a chain without activation, and a generated sandbox key's). */
  readonly activated: number;
  /** Rows not yet activated: never handed out until the watchers see them on chain (or `pool activate`). */
  readonly unactivated: number;
  readonly highest_index: number;
  /** Highest index ever allocated, -1 when none. */
  readonly highest_allocated_index: number;
  /** Highest index released after use or marked paid, -1 when none. */
  readonly highest_used_index: number;
  /** `highest_allocated_index - highest_used_index` (see README, "Gap"). */
  readonly gap: number;
  readonly gap_limit_applies: boolean;
  readonly hard_cap: number;
  readonly target_free: number;
  /** TRON: the first free addresses still waiting for activation (an activation plan, or TRX sent to them). */
  readonly awaiting_activation: readonly string[];
}

interface Aggregate {
  wallet_id: string;
  total: number;
  available: number;
  available_activated: number;
  allocated: number;
  cooldown: number;
  overlay: number;
  activated: number;
  highest_index: number;
  highest_allocated_index: number;
  highest_used_index: number;
}

/** Read-only pool statistics for the CLI, the gap gauge and the gap warning. */
export class PoolStatusService {
  constructor(private readonly deps: { db: Knex; chains: ChainRegistry; walletsWallets: WalletService; addressPoolConfig: AddressPoolConfig }) {}

  /**
   * Status of every verified pool, optionally of one project and/or chain. `listAwaitingActivation:
   * false` skips the per-pool address list (metrics scrapes).
   */
  async status(filter: { projectId?: string; chain?: ChainId } = {}, options: { listAwaitingActivation?: boolean } = {}): Promise<PoolStatus[]> {
    const wallets = await this.deps.walletsWallets.listVerified(filter);
    if (wallets.length === 0) return [];
    const db = this.deps.db;
    const rows = await sqlQuery<Aggregate>(
      db,
      sql`select wallet_id,
                 count(*)::int as total,
                 count(*) filter (where state = 'available' or (state = 'cooldown' and cooldown_until <= now()))::int as available,
                 count(*) filter (where activated and (state = 'available' or (state = 'cooldown' and cooldown_until <= now())))::int as available_activated,
                 count(*) filter (where state = 'allocated')::int as allocated,
                 count(*) filter (where state = 'cooldown' and cooldown_until > now())::int as cooldown,
                 count(*) filter (where active_allocations > 1)::int as overlay,
                 count(*) filter (where activated)::int as activated,
                 coalesce(max(derivation_index), -1)::int as highest_index,
                 coalesce(max(derivation_index) filter (where allocation_count > 0), -1)::int as highest_allocated_index,
                 coalesce(max(derivation_index) filter (where released_at is not null or paid_at is not null), -1)::int as highest_used_index
            from address_pool_addresses
           where wallet_id = any(${wallets.map((w) => w.id)}::text[])
           group by wallet_id`,
    );
    const byWallet = new Map(rows.map((r) => [r.wallet_id, r]));
    const result: PoolStatus[] = [];
    for (const wallet of wallets) {
      const definition = this.deps.chains.get(wallet.chain).definition;
      const a = byWallet.get(wallet.id) ?? {
        wallet_id: wallet.id,
        total: 0,
        available: 0,
        available_activated: 0,
        allocated: 0,
        cooldown: 0,
        overlay: 0,
        activated: 0,
        highest_index: -1,
        highest_allocated_index: -1,
        highest_used_index: -1,
      };
      const activationRequired = definition.capabilities.requiresActivation;
      const awaiting =
        activationRequired && options.listAwaitingActivation !== false
          ? (
              await PoolAddress.query(db)
                .where({ wallet_id: wallet.id, activated: false })
                .whereNot('state', 'allocated')
                .orderBy('derivation_index')
                .limit(10)
                .select('address')
            ).map((r) => r.address)
          : [];
      result.push({
        project_id: wallet.projectId,
        chain: wallet.chain,
        wallet_id: wallet.id,
        total: a.total,
        available: activationRequired ? a.available_activated : a.available,
        allocated: a.allocated,
        cooldown: a.cooldown,
        overlay: a.overlay,
        activation_required: activationRequired,
        activated: a.activated,
        unactivated: a.total - a.activated,
        highest_index: a.highest_index,
        highest_allocated_index: a.highest_allocated_index,
        highest_used_index: a.highest_used_index,
        gap: Math.max(0, a.highest_allocated_index - a.highest_used_index),
        gap_limit_applies: definition.capabilities.gapLimitApplies,
        hard_cap: Math.min(this.deps.addressPoolConfig.hardCap, maxAddressIndexOf(definition) + 1),
        target_free: this.deps.addressPoolConfig.targetFree,
        awaiting_activation: awaiting,
      });
    }
    return result;
  }
}
