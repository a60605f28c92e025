import type { Logger } from 'pino';
import {
  ACCOUNT_SWEEP_METHODS,
  type AccountPlanBuild,
  accountPlanFile,
  type AccountPlanFile,
  type AccountPlanMethod,
  type AccountSweepMethod,
  type Actor,
  type AuditLog,
  coreErrors,
  isUniqueViolation,
  newId,
  sql,
  sqlQuery,
} from '@gw/kernel';
import type { AddressPoolService } from '@gw/plugin-address-pool/contract';
import type { ProjectService } from '@gw/plugin-tenancy/contract';
import type { Knex } from 'knex';
import { accountPlanView, type AccountPlanView, holdingView, type HoldingView, quoteView, type QuoteView } from '../account-plan-view.js';
import type { TreasuryConfig } from '../config.js';
import { treasuryErrors } from '../errors.js';
import { Plan } from '../models/plan.js';
import { PlanAddress } from '../models/plan-address.js';
import { PlanStep, stepOf, stepRow } from '../models/plan-step.js';
import { type PlanStatus, UNSENT_STATUSES } from '../plan-status.js';
import type { AccountNetwork, AccountNetworks } from './account-networks.js';
import type { AccountSources, PoolSource } from './account-sources.js';
import type { HotGasWallet } from './hot-gas-wallet.js';
import type { Sweepers, SweeperView } from './sweepers.js';
import { planPage, type PlanFilter } from './plan-page.js';
import type { PlanStatusChanges } from './plan-status-change.js';
import { scopeProjects, type TreasuryScope } from './treasury-scope.js';

/** The sweep methods an operator may ask for. */
export const ACCOUNT_METHODS: readonly AccountSweepMethod[] = ACCOUNT_SWEEP_METHODS;

/** A sweep of one coin from the pool addresses of an account-chain network. */
export interface AccountSweepInput {
  readonly chain: string;
  readonly network: string;
  readonly coin: string;
  readonly destination: string;
  /** Absent: the cheapest the chain's quote finds. */
  readonly method?: AccountSweepMethod;
  /** Only the pool addresses of this project. */
  readonly projectId?: string;
  /** Leave out addresses holding less than this (base units of the coin). */
  readonly minUnits?: bigint;
}

/** Statuses after which an account plan's addresses are free again. */
const RELEASING: readonly PlanStatus[] = ['confirmed', 'failed', 'cancelled', 'invalidated'];

/**
 * Account-chain plans (issue 36): what each pool address holds, what each method would cost, sweeps
 * and TRON activations built by the chain's account treasury as steps signed offline in rounds,
 * their plan files, and cancellation. A plan holds its addresses (whatever coin) from creation until
 * it is confirmed, failed or cancelled; the database refuses a second open plan over one. A plan
 * needing an operator account is refused while another open plan has that account's transactions
 * still to send. Every
 * action is audited in its transaction.
 */
export class AccountPlans {
  constructor(
    private readonly deps: {
      db: Knex;
      audit: AuditLog;
      logger: Logger;
      addressPoolService: AddressPoolService;
      tenancyProjects: ProjectService;
      treasuryConfig: TreasuryConfig;
      treasuryAccountNetworks: AccountNetworks;
      treasuryAccountSources: AccountSources;
      treasuryHotGasWallet: HotGasWallet;
      treasurySweepers: Sweepers;
      treasuryPlanStatus: PlanStatusChanges;
    },
  ) {}

  /** What each pool address of the network holds on chain now, with the gas each token lacks and dust flags. */
  async holdings(query: { chain: string; network: string; projectId?: string }, scope: TreasuryScope): Promise<HoldingView[]> {
    const target = this.deps.treasuryAccountNetworks.get(query.chain, query.network);
    const reach = await scopeProjects(this.deps.tenancyProjects, scope);
    if (query.projectId && reach && !reach.has(query.projectId)) return [];
    const sources = await this.deps.treasuryAccountSources.received(target, reach, {
      ...(query.projectId ? { projectId: query.projectId } : {}),
      limit: this.deps.treasuryConfig.maxOutputsPerPlan,
    });
    if (sources.length === 0) return [];
    const held = await this.heldBy(
      target,
      sources.map((s) => s.address),
    );
    const holdings = await target.treasury.holdings(sources.map((s) => s.address));
    return sources.flatMap((s) => {
      const h = holdings.get(s.address);
      return h ? [holdingView(h, s.projectId, held.get(s.address) ?? null)] : [];
    });
  }

