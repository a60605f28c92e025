import type { Logger } from 'pino';
import {
  type Actor,
  type AuditLog,
  type PayoutRecipient,
  type ChainId,
  isUniqueViolation,
  newId,
  type PlanOutput,
  sql,
  sqlQuery,
  type SpendInput,
  type UnsignedTransaction,
} from '@gw/kernel';
import type { ProjectService } from '@gw/plugin-tenancy/contract';
import type { Outpoint, ReceivedOutput, ReceivedOutputs } from '@gw/plugin-watchers/contract';
import type { WalletService } from '@gw/plugin-wallets/contract';
import type { Knex } from 'knex';
import type { TreasuryConfig } from '../config.js';
import { treasuryErrors } from '../errors.js';
import { Plan, recipientsOf, type SkippedOutput } from '../models/plan.js';
import { PlanInput } from '../models/plan-input.js';
import { HOLDING_STATUSES, type PlanKind, UNSENT_STATUSES } from '../plan-status.js';
import { planView, type PlanView } from '../plan-view.js';
import { buildPlanFile } from './plan-file.js';
import type { SourcedInput, SpendSources } from './spend-sources.js';
import type { TreasuryNetwork, TreasuryNetworks } from './treasury-networks.js';
import { planPage, type PlanFilter } from './plan-page.js';
import type { PlanStatusChanges } from './plan-status-change.js';
import { scopeProjects, type TreasuryScope } from './treasury-scope.js';

/** Which outputs a sweep gathers. Explicit selections (outpoints, invoices) are refused whole when one of them cannot be spent. */
export interface OutputSelection {
  readonly outpoints?: readonly Outpoint[];
  readonly invoiceIds?: readonly string[];
  readonly projectId?: string;
  /** Only outputs received at or before this time (age). */
  readonly receivedBefore?: Date;
  /** Only outputs worth at least this much (above a dust value). */
  readonly minUnits?: bigint;
}

/** Where a plan sends the money: the same account's change chain, or an external address. */
export type DestinationRequest = { readonly kind: 'own'; readonly projectId?: string } | { readonly kind: 'external'; readonly address: string };

export interface SweepRequest {
  readonly chain: string;
  readonly network: string;
  readonly select: OutputSelection;
  readonly destination: DestinationRequest;
  /** Base units per size unit; default: the configured rate, else the provider's one-hour estimate. */
  readonly feeRate?: bigint;
  /** Wait until the next-block rate is at most this, then build at the next-block rate. */
  readonly maxFeeRate?: bigint;
}

interface Destination {
  readonly address: string;
  readonly own?: { readonly branch: 0 | 1; readonly index: number };
  readonly walletId: string | null;
  readonly key?: SpendInput['key'];
}

/**
 * Plans (issue 35): sweeps over chosen outputs, RBF bumps, CPFP accelerations, cancellation and
 * the plans' reads. A plan holds its inputs from creation; the database refuses a second holder.
 * Every action is audited in its transaction.
 */
export class TreasuryPlans {
  constructor(
    private readonly deps: {
      db: Knex;
      audit: AuditLog;
      logger: Logger;
      watchersOutputs: ReceivedOutputs;
      walletsWallets: WalletService;
      tenancyProjects: ProjectService;
      treasuryConfig: TreasuryConfig;
      treasuryNetworks: TreasuryNetworks;
      treasurySources: SpendSources;
      treasuryPlanStatus: PlanStatusChanges;
    },
  ) {}

