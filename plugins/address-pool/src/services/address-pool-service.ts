import { type ChainId, type ChainRegistry, type Cradle, type JobQueue } from '@gw/kernel';
import type { Actor } from '@gw/plugin-tenancy';
import type { VerifiedWallet, WalletService } from '@gw/plugin-wallets';
import type { Knex } from 'knex';
import type { AddressPoolConfig } from '../config.js';
import { addressPoolErrors } from '../errors.js';
import { REPLENISH_JOB, type ReplenishJobData } from '../job-names.js';
import { PoolAddress } from '../models/pool-address.js';

/** A deposit address handed to a caller (invoices). */
export interface Allocation {
  readonly addressId: string;
  readonly projectId: string;
  readonly chain: ChainId;
  readonly walletId: string;
  readonly address: string;
  readonly derivationIndex: number;
  readonly derivationPath: string;
  /**
   * The address is shared with at least one other open invoice (the pool was saturated). The
   * caller must use `exact` matching (else 422 `overlay_matching_mode_required_exact`) and give
   * the invoice a unique `payment_token`.
   */
  readonly isOverlay: boolean;
}

/** A pool address as the watchers see it: whose it is, and whether it currently expects payments. */
export interface PoolAddressRef {
  readonly id: string;
  readonly projectId: string;
  readonly address: string;
  readonly derivationPath: string;
  readonly state: 'available' | 'allocated' | 'cooldown';
}

/** Outcome of allocation metrics: fresh address or overlay. */
export type AllocationMode = 'fresh' | 'overlay';

/**
 * Allocation, release and activation of pool addresses. `allocate` and `release` run in the
 * caller's transaction so the address and the invoice that holds it commit together.
 */
export class AddressPoolService {
  constructor(
    private readonly deps: {
      db: Knex;
      jobs: JobQueue;
      chains: ChainRegistry;
      audit: Cradle['audit'];
      logger: Cradle['logger'];
      walletsWallets: WalletService;
      addressPoolConfig: AddressPoolConfig;
      addressPoolAllocations: { inc(labels: { chain: string; mode: AllocationMode }): void };
    },
  ) {}

  /**
   * Hands out a deposit address of the project's verified wallet for `chain`, atomically in `trx`.
   *
   * 1. The lowest free index (available, or cooldown that has ended), locked `FOR UPDATE SKIP
   *    LOCKED` so concurrent allocations never get the same row; TRON only takes activated rows.
   * 2. None free: a replenish job is requested, and with overlay enabled an allocated address is
   *    shared (`isOverlay`), the least shared first.
   * 3. Otherwise 503 `pool_exhausted` with Retry-After (also for an empty pool: addresses are
   *    never derived on the request path).
   *
   * Throws 422 `wallet_not_bound` / 409 `xpub_not_verified` (wallets), and for TRON 422
   * `tron_no_activated_addresses_available` when the pool has no activated row at all.
   */
  async allocate(trx: Knex.Transaction, input: { projectId: string; chain: ChainId; invoiceRef: string }): Promise<Allocation> {
    const wallet = await this.deps.walletsWallets.requireVerifiedWallet(input.projectId, input.chain, trx);
    const onlyActivated = this.deps.chains.get(wallet.chain).definition.capabilities.requiresActivation;
    const config = this.deps.addressPoolConfig;

    const free = await this.freeRows(trx, wallet.id, onlyActivated)
      .limit(1)
      .forUpdate()
      .skipLocked()
      .first();
    if (free) {
      const row = await this.take(trx, free, input.invoiceRef);
      await this.nudgeIfLow(trx, wallet, onlyActivated);
      return this.result(row, false);
    }

    if (onlyActivated) {
      const activated = await PoolAddress.query(trx).where({ wallet_id: wallet.id, activated: true }).select('id').first();
      if (!activated) {
        await this.requestReplenish(wallet);
        throw addressPoolErrors.tron_no_activated_addresses_available();
      }
    }
    await this.requestReplenish(wallet);
    if (!config.overlay) {
      throw addressPoolErrors.pool_exhausted({ details: { chain: wallet.chain, overlay: false } });
    }
    // Prefer a row no other allocation is touching right now; if every candidate is locked (a
    // burst), wait for one: the lock holders only commit or roll back, they never wait on us.
    let shared =
      (await this.overlayCandidate(trx, wallet.id, onlyActivated).skipLocked().first()) ??
      (await this.overlayCandidate(trx, wallet.id, onlyActivated).first());
    if (!shared) {
      // Nothing allocated is visible yet, yet nothing was free: concurrent allocations hold the
      // free rows and have not committed. Wait for one of them; its row is either still free
      // (rolled back) or allocated by now and shareable.
      const waited = await this.freeRows(trx, wallet.id, onlyActivated).limit(1).forUpdate().first();
      if (waited) return this.result(await this.take(trx, waited, input.invoiceRef), false);
      shared = await this.overlayCandidate(trx, wallet.id, onlyActivated).first();
    }
    if (!shared || shared.state !== 'allocated') {
      throw addressPoolErrors.pool_exhausted({ details: { chain: wallet.chain, overlay: true } });
    }
    const row = await this.take(trx, shared, input.invoiceRef);
    return this.result(row, true);
  }