  /** What each method (or the one asked) would cost to sweep the coin now. */
  async quote(input: AccountSweepInput, scope: TreasuryScope): Promise<{ sources: number; quotes: QuoteView[] }> {
    const { target, sources } = await this.prepare(input, scope);
    const quotes = await target.treasury.quote(await this.request(target, input, sources));
    return { sources: sources.length, quotes: quotes.map(quoteView) };
  }

  /** Builds and stores a sweep plan of the coin from every pool address holding it (not held by another open plan). */
  async sweep(input: AccountSweepInput, scope: TreasuryScope, actor: Actor): Promise<AccountPlanView> {
    const { target, sources } = await this.prepare(input, scope);
    const build = await target.treasury.build(await this.request(target, input, sources));
    return this.store(target, build, sources, scope, actor, 'sweep');
  }

  /** TRON: a plan that activates the pool addresses not yet on chain, from the funding account, in one signed batch. */
  async activation(input: { chain: string; network: string; projectId?: string }, scope: TreasuryScope, actor: Actor): Promise<AccountPlanView> {
    const target = this.deps.treasuryAccountNetworks.get(input.chain, input.network);
    if (!target.treasury.buildActivation) {
      throw treasuryErrors.treasury_method_unavailable({ message: `${target.chain} addresses need no activation.`, details: { chain: target.chain } });
    }
    const reach = await scopeProjects(this.deps.tenancyProjects, scope);
    if (input.projectId && reach && !reach.has(input.projectId)) throw treasuryErrors.treasury_nothing_to_move({ message: 'No such project.' });
    // Only projects whose addresses pay on this network: the same key's rows in a project of another kind activate elsewhere.
    const onNetwork: string[] = [];
    for (const kind of this.deps.treasuryAccountSources.kindsOn(target)) onNetwork.push(...(await this.deps.tenancyProjects.list({ kind })).map((p) => p.id));
    const projectIds = onNetwork.filter((id) => (input.projectId ? id === input.projectId : !reach || reach.has(id)));
    const refs = await this.deps.addressPoolService.unactivatedAddresses(target.chain, {
      projectIds,
      limit: this.deps.treasuryConfig.maxOutputsPerPlan,
    });
    const held = await this.heldBy(
      target,
      refs.map((r) => r.address),
    );
    const sources = (
      await this.deps.treasuryAccountSources.resolve(
        target,
        refs.filter((r) => !held.has(r.address)).map((r) => r.address),
      )
    ).filter((s) => !reach || reach.has(s.projectId));
    if (sources.length === 0) throw treasuryErrors.treasury_nothing_to_move({ message: 'Every pool address is activated, or in an open activation plan.' });
    const build = await target.treasury.buildActivation({ addresses: sources.map((s) => s.address), operatorAccounts: target.operatorAccounts });
    return this.store(target, build, sources, scope, actor, 'activation');
  }

  /**
   * EVM: a plan that deploys the EIP-7702 token sweeper for `destination` from the gas account (one
   * transaction, signed offline). Once it is confirmed, the sweeper is recorded for the destination
   * and `eip7702` sweeps to it use it. Moves no pool money, so it holds no address. Deploying for a
   * destination that has a sweeper already is allowed (the newer one is recorded).
   */
  async sweeperDeployment(input: { chain: string; network: string; destination: string }, scope: TreasuryScope, actor: Actor): Promise<AccountPlanView> {
    // The sweeper serves every project paying to the destination: a token bound to one project may not deploy it.
    if (scope.projectId) {
      throw coreErrors.permission_denied({ message: 'Deploying a token sweeper is for an operator-wide token or the CLI, not a token bound to one project.' });
    }
    const target = this.deps.treasuryAccountNetworks.get(input.chain, input.network);
    if (!target.treasury.buildSweeperDeployment) {
      throw treasuryErrors.treasury_method_unavailable({ message: `${target.chain} has no EIP-7702 token sweeper.`, details: { chain: target.chain } });
    }
    this.requireAddress(target, input.destination);
    const build = await target.treasury.buildSweeperDeployment({ destination: input.destination, operatorAccounts: target.operatorAccounts });
    return this.store(target, build, [], scope, actor, 'sweeper_deployment');
  }