  async sweep(request: SweepRequest, scope: TreasuryScope, actor: Actor): Promise<PlanView> {
    const target = this.deps.treasuryNetworks.get(request.chain, request.network);
    const reach = await scopeProjects(this.deps.tenancyProjects, scope);
    if (request.select.projectId && reach && !reach.has(request.select.projectId))
      throw treasuryErrors.treasury_nothing_to_move({ message: 'No such project.' });
    const { outputs, explicit } = await this.select(target, request.select, reach);
    await this.checkNotHeld(target, outputs, explicit);
    const free = explicit ? outputs : await this.withoutHeld(target, outputs);

    const networks = this.deps.treasuryNetworks;
    if (request.feeRate !== undefined) networks.checkCeiling(target, request.feeRate);
    if (request.maxFeeRate !== undefined) networks.checkCeiling(target, request.maxFeeRate);
    // Asked even with a rate given: a treasury may read the ledger's parameters with it (Cardano).
    const estimate = await networks.estimate(target).catch((error: unknown) => {
      if (request.feeRate === undefined || request.maxFeeRate !== undefined) throw error;
      return undefined;
    });
    const waiting = request.maxFeeRate !== undefined && estimate!.nextBlock > request.maxFeeRate;
    const feeRate = request.feeRate ?? (request.maxFeeRate !== undefined ? estimate!.nextBlock : estimate!.hour);
    if (!waiting) networks.checkCeiling(target, feeRate);

    const cost = target.treasury.inputCost(waiting ? request.maxFeeRate! : feeRate);
    const worth = free.filter((o) => o.amountUnits > cost);
    const skipped: SkippedOutput[] = free
      .filter((o) => o.amountUnits <= cost)
      .map((o) => ({ tx_hash: o.txHash, output_index: o.outputIndex, address: o.address, amount_units: o.amountUnits.toString() }));
    if (worth.length === 0) {
      throw treasuryErrors.treasury_nothing_to_move({
        details: { matched: outputs.length, not_worth_moving: skipped.length, input_cost_units: cost.toString() },
      });
    }
    const sourced = await this.deps.treasurySources.resolveForBuild(target, worth);
    const destinationProject = request.destination.kind === 'own' ? (request.destination.projectId ?? worth[0]!.projectId) : undefined;
    if (destinationProject && reach && !reach.has(destinationProject)) throw treasuryErrors.treasury_nothing_to_move({ message: 'No such project.' });

    return this.store({
      target,
      kind: 'sweep',
      actor,
      scope,
      sourced,
      skipped,
      destinationRequest: request.destination,
      destinationProject,
      feeRate: waiting ? null : feeRate,
      maxFeeRate: request.maxFeeRate ?? null,
    });
  }

  /**
   * Builds the transaction of a plan waiting for its fee once the next-block rate is at most its
   * limit (the track job). Returns the ids of the plans that proceeded.
   */
  async proceedWaiting(): Promise<string[]> {
    const waiting = await Plan.query(this.deps.db).where('status', 'waiting_for_fee').orderBy('id');
    const proceeded: string[] = [];
    for (const plan of waiting) {
      const target = this.deps.treasuryNetworks.find(plan.chain, plan.network);
      if (!target) continue;
      let estimate;
      try {
        estimate = await this.deps.treasuryNetworks.estimate(target);
      } catch {
        continue; // no rate now: the next pass asks again
      }
      if (estimate.nextBlock > plan.max_fee_rate!) continue;
      try {
        if (await this.buildWaiting(plan, target, estimate.nextBlock)) proceeded.push(plan.id);
      } catch (error) {
        // One plan that cannot be built now (a provider down, a previous transaction missing, a
        // total below dust at this rate) stops neither the other plans nor the tracking pass: it
        // stays waiting, with the reason, and the next pass tries again.
        this.deps.logger.warn({ plan: plan.id, err: error }, 'treasury waiting plan not built');
        await Plan.query(this.deps.db)
          .patch({ failure: error instanceof Error ? error.message : String(error), updated_at: new Date() })
          .where({ id: plan.id, status: 'waiting_for_fee' });
      }
    }
    return proceeded;
  }

  /** Builds a waiting plan at `feeRate` once its limit is reached; false when another pass got there first. */
  private async buildWaiting(plan: Plan, target: TreasuryNetwork, feeRate: bigint): Promise<boolean> {
    const inputs = await PlanInput.query(this.deps.db).where({ plan_id: plan.id, held: true }).orderBy('id');
    const sourced = await this.deps.treasurySources.resolveForBuild(target, inputs.map(inputAsOutput));
    const destination = this.destinationOf(plan);
    return this.deps.db.transaction(async (trx) => {
      const locked = await Plan.query(trx).findById(plan.id).forUpdate();
      if (locked?.status !== 'waiting_for_fee') return false;
      const key = destination.walletId ? (await this.deps.walletsWallets.accountKeys([destination.walletId])).get(destination.walletId)?.key : undefined;
      const unsigned = target.treasury.build({ inputs: sourced.map((s) => s.input), outputs: outputsOf(plan, destination), feeRate });
      await Plan.query(trx).patchAndFetchById(plan.id, {
        ...this.builtColumns(target, plan.id, plan.kind, unsigned, feeRate, new Date(plan.created_at), key),
        status: 'awaiting_signature',
        failure: null,
        updated_at: new Date(),
      });
      await this.deps.audit.record(
        {
          actor: 'system',
          channel: 'system',
          action: 'treasury.plan.fee_reached',
          target: `treasury_plan:${plan.id}`,
          details: { fee_rate: feeRate.toString() },
        },
        trx,
      );
      await this.deps.treasuryPlanStatus.changed(trx, plan.id, 'waiting_for_fee');
      return true;
    });
  }

