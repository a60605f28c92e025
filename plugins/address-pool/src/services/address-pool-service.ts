import {
  type Actor,
  type ChainId,
  type ChainRegistry,
  type Cradle,
  type JobQueue,
  maxAddressIndexOf,
  sql,
  usesPaymentReferences,
  type Sql,
  sqlQuery,
  sqlRelation,
  type SqlRelation,
} from '@gw/kernel';
import type { VerifiedWallet, WalletService } from '@gw/plugin-wallets/contract';
import type { Knex } from 'knex';
import type { AddressPoolConfig } from '../config.js';
import { addressPoolErrors } from '../errors.js';
import { REPLENISH_JOB, type ReplenishJobData } from '../job-names.js';
import { PoolAddress } from '../models/pool-address.js';
import { deriveRows } from './derive-rows.js';
import { insertPoolRows } from './insert-pool-rows.js';
import { tryLockPool } from './pool-lock.js';

/** Addresses one growth on the request path derives: the caller's and some for the burst behind it. */
const GROW_CHUNK = 20;
/** Tries for the pool's lock while another growth or the replenisher holds it, and the pause between. */
const GROW_LOCK_TRIES = 50;
const GROW_LOCK_PAUSE_MS = 20;

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

/** A pool address still waiting for activation on its chain (TRON). */
export interface UnactivatedAddress {
  readonly id: string;
  readonly projectId: string;
  readonly address: string;
}

/**
 * How the watchers saw that a pool address exists on chain:
 * - `account_on_chain`: the chain's provider answers an account for it (TRON `getaccount`);
 * - `incoming_transfer`: a transfer of the native coin to it was observed in a block (`txid`).
 */
export interface ActivationDetection {
  readonly by: 'account_on_chain' | 'incoming_transfer';
  readonly txid?: string;
}

/** Where a pool address derives from ({@link AddressPoolService.spendPaths}). */
export interface PoolAddressPath {
  readonly id: string;
  readonly projectId: string;
  readonly chain: ChainId;
  readonly walletId: string;
  readonly address: string;
  /** Pool addresses are receive addresses: branch 0. */
  readonly branch: 0;
  readonly index: number;
  /** Full path, `m/84'/1'/0'/0/5`. */
  readonly path: string;
}

export interface FreshPickGroup {
  readonly projectId: string;
  readonly chain: ChainId;
  readonly wanted: number;
}

/** A free row picked (locked) for the caller, not yet taken. */
export interface PickedAddress {
  readonly addressId: string;
  readonly address: string;
  readonly derivationIndex: number;
  readonly derivationPath: string;
}

/** What `freshPicks` found for one group, in the order of the groups asked. */
export interface PickedGroup {
  readonly projectId: string;
  readonly chain: ChainId;
  /** The wallet binding the rows belong to (undefined without a current binding). */
  readonly walletId: string | undefined;
  /** `wallet_not_bound` / `xpub_not_verified` when the binding cannot take invoices; no picks then. */
  readonly walletError: unknown;
  /** Free rows locked for the caller, lowest index first; fewer than wanted when the pool is short. */
  readonly picks: readonly PickedAddress[];
  /** Free rows of the pool (counted up to wanted + the low watermark), the picked ones included. */
  readonly freeRows: number;
}

/**
 * The parts `freshPicks` adds to a caller's statement: `ctes` (to place in its `with`), a json
 * `result` expression over them, and `read` for that expression's value.
 */
export interface FreshPicks {
  readonly ctes: Sql;
  readonly result: Sql;
  read(value: unknown): PickedGroup[];
}