  /** EVM: the sweepers recorded per destination (of a network when given). */
  async sweepers(filter: { chain?: string; network?: string } = {}): Promise<SweeperView[]> {
    return this.deps.treasurySweepers.list(filter);
  }

  /** The file a signer signs for the plan's current round: the steps awaiting an offline signature (the hot gas wallet's are not in it). */
  async planFile(planId: string, scope: TreasuryScope): Promise<AccountPlanFile> {
    const plan = await this.requirePlan(planId, scope);
    if (plan.status !== 'awaiting_signature') throw treasuryErrors.treasury_plan_not_signable({ details: { status: plan.status } });
    const target = this.deps.treasuryAccountNetworks.get(plan.chain, plan.network);
    const steps = await PlanStep.query(this.deps.db).where({ plan_id: planId, round: plan.round!, status: 'awaiting_signature' }).orderBy('id');
    const offline = steps.filter((s) => !this.deps.treasuryHotGasWallet.signs(target, plan, s));
    return accountPlanFile(
      {
        planId: plan.id,
        chain: plan.chain,
        network: plan.network,
        coin: plan.coin,
        method: plan.method as AccountPlanMethod,
        round: plan.round as 1 | 2,
        destination: plan.destination,
        movedUnits: plan.value_units,
        feeUnits: plan.fee_units ?? 0n,
        context: plan.context ?? {},
        createdAt: new Date(plan.created_at),
      },
      offline.map(stepOf),
    );
  }

  /** Drops a plan that was not broadcast; its addresses are free again. */
  async cancel(planId: string, scope: TreasuryScope, actor: Actor): Promise<AccountPlanView> {
    await this.requirePlan(planId, scope);
    return this.deps.db.transaction(async (trx) => {
      const plan = await Plan.query(trx).findById(planId).forUpdate();
      if (!plan || !UNSENT_STATUSES.includes(plan.status)) throw treasuryErrors.treasury_plan_not_cancellable({ details: { status: plan?.status } });
      // A broadcast the provider dropped mid-stage leaves the plan signed with some steps sent: those are on their way.
      const sent = await PlanStep.query(trx)
        .where('plan_id', planId)
        .where((q) => q.whereNotNull('broadcast_at').orWhereIn('status', ['broadcast', 'confirmed']))
        .first();
      if (sent) {
        throw treasuryErrors.treasury_plan_not_cancellable({
          message: `The step ${sent.step_id} of the plan was already sent; the plan can no longer be cancelled.`,
          details: { status: plan.status, step_id: sent.step_id },
        });
      }
      await PlanAddress.query(trx).patch({ held: false }).where({ plan_id: planId });
      const updated = await Plan.query(trx).patchAndFetchById(planId, { status: 'cancelled', updated_at: new Date() });
      await this.deps.audit.record({ ...actor, action: 'treasury.plan.cancel', target: `treasury_plan:${planId}`, details: { was: plan.status } }, trx);
      await this.deps.treasuryPlanStatus.changed(trx, planId, plan.status);
      return this.view(updated, trx);
    });
  }

  async get(planId: string, scope: TreasuryScope): Promise<AccountPlanView> {
    return this.view(await this.requirePlan(planId, scope));
  }