  /**
   * RBF: a replacement of a broadcast, unconfirmed sweep over the same inputs to the same
   * destination at a higher fee: at least the old fee plus the new size at the minimum relay rate
   * (BIP 125 rules 3 and 4). The old plan becomes `replaced` and its inputs move to the new one;
   * cancelling the replacement before it is sent moves them back (`cancel`).
   */
  async bump(planId: string, input: { feeRate?: bigint }, scope: TreasuryScope, actor: Actor): Promise<PlanView> {
    const old = await this.requirePlan(planId, scope);
    if (old.status !== 'broadcast' || old.block_height !== null || old.kind === 'accelerate') {
      throw treasuryErrors.treasury_plan_not_bumpable({ details: { status: old.status } });
    }
    const target = this.deps.treasuryNetworks.get(old.chain, old.network);
    const estimate = await this.deps.treasuryNetworks.estimate(target);
    const feeRate = input.feeRate ?? estimate.nextBlock;
    this.deps.treasuryNetworks.checkCeiling(target, feeRate);
    const inputs = await PlanInput.query(this.deps.db).where({ plan_id: old.id, held: true }).orderBy('id');
    const sourced = await this.deps.treasurySources.resolveForBuild(target, inputs.map(inputAsOutput));
    const destination = this.destinationOf(old);
    const spend = sourced.map((s) => s.input);
    const outputs = outputsOf(old, destination);
    let unsigned = target.treasury.build({ inputs: spend, outputs, feeRate });
    const floor = old.fee_units! + BigInt(unsigned.size) * (estimate.minimum > 0n ? estimate.minimum : 1n);
    if (unsigned.feeUnits < floor) {
      if (input.feeRate !== undefined) {
        throw treasuryErrors.treasury_bump_fee_too_low({
          message: `The replacement must pay at least ${floor} (the old fee ${old.fee_units} plus its size at the minimum relay rate); ${feeRate} per unit pays ${unsigned.feeUnits}.`,
          details: { minimum_fee_units: floor.toString() },
        });
      }
      unsigned = target.treasury.build({ inputs: spend, outputs, feeRate, feeUnits: floor });
    }
    this.deps.treasuryNetworks.checkCeiling(target, unsigned.feeUnits / BigInt(Math.max(1, unsigned.size)));
    const id = newId();
    const createdAt = new Date();
    const key = destination.walletId ? (await this.deps.walletsWallets.accountKeys([destination.walletId])).get(destination.walletId)?.key : undefined;
    return this.deps.db.transaction(async (trx) => {
      const locked = await Plan.query(trx).findById(old.id).forUpdate();
      if (locked?.status !== 'broadcast' || locked.block_height !== null)
        throw treasuryErrors.treasury_plan_not_bumpable({ details: { status: locked?.status } });
      await PlanInput.query(trx).patch({ held: false }).where({ plan_id: old.id });
      await Plan.query(trx).patchAndFetchById(old.id, { status: 'replaced', updated_at: createdAt });
      const plan = await Plan.query(trx).insertAndFetch({
        id,
        chain: old.chain,
        network: old.network,
        coin: old.coin,
        // A payout's replacement pays the same recipients: it stays a payout, for those who follow payouts.
        kind: old.kind === 'payout' ? 'payout' : 'bump',
        status: 'awaiting_signature',
        context: old.context,
        operator_id: scope.operatorId ?? old.operator_id,
        destination: old.destination,
        destination_kind: old.destination_kind,
        destination_wallet_id: old.destination_wallet_id,
        destination_index: old.destination_index,
        value_units: old.value_units,
        max_fee_rate: null,
        skipped: [],
        replaces_plan_id: old.id,
        parent_txid: null,
        created_by: actor.actor,
        created_at: createdAt,
        ...this.builtColumns(target, id, old.kind === 'payout' ? 'payout' : 'bump', unsigned, feeRate, createdAt, key),
      } as Partial<Plan>);
      await this.insertInputs(trx, id, target, sourced);
      await this.deps.audit.record(
        {
          ...actor,
          action: 'treasury.plan.bump',
          target: `treasury_plan:${id}`,
          details: { replaces: old.id, old_fee_units: old.fee_units!.toString(), fee_units: unsigned.feeUnits.toString() },
        },
        trx,
      );
      await this.deps.treasuryPlanStatus.changed(trx, old.id, 'broadcast', { replacedBy: id });
      await this.deps.treasuryPlanStatus.changed(trx, id, 'awaiting_signature');
      return planView(plan, await PlanInput.query(trx).where('plan_id', id).orderBy('id'));
    });
  }