/** A pool row `takeSql` allocated. */
export interface TakenAddress extends Record<string, unknown> {
  readonly id: string;
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
      addressPoolAllocations: { inc(labels: { chain: string; mode: AllocationMode }, value?: number): void };
    },
  ) {}

  /**
   * Hands out a deposit address of the project's verified wallet for `chain`, atomically in `trx`.
   *
   * 1. The lowest free index (available, or cooldown that has ended), locked `FOR UPDATE SKIP
   *    LOCKED` so concurrent allocations never get the same row; TRON only takes activated rows.
   * 2. None free, and the pool can grow (below the hard cap and the chain's highest index; not a
   *    TRON pool whose new addresses would need activation): the next addresses are derived here,
   *    under the pool's lock, and the first is taken (`growOnRequest`), so a burst or a freshly
   *    verified wallet never waits for the replenish job and never shares an address early.
   * 3. Otherwise a replenish job is requested, and with overlay enabled an allocated address is
   *    shared (`isOverlay`), the least shared first.
   * 4. Otherwise 503 `pool_exhausted` with Retry-After.
   *
   * Throws 422 `wallet_not_bound` / 409 `xpub_not_verified` (wallets), and for TRON 422
   * `tron_no_activated_addresses_available` when the pool has no activated row at all.
   */
  async allocate(trx: Knex.Transaction, input: { projectId: string; chain: ChainId; invoiceRef: string }): Promise<Allocation> {
    const wallet = await this.deps.walletsWallets.requireVerifiedWallet(input.projectId, input.chain, trx);
    if (usesPaymentReferences(this.deps.chains.get(wallet.chain).definition)) return this.allocateRecipient(trx, wallet, input.invoiceRef);
    const onlyActivated = this.deps.chains.get(wallet.chain).definition.capabilities.requiresActivation;
    const config = this.deps.addressPoolConfig;

    const free = await this.freeRows(trx, wallet.id, onlyActivated).limit(1).forUpdate().skipLocked().first();
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
    const grown = await this.growOnRequest(trx, wallet, onlyActivated);
    if (grown) {
      const row = await this.take(trx, grown, input.invoiceRef);
      await this.requestReplenish(wallet);
      return this.result(row, false);
    }
    await this.requestReplenish(wallet);
    if (!config.overlay) {
      throw addressPoolErrors.pool_exhausted({ details: { chain: wallet.chain, overlay: false } });
    }
    // Prefer a row no other allocation is touching right now; if every candidate is locked (a
    // burst), wait for one: the lock holders only commit or roll back, they never wait on us.
    let shared =
      (await this.overlayCandidate(trx, wallet.id, onlyActivated).skipLocked().first()) ?? (await this.overlayCandidate(trx, wallet.id, onlyActivated).first());
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
   * The one recipient of a chain with payment references (issue 43): the binding's row 0 (derived
   * here when the replenisher has not yet), shared by every invoice and never an overlay (each
   * invoice has its own reference), whatever `overlay` says. It is taken by the first invoice and
   * never released (`releaseMany` leaves it allocated): the merchant's address always expects
   * payments, so the watchers always watch it. Later invoices only read it: no row lock, no write,
   * so a project's invoices are not serialised on its one address.
   */
  private async allocateRecipient(trx: Knex.Transaction, wallet: VerifiedWallet, invoiceRef: string): Promise<Allocation> {
    const recipient = () => PoolAddress.query(trx).findOne({ wallet_id: wallet.id, derivation_index: 0 });
    // A concurrent first create may derive row 0 while this one waits for the pool's lock: growing
    // then finds the pool at its one index, and the row it derived is read again.
    const row = (await recipient()) ?? (await this.growOnRequest(trx, wallet, false)) ?? (await recipient());
    if (!row) throw addressPoolErrors.pool_exhausted({ details: { chain: wallet.chain, overlay: false } });
    if (row.state === 'allocated') return this.result(row, false);
    return this.result(await this.take(trx, row, invoiceRef), false);
  }

  /**
   * Batched allocation for several (project, chain) groups at once, as parts of the caller's
   * statement (one round trip for every group of a batch, inside the caller's transaction):
   *
   * - `freshPicks` resolves each group's current wallet binding (through the wallets service's
   *   `currentBindingSql`) and locks up to `wanted` free rows of its pool, lowest index first,
   *   `FOR UPDATE SKIP LOCKED` (TRON: activated rows only), without changing them. `after` is a
   *   condition evaluated before any row is locked (the caller's advisory locks come first).
   * - The caller decides which picks it uses, and takes exactly those with `takeSql` in a later
   *   statement of the same transaction; unused picks stay free (their locks end with it).
   * - After commit, `afterFreshAllocation` counts the allocations and asks for a replenish where
   *   the pool runs low.
   *
   * Only fresh (unshared) addresses: a group that gets fewer picks than it wanted goes through
   * `allocate` one by one (replenish, overlay, TRON and exhaustion rules).
   */
  freshPicks(groups: readonly FreshPickGroup[], options: { readonly after?: Sql } = {}): FreshPicks {
    const lowWatermark = Math.ceil(this.deps.addressPoolConfig.targetFree / 2);
    const onlyActivated = groups.map((g) => this.deps.chains.get(g.chain).definition.capabilities.requiresActivation);
    // Free rows in derivation order: `order by derivation_index` keeps every lookup on the
    // partial index of free rows (migration 0002), never walking the allocated ones.
    const free = sql`(a.state = 'available' or (a.state = 'cooldown' and a.cooldown_until <= now())) and (a.activated or not g.only_activated)`;
    const ctes = sql`pool_groups as materialized (
        select g.gno, g.wanted, g.only_activated, b.id as wallet_id, b.state as wallet_state
          from unnest(${groups.map((_, n) => n)}::int[], ${groups.map((g) => g.projectId)}::text[], ${groups.map((g) => g.chain)}::text[],
                      ${groups.map((g) => g.wanted)}::int[], ${onlyActivated}::bool[]) as g(gno, project_id, chain, wanted, only_activated)
          left join lateral (${this.deps.walletsWallets.currentBindingSql(sql`g.project_id`, sql`g.chain`)}) b on true
         where ${options.after ?? sql`true`}
      ),
      pool_picks as (
        select g.gno, p.id, p.address, p.derivation_index, p.derivation_path
          from pool_groups g
          cross join lateral (
            select a.id, a.address, a.derivation_index, a.derivation_path
              from address_pool_addresses a
             where a.wallet_id = g.wallet_id and g.wallet_state = 'verified' and ${free}
             order by a.derivation_index
             limit g.wanted
               for update skip locked) p
      )`;
    const result = sql`(select coalesce(json_agg(json_build_object(
          'gno', g.gno, 'wallet_id', g.wallet_id, 'wallet_state', g.wallet_state,
          'free_rows', case when g.wallet_state = 'verified' then (
             select count(*) from (select 1 from address_pool_addresses a where a.wallet_id = g.wallet_id and ${free}
                                    order by a.derivation_index limit g.wanted + ${lowWatermark}::int) f)
             else 0 end,
          'picks', (select coalesce(json_agg(json_build_array(p.id, p.address, p.derivation_index, p.derivation_path) order by p.derivation_index), '[]')
                      from pool_picks p where p.gno = g.gno)) order by g.gno), '[]')
        from pool_groups g)`;
    return {
      ctes,
      result,
      read: (value) => {
        const rows = value as {
          gno: number;
          wallet_id: string | null;
          wallet_state: 'verified' | 'pending' | null;
          free_rows: number;
          picks: [string, string, number, string][];
        }[];
        if (rows.length !== groups.length) throw new Error(`freshPicks: ${rows.length} groups read for ${groups.length} asked`);
        return rows.map((row) => {
          const group = groups[row.gno]!;
          return {
            projectId: group.projectId,
            chain: group.chain,
            walletId: row.wallet_id ?? undefined,
            walletError: this.deps.walletsWallets.bindingProblem(group.chain, row.wallet_state),
            picks: row.picks.map(([addressId, address, derivationIndex, derivationPath]) => ({ addressId, address, derivationIndex, derivationPath })),
            freeRows: row.free_rows,
          };
        });
      },
    };
  }

  /**
   * A part of the caller's statement (part of this plugin's contract, ADR 0003 and 0009) that
   * allocates the rows of `used`, a relation `(address_id, invoice_ref)` naming rows this
   * transaction picked with `freshPicks`, returning their ids ({@link TakenAddress}). Rows that are
   * no longer free are left alone (and missing from the result), so a caller compares the count
   * with what it expected.
   */
  takeSql(used: Sql): SqlRelation<TakenAddress> {
    return sqlRelation<TakenAddress>(
      ['id'],
      sql`update address_pool_addresses p
         set state = 'allocated', cooldown_until = null, active_allocations = 1,
             allocation_count = p.allocation_count + 1, last_invoice_ref = t.invoice_ref, allocated_at = now()
        from (${used}) as t(address_id, invoice_ref)
       where p.id = t.address_id and p.state <> 'allocated'
      returning p.id`,
    );
  }

  /**
   * After the caller's transaction committed: counts the fresh allocations (`taken[n]` of
   * `groups[n]`) and asks for a replenish of every pool that was short or is now below its low
   * watermark.
   */
  async afterFreshAllocation(groups: readonly PickedGroup[], taken: readonly number[]): Promise<void> {
    const lowWatermark = Math.ceil(this.deps.addressPoolConfig.targetFree / 2);
    await Promise.all(
      groups.map(async (group, n) => {
        if (taken[n]! > 0) this.deps.addressPoolAllocations.inc({ chain: group.chain, mode: 'fresh' }, taken[n]!);
        if (group.walletId === undefined || group.walletError) return;
        if (group.picks.length === 0 || group.freeRows - taken[n]! < lowWatermark) {
          await this.requestReplenish({ projectId: group.projectId, chain: group.chain });
        }
      }),
    );
  }

  /**
   * Gives an allocation back, in the caller's transaction. When no other invoice shares the
   * address it goes into cooldown for `cooldownSeconds` (0: reusable at once). Releasing a row that
   * is not allocated changes nothing.
   */
  async release(trx: Knex.Transaction, addressId: string): Promise<void> {
    if (!(await PoolAddress.query(trx).findById(addressId).select('id'))) throw addressPoolErrors.pool_address_not_found();
    await this.releaseMany(trx, [addressId]);
  }

  /**
   * `release` of many allocations in one statement (an id given n times gives back n allocations
   * of a shared address). Rows that are not allocated, or no longer exist, are left alone, and so is
   * the recipient of a chain with payment references (see `allocateRecipient`).
   */
  async releaseMany(trx: Knex.Transaction, addressIds: readonly string[]): Promise<void> {
    if (addressIds.length === 0) return;
    // The one recipient of a chain with payment references stays allocated: it expects payments for good.
    const recipients = this.deps.chains.chainIds().filter((chain) => usesPaymentReferences(this.deps.chains.get(chain).definition));
    await sqlQuery(
      trx,
      sql`update address_pool_addresses p
             set active_allocations = greatest(p.active_allocations - r.n, 0),
                 state = case when p.active_allocations - r.n > 0 then p.state else 'cooldown' end,
                 cooldown_until = case when p.active_allocations - r.n > 0 then p.cooldown_until else now() + make_interval(secs => ${this.deps.addressPoolConfig.cooldownSeconds}::int) end,
                 released_at = case when p.active_allocations - r.n > 0 then p.released_at else now() end
            from (select id, count(*)::int as n from unnest(${[...addressIds]}::text[]) as id group by id) r
           where p.id = r.id and p.state = 'allocated' and p.chain <> all(${recipients}::text[])`,
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

  /**
   * Where pool addresses derive from (the treasury signs for them, issue 35): each id's wallet
   * binding, derivation index and path, in any state, of keys replaced since too (their addresses
   * stay spendable). Pool addresses are on the receive branch (0). Missing ids are absent.
   */
  async spendPaths(addressIds: readonly string[]): Promise<Map<string, PoolAddressPath>> {
    if (addressIds.length === 0) return new Map();
    const rows = await sqlQuery<{
      id: string;
      project_id: string;
      chain: ChainId;
      wallet_id: string;
      address: string;
      derivation_index: number;
      derivation_path: string;
    }>(
      this.deps.db,
      sql`select id, project_id, chain, wallet_id, address, derivation_index, derivation_path
            from address_pool_addresses where id = any(${[...new Set(addressIds)]}::text[])`,
    );
    return new Map(
      rows.map((r) => [
        r.id,
        {
          id: r.id,
          projectId: r.project_id,
          chain: r.chain,
          walletId: r.wallet_id,
          address: r.address,
          branch: 0 as const,
          index: r.derivation_index,
          path: r.derivation_path,
        },
      ]),
    );
  }

  /**
   * How long an address released after an invoice still expects payments (`cooldownSeconds`): the
   * watchers keep looking payments up by an ended invoice's reference that long (issue 43), as they
   * keep watching a released address through its cooldown.
   */
  get cooldownSeconds(): number {
    return this.deps.addressPoolConfig.cooldownSeconds;
  }

  /** Addresses of `chain` that expect payments: allocated to an invoice or in cooldown after one. */
  async expectingAddresses(chain: ChainId): Promise<PoolAddressRef[]> {
    const rows = await this.deps.db.raw<{
      rows: { id: string; project_id: string; address: string; derivation_path: string; state: PoolAddressRef['state'] }[];
    }>(`select id, project_id, address, derivation_path, state from address_pool_addresses where chain = ? and state <> 'available'`, [chain]);
    return rows.rows.map((r) => ({ id: r.id, projectId: r.project_id, address: r.address, derivationPath: r.derivation_path, state: r.state }));
  }

  /**
   * Pool addresses of `chain` not yet activated on chain (TRON, issue 36: what an activation plan
   * funds), lowest index first, of `projectIds` only when given.
   */
  async unactivatedAddresses(chain: ChainId, options: { projectIds?: readonly string[]; limit: number }): Promise<PoolAddressRef[]> {
    const rows = await sqlQuery<{ id: string; project_id: string; address: string; derivation_path: string; state: PoolAddressRef['state'] }>(
      this.deps.db,
      sql`select id, project_id, address, derivation_path, state from address_pool_addresses
           where chain = ${chain} and not activated
             ${options.projectIds ? sql`and project_id = any(${[...options.projectIds]}::text[])` : sql``}
           order by project_id, wallet_id, derivation_index limit ${options.limit}`,
    );
    return rows.map((r) => ({ id: r.id, projectId: r.project_id, address: r.address, derivationPath: r.derivation_path, state: r.state }));
  }

  /** Deletes every pool address of the project (the sandbox reset), in `trx`; the replenisher derives anew. */
  async purgeProject(trx: Knex.Transaction, projectId: string): Promise<number> {
    return PoolAddress.query(trx).where('project_id', projectId).delete();
  }

  /** Records that a payment arrived at the address (feeds the gap gauge). Called by invoices. */
  async markPaid(trx: Knex.Transaction, addressId: string): Promise<void> {
    const updated = await PoolAddress.query(trx)
      .findById(addressId)
      .patch({ paid_at: trx.fn.now() as unknown as Date });
    if (updated === 0) throw addressPoolErrors.pool_address_not_found();
  }

  /** `markPaid` of many addresses in one statement; rows that no longer exist are left alone. */
  async markPaidMany(trx: Knex.Transaction, addressIds: readonly string[]): Promise<void> {
    if (addressIds.length === 0) return;
    await sqlQuery(trx, sql`update address_pool_addresses set paid_at = now() where id = any(${[...new Set(addressIds)]}::text[])`);
  }

  /**
   * Marks a pool address as activated on chain (TRON: the operator sent it TRX), by hand. The
   * watchers mark activated addresses themselves ({@link AddressPoolService.markActivated}); this is
   * for a network no watcher follows, or to hand an address out before their next look. Audited.
   */
  async activate(
    input: { projectId: string; chain: string; address: string },
    actor: Actor,
  ): Promise<{ address: string; derivation_index: number; activated_at_iso: string }> {
    const adapter = this.deps.chains.get(input.chain as ChainId);
    if (!adapter.definition.capabilities.requiresActivation) throw addressPoolErrors.activation_not_required({ details: { chain: adapter.definition.id } });
    const wallet = await this.deps.walletsWallets.requireVerifiedWallet(input.projectId, adapter.definition.id);
    return this.deps.db.transaction(async (trx) => {
      const row = await PoolAddress.query(trx).findOne({ wallet_id: wallet.id, address: input.address.trim() }).forUpdate();
      if (!row)
        throw addressPoolErrors.pool_address_not_found({
          message: `Address ${input.address} is not in the ${wallet.chain} pool of project ${input.projectId}.`,
        });
      const updated = row.activated ? row : await PoolAddress.query(trx).patchAndFetchById(row.id, { activated: true, activated_at: new Date() });
      if (!row.activated) {
        await this.deps.audit.record(
          {
            ...actor,
            action: 'address_pool.activate',
            projectId: input.projectId,
            target: `pool_address:${row.id}`,
            details: { chain: wallet.chain, address: row.address, derivation_index: row.derivation_index },
          },
          trx,
        );
      }
      return { address: updated.address, derivation_index: updated.derivation_index, activated_at_iso: new Date(updated.activated_at!).toISOString() };
    });
  }

  /**
   * Pool addresses of `chain` not yet activated, of every project and state, in id order after
   * `page.after` (the last id of the previous page), at most `page.limit`. The watchers page through
   * them to ask the chain which exist by now ({@link AddressPoolService.markActivated}).
   */
  async unactivated(chain: ChainId, page: { readonly after?: string | undefined; readonly limit: number }): Promise<UnactivatedAddress[]> {
    if (page.limit <= 0) return [];
    const rows = await sqlQuery<{ id: string; project_id: string; address: string }>(
      this.deps.db,
      sql`select id, project_id, address from address_pool_addresses
           where chain = ${chain} and not activated ${page.after === undefined ? sql`` : sql`and id > ${page.after}`}
           order by id limit ${page.limit}::int`,
    );
    return rows.map((r) => ({ id: r.id, projectId: r.project_id, address: r.address }));
  }

  /**
   * Marks pool rows activated because the chain shows their address exists, whoever activated it
   * (an activation plan, TRX from a payer or an exchange, the operator by hand): `detection.by` says
   * how the watchers saw it. Rows already activated, and ids that no longer exist, are left alone;
   * each row marked is audited `address_pool.activate` with `actor` and the detection. Runs in `trx`
   * when given (a scan pass marks in its own transaction). Returns the rows marked.
   */
  async markActivated(addressIds: readonly string[], detection: ActivationDetection, actor: Actor, trx?: Knex.Transaction): Promise<UnactivatedAddress[]> {
    if (addressIds.length === 0) return [];
    const run = async (db: Knex.Transaction): Promise<UnactivatedAddress[]> => {
      const rows = await sqlQuery<{ id: string; project_id: string; chain: string; address: string; derivation_index: number }>(
        db,
        sql`update address_pool_addresses set activated = true, activated_at = now()
             where id = any(${[...new Set(addressIds)]}::text[]) and not activated
         returning id, project_id, chain, address, derivation_index`,
      );
      for (const row of rows) {
        await this.deps.audit.record(
          {
            ...actor,
            action: 'address_pool.activate',
            projectId: row.project_id,
            target: `pool_address:${row.id}`,
            details: {
              chain: row.chain,
              address: row.address,
              derivation_index: row.derivation_index,
              detected_by: detection.by,
              ...(detection.txid !== undefined ? { txid: detection.txid } : {}),
            },
          },
          db,
        );
      }
      return rows.map((r) => ({ id: r.id, projectId: r.project_id, address: r.address }));
    };
    return trx ? run(trx) : this.deps.db.transaction(run);
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

  /**
   * Derives the pool's next addresses on the request path when none is free, and returns the first
   * of them locked for the caller (undefined when the pool cannot grow). Takes the pool's lock with
   * a try, never a wait: a caller may hold picked rows that the lock's holder (the replenisher, or
   * another growth) is about to touch. While another holds it, its rows appear on commit, so the
   * free rows are looked at again between tries, for at most about a second.
   */
  private async growOnRequest(trx: Knex.Transaction, wallet: VerifiedWallet, onlyActivated: boolean): Promise<PoolAddress | undefined> {
    const adapter = this.deps.chains.get(wallet.chain);
    // New TRON addresses need activation before they take tokens, except a generated sandbox key's.
    if (onlyActivated && !wallet.generated) return undefined;
    for (let attempt = 0; attempt < GROW_LOCK_TRIES; attempt++) {
      if (await tryLockPool(trx, wallet.id)) break;
      const free = await this.freeRows(trx, wallet.id, onlyActivated).limit(1).forUpdate().skipLocked().first();
      if (free) return free;
      if (attempt === GROW_LOCK_TRIES - 1) return undefined;
      await new Promise((resolve) => setTimeout(resolve, GROW_LOCK_PAUSE_MS));
    }
    // Under the lock: another growth may have committed rows since the first look.
    const free = await this.freeRows(trx, wallet.id, onlyActivated).limit(1).forUpdate().skipLocked().first();
    if (free) return free;
    const [stats] = (await sqlQuery<{ total: number; highest: number }>(
      trx,
      sql`select count(*)::int as total, coalesce(max(derivation_index), -1)::int as highest from address_pool_addresses where wallet_id = ${wallet.id}`,
    )) as [{ total: number; highest: number }];
    const count = Math.min(GROW_CHUNK, this.deps.addressPoolConfig.hardCap - stats.total, maxAddressIndexOf(adapter.definition) - stats.highest);
    if (count <= 0) return undefined;
    const rows = deriveRows(adapter, wallet, stats.highest + 1, count);
    await insertPoolRows(trx, rows);
    return PoolAddress.query(trx)
      .where({ wallet_id: wallet.id, derivation_index: stats.highest + 1, state: 'available' })
      .forUpdate()
      .first();
  }

  private overlayCandidate(trx: Knex.Transaction, walletId: string, onlyActivated: boolean) {
    return this.poolRows(trx, walletId, onlyActivated)
      .where('state', 'allocated')
      .orderBy([{ column: 'active_allocations' }, { column: 'derivation_index' }])
      .limit(1)
      .forUpdate();
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
    const [free] = await sqlQuery<{ n: number }>(
      trx,
      sql`select count(*)::int as n from (
            select 1 from address_pool_addresses
            where wallet_id = ${wallet.id} and state <> 'allocated' ${onlyActivated ? sql`and activated` : sql``}
            limit ${lowWatermark}) s`,
    );
    if (free!.n < lowWatermark) await this.requestReplenish(wallet);
  }

  /**
   * Sends `address-pool.replenish` for this pool. Deliberately outside the caller's transaction:
   * the request must survive when the caller rolls back (e.g. on pool_exhausted), and it is an
   * idempotent nudge whose loss the per-minute schedule makes good. One per pool per 10 seconds.
   */
  async requestReplenish(wallet: Pick<VerifiedWallet, 'projectId' | 'chain'>): Promise<void> {
    const data: ReplenishJobData = { projectId: wallet.projectId, chain: wallet.chain };
    try {
      await this.deps.jobs.send(REPLENISH_JOB, data, { singletonKey: `${wallet.projectId}:${wallet.chain}`, singletonSeconds: 10 });
    } catch (error) {
      this.deps.logger.warn({ err: error, projectId: wallet.projectId, chain: wallet.chain }, 'could not request address pool replenish');
    }
  }
}