  /**
   * Hands out up to `invoiceRefs.length` fresh (unshared) addresses of the project's verified
   * wallet in one pass, for a batch of invoices, atomically in `trx`: the lowest free indexes,
   * `FOR UPDATE SKIP LOCKED`, taken with one update. Returns fewer allocations than refs when the
   * pool has fewer free rows; the caller allocates the rest one by one with `allocate` (replenish
   * nudge, overlay, TRON and exhaustion rules). `allocations[i]` belongs to `invoiceRefs[i]`.
   * Throws like `allocate` when the wallet is missing or unverified.
   */
  async allocateMany(trx: Knex.Transaction, input: { projectId: string; chain: ChainId; invoiceRefs: readonly string[] }): Promise<Allocation[]> {
    if (input.invoiceRefs.length === 0) return [];
    const wallet = await this.deps.walletsWallets.requireVerifiedWallet(input.projectId, input.chain, trx);
    const onlyActivated = this.deps.chains.get(wallet.chain).definition.capabilities.requiresActivation;
    // The "is the pool low?" count rides along in the same statement instead of a second query;
    // it counts free rows including the ones picked here, without locking any more of them.
    const lowWatermark = Math.ceil(this.deps.addressPoolConfig.targetFree / 2);
    const picked = await trx.raw<{ rows: { id: string; free_rows: number }[] }>(
      `with picked as (${this.freeRows(trx, wallet.id, onlyActivated).select('id').limit(input.invoiceRefs.length).forUpdate().skipLocked().toKnexQuery().toQuery()})
       select picked.id,
              (select count(*)::int from (${this.freeRows(trx, wallet.id, onlyActivated).select(trx.raw('1')).limit(input.invoiceRefs.length + lowWatermark).toKnexQuery().toQuery()}) f) as free_rows
         from picked`,
    );
    const free = picked.rows;
    if (free.length === 0 || free[0]!.free_rows - free.length < lowWatermark) await this.requestReplenish(wallet);
    if (free.length === 0) return [];
    const refs = input.invoiceRefs.slice(0, free.length);
    const taken = await trx.raw<{ rows: PoolAddress[] }>(
      `update ${PoolAddress.tableName} p
         set state = 'allocated', cooldown_until = null, active_allocations = 1,
             allocation_count = p.allocation_count + 1, last_invoice_ref = t.ref, allocated_at = now()
        from unnest(?::text[], ?::text[]) as t(id, ref)
       where p.id = t.id
       returning p.*`,
      [free.map((row) => row.id), refs],
    );
    const byRef = new Map(taken.rows.map((row) => [row.last_invoice_ref, row]));
    return refs.map((ref) => this.result(byRef.get(ref)!, false));
  }