  /**
   * CPFP: a child spending an invoice's unconfirmed output to the same account's change chain with
   * a fee that pays for parent and child at `feeRate` (parent fee and size from the provider).
   */
  async accelerate(
    input: { chain: string; network: string; txHash: string; outputIndex: number; feeRate?: bigint },
    scope: TreasuryScope,
    actor: Actor,
  ): Promise<PlanView> {
    const target = this.deps.treasuryNetworks.get(input.chain, input.network);
    const reach = await scopeProjects(this.deps.tenancyProjects, scope);
    const [output] = await this.deps.watchersOutputs.byOutpoints(target.chain, target.network, [{ txHash: input.txHash, outputIndex: input.outputIndex }]);
    if (!output || (reach && !reach.has(output.projectId))) throw treasuryErrors.treasury_output_unknown();
    if (output.blockHeight !== null || output.spentBy !== null) {
      throw treasuryErrors.treasury_not_accelerable({ message: output.spentBy ? 'The output is already spent.' : 'The payment is already confirmed.' });
    }
    await this.checkNotHeld(target, [output], true);
    const parent = await target.treasury.transaction(output.txHash);
    if (!parent || parent.confirmations > 0) throw treasuryErrors.treasury_not_accelerable({ message: 'The provider does not see the payment unconfirmed.' });
    if (parent.feeUnits === undefined || parent.size === undefined) {
      throw treasuryErrors.treasury_not_accelerable({ message: 'The provider does not report the payment’s fee and size.' });
    }
    const estimate = await this.deps.treasuryNetworks.estimate(target);
    const feeRate = input.feeRate ?? estimate.nextBlock;
    this.deps.treasuryNetworks.checkCeiling(target, feeRate);
    const sourced = await this.deps.treasurySources.resolveForBuild(target, [output]);
    return this.store({
      target,
      kind: 'accelerate',
      actor,
      scope,
      sourced,
      skipped: [],
      destinationRequest: { kind: 'own', projectId: output.projectId },
      destinationProject: output.projectId,
      feeRate,
      maxFeeRate: null,
      parent: { txid: output.txHash, feeUnits: parent.feeUnits, size: parent.size },
    });
  }

  /** Drops a plan that was not broadcast; its outputs are free again. */
  async cancel(planId: string, scope: TreasuryScope, actor: Actor): Promise<PlanView> {
    await this.requirePlan(planId, scope);
    return this.deps.db.transaction(async (trx) => {
      const plan = await Plan.query(trx).findById(planId).forUpdate();
      if (!plan || !UNSENT_STATUSES.includes(plan.status)) throw treasuryErrors.treasury_plan_not_cancellable({ details: { status: plan?.status } });
      // A signed payout is a valid transaction that may already be out there: dropping the plan
      // would free its recipients for a second payment.
      if (plan.kind === 'payout' && plan.status === 'signed') {
        throw treasuryErrors.treasury_plan_not_cancellable({
          message:
            'A signed payout plan cannot be cancelled: its signed transaction may already be out there. Broadcast it, or spend one of its inputs to void it.',
          details: { status: plan.status },
        });
      }
      await PlanInput.query(trx).patch({ held: false }).where({ plan_id: planId });
      const updated = await Plan.query(trx).patchAndFetchById(planId, { status: 'cancelled', updated_at: new Date() });
      await this.deps.audit.record({ ...actor, action: 'treasury.plan.cancel', target: `treasury_plan:${planId}`, details: { was: plan.status } }, trx);
      await this.endUnsentBump(trx, plan, actor, { cancelled_bump: planId });
      return planView(updated, await PlanInput.query(trx).where('plan_id', planId).orderBy('id'));
    });
  }