  /** Account plans newest first, keyed by id; only plans whose every address is in the caller's projects. */
  async list(filter: PlanFilter, scope: TreasuryScope): Promise<{ plans: AccountPlanView[]; next: string | null }> {
    const { page, next } = await planPage(this.deps.db, 'account', filter, await scopeProjects(this.deps.tenancyProjects, scope), scope);
    const plans: AccountPlanView[] = [];
    for (const plan of page) plans.push(await this.view(plan));
    return { plans, next };
  }

  /**
   * An account plan the scope reaches (every address in its projects; one without addresses, only
   * its own operator's token), else 404 `treasury_plan_not_found`.
   */
  async requirePlan(planId: string, scope: TreasuryScope, db: Knex | Knex.Transaction = this.deps.db): Promise<Plan> {
    const plan = await Plan.query(db).findById(planId);
    if (!plan || plan.method === null) throw treasuryErrors.treasury_plan_not_found();
    const reach = await scopeProjects(this.deps.tenancyProjects, scope);
    if (reach) {
      const outside = await PlanAddress.query(db)
        .where('plan_id', planId)
        .whereNotIn('project_id', [...reach])
        .first();
      if (outside) throw treasuryErrors.treasury_plan_not_found();
      // A plan without addresses (a sweeper deployment) is no project's: only the operator who
      // made it reaches it, and never a token bound to one project; a payout from the funding
      // account is its project's (context.project_id).
      if (!(await PlanAddress.query(db).where('plan_id', planId).first())) {
        const payoutProject = plan.kind === 'payout' ? plan.context?.['project_id'] : undefined;
        if (typeof payoutProject === 'string') {
          if (!reach.has(payoutProject)) throw treasuryErrors.treasury_plan_not_found();
        } else if (scope.projectId || plan.operator_id === null || plan.operator_id !== scope.operatorId) throw treasuryErrors.treasury_plan_not_found();
      }
    }
    return plan;
  }

  async view(plan: Plan, db: Knex | Knex.Transaction = this.deps.db): Promise<AccountPlanView> {
    const [steps, addresses] = await Promise.all([
      PlanStep.query(db).where('plan_id', plan.id).orderBy('id'),
      PlanAddress.query(db).where('plan_id', plan.id).orderBy('id'),
    ]);
    return accountPlanView(plan, steps, addresses);
  }

  /** Frees a plan's addresses once it is confirmed, failed or cancelled (in `trx`). */
  async release(trx: Knex.Transaction, planId: string, status: PlanStatus): Promise<void> {
    if (RELEASING.includes(status)) await PlanAddress.query(trx).patch({ held: false }).where({ plan_id: planId });
  }

  /** Address → the open plan holding it, whatever coin it moves (one address, one nonce sequence). */
  async heldBy(target: Pick<AccountNetwork, 'chain' | 'network'>, addresses: readonly string[]): Promise<Map<string, string>> {
    if (addresses.length === 0) return new Map();
    const rows = await PlanAddress.query(this.deps.db)
      .where({ chain: target.chain, network: target.network, held: true })
      .whereIn('address', [...addresses]);
    return new Map(rows.map((r) => [r.address, r.plan_id]));
  }