  /**
   * Gives an allocation back, in the caller's transaction. When no other invoice shares the
   * address it goes into cooldown for `cooldownSeconds` (0: reusable at once). Releasing a row that
   * is not allocated changes nothing.
   */
  async release(trx: Knex.Transaction, addressId: string): Promise<void> {
    const row = await PoolAddress.query(trx).findById(addressId).forUpdate();
    if (!row) throw addressPoolErrors.pool_address_not_found();
    if (row.state !== 'allocated') return;
    const remaining = row.active_allocations - 1;
    await PoolAddress.query(trx)
      .findById(addressId)
      .patch(
        remaining > 0
          ? { active_allocations: remaining }
          : {
              active_allocations: 0,
              state: 'cooldown',
              cooldown_until: trx.raw(`now() + make_interval(secs => ?)`, [this.deps.addressPoolConfig.cooldownSeconds]) as unknown as Date,
              released_at: trx.fn.now() as unknown as Date,
            },
      );
  }

  /** The pool rows at any of `addresses` on `chain`, of every project (one indexed lookup; the watchers' filter). */
  async lookupAddresses(chain: ChainId, addresses: readonly string[], db: Knex | Knex.Transaction = this.deps.db): Promise<PoolAddressRef[]> {
    if (addresses.length === 0) return [];
    const rows = await db.raw<{ rows: { id: string; project_id: string; address: string; derivation_path: string; state: PoolAddressRef['state'] }[] }>(
      'select id, project_id, address, derivation_path, state from address_pool_addresses where chain = ? and address = any(?)',
      [chain, [...new Set(addresses)]],
    );
    return rows.rows.map((r) => ({ id: r.id, projectId: r.project_id, address: r.address, derivationPath: r.derivation_path, state: r.state }));
  }

  /** Addresses of `chain` that expect payments: allocated to an invoice or in cooldown after one. */
  async expectingAddresses(chain: ChainId): Promise<PoolAddressRef[]> {
    const rows = await this.deps.db.raw<{ rows: { id: string; project_id: string; address: string; derivation_path: string; state: PoolAddressRef['state'] }[] }>(
      `select id, project_id, address, derivation_path, state from address_pool_addresses where chain = ? and state <> 'available'`,
      [chain],
    );
    return rows.rows.map((r) => ({ id: r.id, projectId: r.project_id, address: r.address, derivationPath: r.derivation_path, state: r.state }));
  }

  /** Deletes every pool address of the project (the sandbox reset), in `trx`; the replenisher derives anew. */
  async purgeProject(trx: Knex.Transaction, projectId: string): Promise<number> {
    return PoolAddress.query(trx).where('project_id', projectId).delete();
  }

  /** Records that a payment arrived at the address (feeds the gap gauge). Called by invoices. */
  async markPaid(trx: Knex.Transaction, addressId: string): Promise<void> {
    const updated = await PoolAddress.query(trx).findById(addressId).patch({ paid_at: trx.fn.now() as unknown as Date });
    if (updated === 0) throw addressPoolErrors.pool_address_not_found();
  }

  /**
   * Marks a pool address as activated on chain (TRON: the operator sent it TRX). An operator
   * action until watchers detect activation themselves. Audited.
   */
  async activate(input: { projectId: string; chain: string; address: string }, actor: Actor): Promise<{ address: string; derivation_index: number; activated_at_iso: string }> {
    const adapter = this.deps.chains.get(input.chain as ChainId);
    if (!adapter.definition.capabilities.requiresActivation) throw addressPoolErrors.activation_not_required({ details: { chain: adapter.definition.id } });
    const wallet = await this.deps.walletsWallets.requireVerifiedWallet(input.projectId, adapter.definition.id);
    return this.deps.db.transaction(async (trx) => {
      const row = await PoolAddress.query(trx).findOne({ wallet_id: wallet.id, address: input.address.trim() }).forUpdate();
      if (!row) throw addressPoolErrors.pool_address_not_found({ message: `Address ${input.address} is not in the ${wallet.chain} pool of project ${input.projectId}.` });
      const updated = row.activated ? row : await PoolAddress.query(trx).patchAndFetchById(row.id, { activated: true, activated_at: new Date() });
      if (!row.activated) {
        await this.deps.audit.record(
          { ...actor, action: 'address_pool.activate', projectId: input.projectId, target: `pool_address:${row.id}`, details: { chain: wallet.chain, address: row.address, derivation_index: row.derivation_index } },
          trx,
        );
      }
      return { address: updated.address, derivation_index: updated.derivation_index, activated_at_iso: new Date(updated.activated_at!).toISOString() };
    });
  }