  /**
   * Tells observers that `plan` (read before its change, now written in `trx` as cancelled or
   * failed) ended without being sent. When it is a replacement, the transaction it would have
   * replaced is still out there: observers hear that plan as `replacedBy` (what they follow goes
   * back there), and the plan is broadcast again and holds its outputs again.
   */
  async endUnsentBump(trx: Knex.Transaction, plan: Plan, actor: Actor, audit: Record<string, unknown>, extra: { reason?: string } = {}): Promise<void> {
    const replaced = plan.replaces_plan_id ? await Plan.query(trx).findById(plan.replaces_plan_id).forUpdate() : undefined;
    const restore = replaced?.status === 'replaced' ? replaced : undefined;
    await this.deps.treasuryPlanStatus.changed(trx, plan.id, plan.status, { ...extra, ...(restore ? { replacedBy: restore.id } : {}) });
    if (!restore) return;
    await PlanInput.query(trx).patch({ held: true }).where({ plan_id: restore.id });
    await Plan.query(trx).patch({ status: 'broadcast', updated_at: new Date() }).where('id', restore.id);
    await this.deps.audit.record({ ...actor, action: 'treasury.plan.unreplaced', target: `treasury_plan:${restore.id}`, details: audit }, trx);
    await this.deps.treasuryPlanStatus.changed(trx, restore.id, 'replaced');
  }

  async get(planId: string, scope: TreasuryScope): Promise<PlanView> {
    const plan = await this.requirePlan(planId, scope);
    return planView(plan, await PlanInput.query(this.deps.db).where('plan_id', planId).orderBy('id'));
  }

  /** Plans newest first, keyed by id; only plans whose every input is in the caller's projects. */
  async list(filter: PlanFilter, scope: TreasuryScope): Promise<{ plans: PlanView[]; next: string | null }> {
    const { page, next } = await planPage(this.deps.db, 'utxo', filter, await scopeProjects(this.deps.tenancyProjects, scope), scope);
    const inputs = await PlanInput.query(this.deps.db)
      .whereIn(
        'plan_id',
        page.map((p) => p.id),
      )
      .orderBy('id');
    return {
      plans: page.map((p) =>
        planView(
          p,
          inputs.filter((i) => i.plan_id === p.id),
        ),
      ),
      next,
    };
  }

  /** A plan the scope reaches (every input in its projects), else 404 `treasury_plan_not_found`. */
  async requirePlan(planId: string, scope: TreasuryScope): Promise<Plan> {
    const plan = await Plan.query(this.deps.db).findById(planId);
    // Account-chain plans (issue 36) are the account plans' (`/api/v1/treasury/accounts/plans`).
    if (!plan || plan.method !== null) throw treasuryErrors.treasury_plan_not_found();
    const reach = await scopeProjects(this.deps.tenancyProjects, scope);
    if (reach) {
      const outside = await PlanInput.query(this.deps.db)
        .where('plan_id', planId)
        .whereNotIn('project_id', [...reach])
        .first();
      if (outside) throw treasuryErrors.treasury_plan_not_found();
    }
    return plan;
  }