  /**
   * Refuses a plan that needs an operator account (the gas, funding or staking address) while another
   * open plan of the network still has that account's transactions to send, or its gas submissions
   * still to build (a two-round plan before round 2): both would be built at the account's same
   * nonces (docs/decisions.md). One plan at a time per network passes this check (an advisory lock).
   */
  private async reserveOperatorAccounts(trx: Knex.Transaction, target: AccountNetwork, build: AccountPlanBuild): Promise<void> {
    const needs = new Set(build.steps.flatMap((s) => (s.signer.kind === 'operator' ? [s.signer.account.address.toLowerCase()] : [])));
    if (build.rounds === 2 && target.operatorAccounts.gas) needs.add(target.operatorAccounts.gas.address.toLowerCase());
    if (needs.size === 0) return;
    await sqlQuery(trx, sql`select pg_advisory_xact_lock(hashtextextended(${`treasury:operator-accounts:${target.chain}:${target.network}`}, 0))`);
    const open = await Plan.query(trx)
      .whereNotNull('method')
      .where({ chain: target.chain, network: target.network })
      .whereIn('status', ['awaiting_signature', 'signed', 'broadcast'])
      .select('id', 'round', 'rounds');
    if (open.length === 0) return;
    const gas = target.operatorAccounts.gas?.address.toLowerCase();
    const pendingRound = open.find((p) => gas && needs.has(gas) && p.rounds === 2 && p.round === 1);
    const unsent = await PlanStep.query(trx)
      .whereIn(
        'plan_id',
        open.map((p) => p.id),
      )
      .where('signer_kind', 'operator')
      .whereIn('status', ['awaiting_signature', 'signed'])
      .whereRaw('lower(signer_address) = any(?)', [[...needs]])
      .first();
    const busy = unsent?.plan_id ?? pendingRound?.id;
    if (busy) {
      throw treasuryErrors.treasury_outputs_planned({
        message: `The open plan ${busy} still has transactions of the operator's ${target.chain} ${target.network} account to send; finish or cancel it first.`,
        details: { plan_id: busy },
      });
    }
  }

  private async prepare(input: AccountSweepInput, scope: TreasuryScope): Promise<{ target: AccountNetwork; sources: PoolSource[] }> {
    const target = this.deps.treasuryAccountNetworks.get(input.chain, input.network);
    if (!target.adapter.definition.coins.some((c) => c.id === input.coin)) {
      throw coreErrors.validation_error({ message: `${input.coin} is not a coin of ${target.chain}.`, details: { field: 'coin' } });
    }
    if (input.method !== undefined && !(ACCOUNT_METHODS as readonly string[]).includes(input.method)) {
      throw coreErrors.validation_error({ message: `Unknown method ${input.method}.`, details: { field: 'method' } });
    }
    this.requireAddress(target, input.destination);
    const reach = await scopeProjects(this.deps.tenancyProjects, scope);
    if (input.projectId && reach && !reach.has(input.projectId)) throw treasuryErrors.treasury_nothing_to_move({ message: 'No such project.' });
    const received = await this.deps.treasuryAccountSources.received(target, reach, {
      ...(input.projectId ? { projectId: input.projectId } : {}),
      limit: this.deps.treasuryConfig.maxOutputsPerPlan,
    });
    const held = await this.heldBy(
      target,
      received.map((s) => s.address),
    );
    const free = received.filter((s) => !held.has(s.address));
    const holdings = free.length ? await target.treasury.holdings(free.map((s) => s.address)) : new Map();
    const sources = free.filter((s) => {
      const units = holdings.get(s.address)?.balances[input.coin] ?? 0n;
      return units > 0n && (input.minUnits === undefined || units >= input.minUnits);
    });
    if (sources.length === 0) {
      throw treasuryErrors.treasury_nothing_to_move({
        message: `No pool address of ${target.chain} ${target.network} holds ${input.coin} outside an open plan.`,
        details: { addresses: received.length, held: held.size },
      });
    }
    return { target, sources };
  }

  /** 422 `treasury_wrong_network` unless `address` is an address of the target's chain and network kind. */
  private requireAddress(target: AccountNetwork, address: string): void {
    const kind = [target.adapter.definition.networks.mainnet, ...target.adapter.definition.networks.testnets].find((n) => n.id === target.network)!.kind;
    if (!target.adapter.isValidAddress(address, kind)) {
      throw treasuryErrors.treasury_wrong_network({
        message: `${address} is not a ${target.chain} address of ${target.network}.`,
        details: { address },
      });
    }
  }

  private async request(target: AccountNetwork, input: AccountSweepInput, sources: readonly PoolSource[]) {
    const sweeper = await this.deps.treasurySweepers.forDestination(target, input.destination);
    return {
      coin: input.coin,
      sources: sources.map((s) => ({ address: s.address, key: s.key, index: s.index })),
      destination: input.destination,
      ...(input.method ? { method: input.method } : {}),
      operatorAccounts: target.operatorAccounts,
      ...(sweeper ? { sweeperContract: sweeper } : {}),
      ...(input.minUnits !== undefined ? { minUnits: input.minUnits } : {}),
    };
  }