  /** Rows that may be handed out now (available, or cooldown ended), lowest index first. */
  private freeRows(trx: Knex.Transaction, walletId: string, onlyActivated: boolean) {
    return this.poolRows(trx, walletId, onlyActivated)
      .where((q) => q.where('state', 'available').orWhere((c) => c.where('state', 'cooldown').where('cooldown_until', '<=', trx.fn.now())))
      .orderBy('derivation_index');
  }

  private poolRows(trx: Knex.Transaction, walletId: string, onlyActivated: boolean) {
    const query = PoolAddress.query(trx).where('wallet_id', walletId);
    if (onlyActivated) query.where('activated', true);
    return query;
  }

  private overlayCandidate(trx: Knex.Transaction, walletId: string, onlyActivated: boolean) {
    return this.poolRows(trx, walletId, onlyActivated).where('state', 'allocated').orderBy([{ column: 'active_allocations' }, { column: 'derivation_index' }]).limit(1).forUpdate();
  }

  private async take(trx: Knex.Transaction, row: PoolAddress, invoiceRef: string): Promise<PoolAddress> {
    return PoolAddress.query(trx).patchAndFetchById(row.id, {
      state: 'allocated',
      cooldown_until: null,
      active_allocations: row.state === 'allocated' ? row.active_allocations + 1 : 1,
      allocation_count: row.allocation_count + 1,
      last_invoice_ref: invoiceRef,
      allocated_at: trx.fn.now() as unknown as Date,
    });
  }

  private result(row: PoolAddress, isOverlay: boolean): Allocation {
    this.deps.addressPoolAllocations.inc({ chain: row.chain, mode: isOverlay ? 'overlay' : 'fresh' });
    return {
      addressId: row.id,
      projectId: row.project_id,
      chain: row.chain,
      walletId: row.wallet_id,
      address: row.address,
      derivationIndex: row.derivation_index,
      derivationPath: row.derivation_path,
      isOverlay,
    };
  }

  /** Requests a replenish run when fewer than half of `targetFree` rows are left free. */
  private async nudgeIfLow(trx: Knex.Transaction, wallet: VerifiedWallet, onlyActivated: boolean): Promise<void> {
    const lowWatermark = Math.ceil(this.deps.addressPoolConfig.targetFree / 2);
    if (lowWatermark === 0) return;
    const result = await trx.raw<{ rows: { n: number }[] }>(
      `select count(*)::int as n from (
         select 1 from ${PoolAddress.tableName}
         where wallet_id = ? and state <> 'allocated' ${onlyActivated ? 'and activated' : ''}
         limit ?) s`,
      [wallet.id, lowWatermark],
    );
    if (result.rows[0]!.n < lowWatermark) await this.requestReplenish(wallet);
  }

  /**
   * Sends `address-pool.replenish` for this pool. Deliberately outside the caller's transaction:
   * the request must survive when the caller rolls back (e.g. on pool_exhausted), and it is an
   * idempotent nudge whose loss the per-minute schedule makes good. One per pool per 10 seconds.
   */
  private async requestReplenish(wallet: VerifiedWallet): Promise<void> {
    const data: ReplenishJobData = { projectId: wallet.projectId, chain: wallet.chain };
    try {
      await this.deps.jobs.send(REPLENISH_JOB, data, { singletonKey: `${wallet.projectId}:${wallet.chain}`, singletonSeconds: 10 });
    } catch (error) {
      this.deps.logger.warn({ err: error, projectId: wallet.projectId, chain: wallet.chain }, 'could not request address pool replenish');
    }
  }
}