  /** The outputs a selection names; explicit selections (outpoints, invoices) refuse spent, unconfirmed and unknown ones. */
  async select(
    target: TreasuryNetwork,
    selection: OutputSelection,
    reach: ReadonlySet<string> | null,
  ): Promise<{ outputs: ReceivedOutput[]; explicit: boolean }> {
    const max = this.deps.treasuryConfig.maxOutputsPerPlan;
    const native = (o: ReceivedOutput) => o.coin === target.coin;
    if (selection.outpoints?.length) {
      const found = await this.deps.watchersOutputs.byOutpoints(target.chain, target.network, selection.outpoints);
      for (const wanted of selection.outpoints) {
        const output = found.find((o) => o.txHash === wanted.txHash && o.outputIndex === wanted.outputIndex);
        if (!output || (reach && !reach.has(output.projectId)) || !native(output)) {
          throw treasuryErrors.treasury_output_unknown({ details: { tx_hash: wanted.txHash, output_index: wanted.outputIndex } });
        }
      }
      const outputs = selection.outpoints.map((w) => found.find((o) => o.txHash === w.txHash && o.outputIndex === w.outputIndex)!);
      checkSpendable(outputs);
      return { outputs: dedupe(outputs), explicit: true };
    }
    const explicit = Boolean(selection.invoiceIds?.length);
    const outputs: ReceivedOutput[] = [];
    let after: string | undefined;
    do {
      const page = await this.deps.watchersOutputs.list({
        chain: target.chain,
        network: target.network,
        ...(selection.projectId ? { projectId: selection.projectId } : {}),
        ...(selection.invoiceIds?.length ? { invoiceIds: selection.invoiceIds } : {}),
        ...(selection.receivedBefore ? { receivedBefore: selection.receivedBefore } : {}),
        ...(selection.minUnits !== undefined ? { minUnits: selection.minUnits } : {}),
        spent: explicit ? 'any' : 'unspent',
        confirmedOnly: !explicit,
        limit: 500,
        ...(after ? { after } : {}),
      });
      outputs.push(...page.outputs.filter((o) => native(o) && (!reach || reach.has(o.projectId))));
      after = page.next ?? undefined;
    } while (after && outputs.length < max * 4);
    if (explicit) {
      if (outputs.length === 0) throw treasuryErrors.treasury_nothing_to_move({ message: 'The invoices named have no received output on this network.' });
      checkSpendable(outputs);
    }
    return { outputs: outputs.slice(0, max), explicit };
  }

  /** Explicit selections: refuse outputs another open plan holds. */
  private async checkNotHeld(target: TreasuryNetwork, outputs: readonly ReceivedOutput[], explicit: boolean): Promise<void> {
    if (!explicit) return;
    const held = await this.heldBy(target, outputs);
    if (held.size > 0) {
      const [outpoint, planId] = [...held.entries()][0]!;
      throw treasuryErrors.treasury_outputs_planned({
        message: `The output ${outpoint} is in the open plan ${planId}; nothing was planned.`,
        details: { plan_id: planId, outpoint },
      });
    }
  }

  private async withoutHeld(target: TreasuryNetwork, outputs: readonly ReceivedOutput[]): Promise<ReceivedOutput[]> {
    const held = await this.heldBy(target, outputs);
    return outputs.filter((o) => !held.has(`${o.txHash}:${o.outputIndex}`));
  }

  /** Outpoint (`tx:index`) → the open plan holding it. */
  async heldBy(target: { chain: string; network: string }, outputs: readonly Outpoint[]): Promise<Map<string, string>> {
    if (outputs.length === 0) return new Map();
    const rows = await sqlQuery<{ tx_hash: string; output_index: number; plan_id: string }>(
      this.deps.db,
      sql`select i.tx_hash, i.output_index, i.plan_id from treasury_plan_inputs i
           join unnest(${outputs.map((o) => o.txHash)}::text[], ${outputs.map((o) => o.outputIndex)}::int[]) as w(tx_hash, output_index)
             on w.tx_hash = i.tx_hash and w.output_index = i.output_index
          where i.held and i.chain = ${target.chain} and i.network = ${target.network}`,
    );
    return new Map(rows.map((r) => [`${r.tx_hash}:${r.output_index}`, r.plan_id]));
  }