  /**
   * Writes a built plan with its steps, the addresses it holds and the audit row, in one
   * transaction (a savepoint of `db` when it is the caller's transaction: payouts).
   */
  async store(
    target: AccountNetwork,
    build: AccountPlanBuild,
    sources: readonly PoolSource[],
    scope: TreasuryScope,
    actor: Actor,
    kind: 'sweep' | 'activation' | 'sweeper_deployment' | 'payout',
    db: Knex | Knex.Transaction = this.deps.db,
  ): Promise<AccountPlanView> {
    if (build.steps.length === 0) {
      throw treasuryErrors.treasury_nothing_to_move({
        details: { not_worth_moving: build.skipped.length },
      });
    }
    const id = newId();
    const createdAt = new Date();
    const bySource = new Map(sources.map((s) => [s.address, s]));
    // The addresses a plan moves from: every deposit signer of its steps (and each address an activation funds).
    const moved = new Map<string, bigint>();
    for (const step of build.steps) {
      if (step.signer.kind === 'deposit') moved.set(step.signer.address, (moved.get(step.signer.address) ?? 0n) + (step.moves[build.coin] ?? 0n));
      else if (kind === 'activation' && bySource.has(step.to)) moved.set(step.to, moved.get(step.to) ?? 0n);
    }
    try {
      return await db.transaction(async (trx) => {
        await this.reserveOperatorAccounts(trx, target, build);
        const plan = await Plan.query(trx).insertAndFetch({
          id,
          chain: target.chain,
          network: target.network,
          coin: build.coin,
          kind,
          method: build.method,
          status: 'awaiting_signature',
          round: 1,
          rounds: build.rounds,
          stage: null,
          context: build.context,
          operator_id: scope.operatorId ?? null,
          destination: build.destination,
          destination_kind: 'external',
          destination_wallet_id: null,
          destination_index: null,
          value_units: build.movedUnits,
          fee_units: build.feeUnits,
          operator_pays_units: build.operatorPaysUnits,
          fee_rate: null,
          max_fee_rate: null,
          skipped: build.skipped.map((s) => ({ address: s.address, units: s.units.toString(), cost_units: s.costUnits.toString() })),
          replaces_plan_id: null,
          parent_txid: null,
          created_by: actor.actor,
          created_at: createdAt,
        } as unknown as Partial<Plan>);
        await PlanStep.query(trx).insert(build.steps.map((s) => stepRow(id, s)) as Partial<PlanStep>[]);
        const held = [...moved.entries()].flatMap(([address, units]) => {
          const source = bySource.get(address);
          return source
            ? [
                {
                  plan_id: id,
                  chain: target.chain,
                  network: target.network,
                  coin: build.coin,
                  address,
                  project_id: source.projectId,
                  pool_address_id: source.poolAddressId,
                  amount_units: units,
                  held: true,
                },
              ]
            : [];
        });
        if (held.length) await PlanAddress.query(trx).insert(held as Partial<PlanAddress>[]);
        await this.deps.audit.record(
          {
            ...actor,
            action: kind === 'sweep' ? 'treasury.plan.create' : `treasury.plan.${kind}`,
            target: `treasury_plan:${id}`,
            details: {
              chain: target.chain,
              network: target.network,
              coin: build.coin,
              method: build.method,
              addresses: held.length,
              steps: build.steps.length,
              rounds: build.rounds,
              moved_units: build.movedUnits.toString(),
              fee_units: build.feeUnits.toString(),
              destination: build.destination,
            },
          },
          trx,
        );
        await this.deps.treasuryPlanStatus.changed(trx, id, plan.status);
        return this.view(plan, trx);
      });
    } catch (error) {
      if (isUniqueViolation(error, 'treasury_plan_addresses_held'))
        throw treasuryErrors.treasury_outputs_planned({ cause: error, message: 'An address is already in another open plan; nothing was planned.' });
      throw error;
    }
  }
}