  /**
   * Writes a new plan (built, or waiting for its fee) with its held inputs and the audit row, in one
   * transaction (a savepoint of `db` when it is the caller's transaction). A payout pays `recipients`
   * first, the rest (the change) to the destination.
   */
  async store(input: {
    target: TreasuryNetwork;
    kind: PlanKind;
    actor: Actor;
    scope: TreasuryScope;
    sourced: readonly SourcedInput[];
    skipped: SkippedOutput[];
    destinationRequest: DestinationRequest;
    destinationProject: string | undefined;
    feeRate: bigint | null;
    maxFeeRate: bigint | null;
    parent?: { txid: string; feeUnits: bigint; size: number };
    recipients?: readonly PayoutRecipient[];
    context?: Record<string, string>;
    db?: Knex | Knex.Transaction;
  }): Promise<PlanView> {
    const { target } = input;
    const db = input.db ?? this.deps.db;
    for (const address of [
      ...(input.recipients ?? []).map((r) => r.address),
      ...(input.destinationRequest.kind === 'external' ? [input.destinationRequest.address] : []),
    ]) {
      if (!target.adapter.isValidAddress(address, target.treasury.network.kind)) {
        throw treasuryErrors.treasury_wrong_network({ message: `${address} is not a ${target.chain} address of ${target.network}.`, details: { address } });
      }
    }
    const paid: PlanOutput[] = (input.recipients ?? []).map((r) => ({ address: r.address, amountUnits: r.units }));
    const id = newId();
    const createdAt = new Date();
    const value = input.sourced.reduce((sum, s) => sum + s.input.amountUnits, 0n);
    const ownWallet = input.destinationProject ? await this.deps.walletsWallets.requireVerifiedWallet(input.destinationProject, target.chain) : undefined;
    try {
      return await db.transaction(async (trx) => {
        let destination: Destination;
        if (ownWallet) {
          // One change index per plan: the wallet's next one, serialised per wallet.
          await sqlQuery(trx, sql`select pg_advisory_xact_lock(hashtextextended(${`treasury:change:${ownWallet.id}`}, 0))`);
          const [row] = await sqlQuery<{ next: number }>(
            trx,
            sql`select coalesce(max(destination_index) + 1, 0)::int as next from treasury_plans where destination_wallet_id = ${ownWallet.id}`,
          );
          const index = row!.next;
          const derived = target.treasury.changeAddress(ownWallet.key, index);
          destination = { address: derived.address, own: { branch: 1, index }, walletId: ownWallet.id, key: ownWallet.key };
        } else {
          destination = { address: (input.destinationRequest as { address: string }).address, walletId: null };
        }
        let built: Partial<Plan> = {};
        if (input.feeRate !== null) {
          const spend = input.sourced.map((s) => s.input);
          const outputs = [...paid, outputOf(destination)];
          let unsigned = target.treasury.build({ inputs: spend, outputs, feeRate: input.feeRate });
          if (input.parent) {
            // The child pays for both at the target rate, and at least for itself.
            const fee = input.feeRate * BigInt(input.parent.size + unsigned.size) - input.parent.feeUnits;
            if (fee > unsigned.feeUnits) unsigned = target.treasury.build({ inputs: spend, outputs, feeRate: input.feeRate, feeUnits: fee });
          }
          built = this.builtColumns(target, id, input.kind, unsigned, input.feeRate, createdAt, destination.key);
        }
        const plan = await Plan.query(trx).insertAndFetch({
          id,
          chain: target.chain,
          network: target.network,
          coin: target.coin,
          kind: input.kind,
          status: input.feeRate === null ? 'waiting_for_fee' : 'awaiting_signature',
          operator_id: input.scope.operatorId ?? null,
          destination: destination.address,
          destination_kind: destination.walletId ? 'own' : 'external',
          destination_wallet_id: destination.walletId,
          destination_index: destination.own?.index ?? null,
          value_units: value,
          max_fee_rate: input.maxFeeRate,
          skipped: input.skipped,
          replaces_plan_id: null,
          parent_txid: input.parent?.txid ?? null,
          context: input.context ?? null,
          created_by: input.actor.actor,
          created_at: createdAt,
          ...built,
        } as Partial<Plan>);
        await this.insertInputs(trx, id, target, input.sourced);
        await this.deps.audit.record(
          {
            ...input.actor,
            action: `treasury.plan.${input.kind === 'sweep' ? 'create' : input.kind}`,
            target: `treasury_plan:${id}`,
            details: {
              chain: target.chain,
              network: target.network,
              status: plan.status,
              inputs: input.sourced.length,
              value_units: value.toString(),
              fee_units: plan.fee_units?.toString() ?? null,
              destination: destination.address,
              destination_kind: plan.destination_kind,
              ...(input.recipients ? { recipients: input.recipients.length } : {}),
            },
          },
          trx,
        );
        await this.deps.treasuryPlanStatus.changed(trx, id, plan.status);
        return planView(plan, await PlanInput.query(trx).where('plan_id', id).orderBy('id'));
      });
    } catch (error) {
      if (isUniqueViolation(error, 'treasury_plan_inputs_held')) throw treasuryErrors.treasury_outputs_planned({ cause: error });
      throw error;
    }
  }

  private async insertInputs(trx: Knex.Transaction, planId: string, target: TreasuryNetwork, sourced: readonly SourcedInput[]): Promise<void> {
    await PlanInput.query(trx).insert(
      sourced.map((s) => ({
        plan_id: planId,
        chain: target.chain,
        network: target.network,
        tx_hash: s.output.txHash,
        output_index: s.output.outputIndex,
        address: s.output.address,
        amount_units: s.output.amountUnits,
        project_id: s.output.projectId,
        pool_address_id: s.output.poolAddressId,
        invoice_id: s.output.invoiceId,
        held: true,
      })) as Partial<PlanInput>[],
    );
  }

  private builtColumns(
    target: TreasuryNetwork,
    planId: string,
    kind: PlanKind,
    unsigned: UnsignedTransaction,
    feeRate: bigint,
    createdAt: Date,
    ownKey: SpendInput['key'] | undefined,
  ): Partial<Plan> {
    return {
      fee_rate: feeRate,
      fee_units: unsigned.feeUnits,
      size: unsigned.size,
      unsigned_format: unsigned.format,
      unsigned_data: unsigned.data,
      txid: unsigned.txid,
      plan_file: buildPlanFile({
        planId,
        adapter: target.adapter,
        network: target.treasury.network,
        coin: target.coin,
        kind: kind as Exclude<PlanKind, 'activation' | 'sweeper_deployment'>,
        unsigned,
        feeRate,
        createdAt,
        ...(ownKey ? { ownKey } : {}),
      }),
    };
  }

  private destinationOf(plan: Plan): Destination {
    return plan.destination_kind === 'own'
      ? { address: plan.destination, own: { branch: 1, index: plan.destination_index! }, walletId: plan.destination_wallet_id }
      : { address: plan.destination, walletId: null };
  }
}

function outputOf(destination: Destination): PlanOutput {
  return destination.own ? { address: destination.address, own: destination.own } : { address: destination.address };
}

/** A stored plan's outputs: a payout's recipients (their amounts), then the destination that takes the rest. */
function outputsOf(plan: Plan, destination: Destination): PlanOutput[] {
  return [...recipientsOf(plan).map((r) => ({ address: r.address, amountUnits: BigInt(r.units) })), outputOf(destination)];
}

/** A stored input in the shape `SpendSources.resolve` reads. */
export function inputAsOutput(input: PlanInput): ReceivedOutput {
  return {
    id: String(input.id),
    chain: input.chain as ChainId,
    network: input.network,
    coin: '',
    projectId: input.project_id,
    address: input.address,
    poolAddressId: input.pool_address_id,
    amountUnits: input.amount_units,
    blockHeight: null,
    status: 'in_block',
    // Spendable when the plan took it (its selection was checked then).
    attestation: null,
    confirmed: true,
    invoiceId: input.invoice_id,
    match: 'invoice',
    receivedAt: new Date(0),
    spentBy: null,
    spentHeight: null,
    txHash: input.tx_hash,
    outputIndex: input.output_index,
  };
}

function checkSpendable(outputs: readonly ReceivedOutput[]): void {
  const spent = outputs.find((o) => o.spentBy !== null);
  if (spent) {
    throw treasuryErrors.treasury_output_spent({
      message: `The output ${spent.txHash}:${spent.outputIndex} was spent by ${spent.spentBy}.`,
      details: { tx_hash: spent.txHash, output_index: spent.outputIndex, spent_by: spent.spentBy },
    });
  }
  const unconfirmed = outputs.find((o) => o.blockHeight === null);
  if (unconfirmed) {
    throw treasuryErrors.treasury_output_unconfirmed({
      message: `The output ${unconfirmed.txHash}:${unconfirmed.outputIndex} is not confirmed yet.`,
      details: { tx_hash: unconfirmed.txHash, output_index: unconfirmed.outputIndex },
    });
  }
  // In a block on one provider's word only (issue 40): the network's quorum has not attested it, so it may not exist.
  const unattested = outputs.find((o) => o.status === 'in_block' && !o.confirmed);
  if (unattested) {
    throw treasuryErrors.treasury_output_unconfirmed({
      message: `The output ${unattested.txHash}:${unattested.outputIndex} is in a block on one provider's word: the network's quorum of providers has not attested it yet (gateway watcher disagreements).`,
      details: { tx_hash: unattested.txHash, output_index: unattested.outputIndex, attested: false },
    });
  }
}

function dedupe(outputs: readonly ReceivedOutput[]): ReceivedOutput[] {
  const seen = new Set<string>();
  return outputs.filter((o) => {
    const key = `${o.txHash}:${o.outputIndex}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export { HOLDING_STATUSES };
