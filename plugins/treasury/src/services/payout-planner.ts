import { type AccountPayoutRequest, type Actor, AppError, coreErrors, type PayoutRecipient } from '@gw/kernel';
import type { ProjectService } from '@gw/plugin-tenancy/contract';
import type { WalletService } from '@gw/plugin-wallets/contract';
import type { Knex } from 'knex';
import { treasuryErrors } from '../errors.js';
import type { PlanStatus } from '../plan-status.js';
import type { AccountNetworks } from './account-networks.js';
import type { AccountPlans } from './account-plans.js';
import type { AccountSources, PoolSource } from './account-sources.js';
import type { SourcedInput, SpendSources } from './spend-sources.js';
import type { TreasuryNetworks } from './treasury-networks.js';
import type { TreasuryPlans } from './treasury-plans.js';
import type { TreasuryScope } from './treasury-scope.js';

/**
 * Where the money of a payout plan comes from.
 * - `received`: UTXO chains: the project's confirmed unspent received outputs not held by another
 *   plan, oldest first, as few as cover the recipients and the fee; change to the project's own
 *   change address. Account chains: refused (`treasury_nothing_to_move`): name an address.
 * - `funding`: account chains: the operator's `funding` account of the network.
 * - `address`: a pool address of the project (UTXO: only its outputs; account: the address sends).
 */
export type PayoutSource = { readonly kind: 'received' } | { readonly kind: 'funding' } | { readonly kind: 'address'; readonly address: string };

export interface PayoutPlanRequest {
  readonly projectId: string;
  readonly chain: string;
  readonly network: string;
  /** The coin every recipient is paid in. */
  readonly coin: string;
  /** In the order the plan pays them; each `reference` unique. */
  readonly recipients: readonly PayoutRecipient[];
  readonly source: PayoutSource;
  /** UTXO chains: base units per size unit; default the provider's one-hour estimate. */
  readonly feeRate?: bigint;
}

/** The stored plan, as the payouts plugin records it on its items. */
export interface PayoutPlanResult {
  readonly planId: string;
  readonly status: PlanStatus;
  readonly feeUnits: bigint;
}

/**
 * Payout plans (issue 37): the treasury turns approved refunds and payouts into a plan of kind
 * `payout` (a multi-output PSBT on Bitcoin and Litecoin, one transfer per recipient on account
 * chains), signed offline, verified, broadcast and tracked exactly as sweeps are. The plan is
 * stored in the caller's transaction, so the items it pays change state with it; its later status
 * changes reach the caller through `TREASURY_PLAN_OBSERVERS`.
 */
export interface PayoutPlanner {
  /**
   * Builds and stores the plan in `trx`. Throws `treasury_unavailable`, `treasury_nothing_to_move`
   * (no source), `treasury_insufficient_value` (the source does not cover the amounts and the fee),
   * `treasury_wrong_network` (a recipient of another network), `treasury_outputs_planned`.
   */
  plan(trx: Knex.Transaction, request: PayoutPlanRequest, actor: Actor): Promise<PayoutPlanResult>;
}

/**
 * The planner: UTXO chains through the treasury's plans (inputs held like a sweep's, change to the
 * project's own change chain), account chains through the chain's `buildPayout` stored like the
 * account plans (steps; the pool address that sends held).
 */
export class TreasuryPayouts implements PayoutPlanner {
  constructor(
    private readonly deps: {
      tenancyProjects: ProjectService;
      walletsWallets: WalletService;
      treasuryNetworks: TreasuryNetworks;
      treasuryPlans: TreasuryPlans;
      treasurySources: SpendSources;
      treasuryAccountNetworks: AccountNetworks;
      treasuryAccountSources: AccountSources;
      treasuryAccountPlans: AccountPlans;
    },
  ) {}

  async plan(trx: Knex.Transaction, request: PayoutPlanRequest, actor: Actor): Promise<PayoutPlanResult> {
    checkRecipients(request.recipients);
    const project = await this.deps.tenancyProjects.get(request.projectId, trx);
    const scope: TreasuryScope = { operatorId: project.operator_id };
    return this.deps.treasuryAccountNetworks.isAccountChain(request.chain)
      ? this.accountPlan(trx, request, scope, actor)
      : this.utxoPlan(trx, request, scope, actor);
  }

  private async utxoPlan(trx: Knex.Transaction, request: PayoutPlanRequest, scope: TreasuryScope, actor: Actor): Promise<PayoutPlanResult> {
    const target = this.deps.treasuryNetworks.get(request.chain, request.network);
    if (request.coin !== target.coin)
      throw coreErrors.validation_error({ message: `${request.coin} is not the coin of ${target.chain}.`, details: { field: 'coin' } });
    for (const r of request.recipients) {
      if (!target.adapter.isValidAddress(r.address, target.treasury.network.kind)) {
        throw treasuryErrors.treasury_wrong_network({
          message: `${r.address} is not a ${target.chain} address of ${target.network}.`,
          details: { address: r.address },
        });
      }
    }
    if (request.source.kind === 'funding') {
      throw treasuryErrors.treasury_nothing_to_move({ message: `${target.chain} pays from received outputs or a named pool address, not a funding account.` });
    }
    const networks = this.deps.treasuryNetworks;
    // Asked even with a rate given: a treasury may read the ledger's parameters with it (Cardano).
    const estimate = await networks.estimate(target).catch((error: unknown) => {
      if (request.feeRate === undefined) throw error;
      return undefined;
    });
    const feeRate = request.feeRate ?? estimate!.hour;
    networks.checkCeiling(target, feeRate);

    const { outputs } = await this.deps.treasuryPlans.select(target, { projectId: request.projectId }, null);
    const wanted = request.source.kind === 'address' ? outputs.filter((o) => o.address === (request.source as { address: string }).address) : outputs;
    if (wanted.length === 0) {
      throw treasuryErrors.treasury_nothing_to_move({
        message: `The project has no confirmed unspent ${target.coin} output${request.source.kind === 'address' ? ' at that address' : ''}.`,
      });
    }
    const held = await this.deps.treasuryPlans.heldBy(target, wanted);
    const free = wanted.filter((o) => !held.has(`${o.txHash}:${o.outputIndex}`));
    if (free.length === 0) {
      const [outpoint, planId] = [...held.entries()][0]!;
      throw treasuryErrors.treasury_outputs_planned({
        message: `Every output of the source is in an open plan (${outpoint} in ${planId}); nothing was planned.`,
        details: { plan_id: planId, outpoint },
      });
    }

    // Oldest first, as few as cover the recipients, the fee and a change output: a trial build
    // (change to the first change address: the same size as the one the plan will get) says when.
    const wallet = await this.deps.walletsWallets.requireVerifiedWallet(request.projectId, target.chain);
    const trialChange = target.treasury.changeAddress(wallet.key, 0);
    const paid = request.recipients.map((r) => ({ address: r.address, amountUnits: r.units }));
    const total = request.recipients.reduce((sum, r) => sum + r.units, 0n);
    const cost = target.treasury.inputCost(feeRate);
    const worth = free.filter((o) => o.amountUnits > cost);
    const chosen: SourcedInput[] = [];
    let value = 0n;
    let lastError: unknown;
    for (const output of worth) {
      chosen.push(...(await this.deps.treasurySources.resolveForBuild(target, [output])));
      value += output.amountUnits;
      if (value < total) continue;
      try {
        target.treasury.build({
          inputs: chosen.map((s) => s.input),
          outputs: [...paid, { address: trialChange.address, own: { branch: 1, index: 0 } }],
          feeRate,
        });
        lastError = undefined;
        break;
      } catch (error) {
        if (!(error instanceof AppError) || !['treasury_insufficient_value', 'treasury_dust_output'].includes(error.code)) throw error;
        // A recipient's own amount below dust is no matter of inputs.
        if (error.code === 'treasury_dust_output' && (error.details as { address?: string } | undefined)?.address !== trialChange.address) throw error;
        lastError = error;
      }
    }
    if (value < total || lastError) {
      throw treasuryErrors.treasury_insufficient_value({
        message: `The source's ${worth.length} spendable output(s) hold ${value} ${target.coin} base units; the recipients take ${total} plus the fee and a change output.`,
        details: { coin: target.coin, needed_units: total.toString(), held_units: value.toString() },
      });
    }
    const view = await this.deps.treasuryPlans.store({
      target,
      kind: 'payout',
      actor,
      scope,
      sourced: chosen,
      skipped: [],
      destinationRequest: { kind: 'own', projectId: request.projectId },
      destinationProject: request.projectId,
      feeRate,
      maxFeeRate: null,
      recipients: request.recipients,
      context: { project_id: request.projectId, recipients: recipientsText(request.recipients) },
      db: trx,
    });
    return { planId: view.id, status: view.status, feeUnits: BigInt(view.fee_units ?? '0') };
  }

  private async accountPlan(trx: Knex.Transaction, request: PayoutPlanRequest, scope: TreasuryScope, actor: Actor): Promise<PayoutPlanResult> {
    const target = this.deps.treasuryAccountNetworks.get(request.chain, request.network);
    if (!target.treasury.buildPayout) {
      throw treasuryErrors.treasury_method_unavailable({ message: `${target.chain} has no payout plans here.`, details: { chain: target.chain } });
    }
    if (!target.adapter.definition.coins.some((c) => c.id === request.coin)) {
      throw coreErrors.validation_error({ message: `${request.coin} is not a coin of ${target.chain}.`, details: { field: 'coin' } });
    }
    let from: AccountPayoutRequest['from'];
    const sources: PoolSource[] = [];
    if (request.source.kind === 'funding') {
      const account = target.operatorAccounts.funding;
      if (!account) {
        throw treasuryErrors.treasury_operator_account_missing({
          message: `No funding account is configured for ${target.chain} ${target.network} (plugins.treasury.networks).`,
          details: { role: 'funding' },
        });
      }
      from = { kind: 'operator', account };
    } else if (request.source.kind === 'address') {
      const address = request.source.address;
      const [source] = (await this.deps.treasuryAccountSources.resolve(target, [address])).filter((s) => s.projectId === request.projectId);
      if (!source)
        throw treasuryErrors.treasury_nothing_to_move({ message: `${address} is not a pool address of the project on ${target.chain} ${target.network}.` });
      const held = (await this.deps.treasuryAccountPlans.heldBy(target, [source.address])).get(source.address);
      if (held) {
        throw treasuryErrors.treasury_outputs_planned({
          message: `${source.address} is in the open plan ${held}; nothing was planned.`,
          details: { plan_id: held },
        });
      }
      sources.push(source);
      from = { kind: 'deposit', source: { address: source.address, key: source.key, index: source.index } };
    } else {
      throw treasuryErrors.treasury_nothing_to_move({ message: `${target.chain} pays from the funding account or a named pool address: name one.` });
    }
    const build = await target.treasury.buildPayout({ coin: request.coin, from, recipients: request.recipients, operatorAccounts: target.operatorAccounts });
    const view = await this.deps.treasuryAccountPlans.store(
      target,
      { ...build, context: { ...build.context, project_id: request.projectId, recipients: recipientsText(request.recipients) } },
      sources,
      scope,
      actor,
      'payout',
      trx,
    );
    return { planId: view.id, status: view.status, feeUnits: BigInt(view.fee_units) };
  }
}

/** `context.recipients`: JSON text, decimal units, in plan order. */
function recipientsText(recipients: readonly PayoutRecipient[]): string {
  return JSON.stringify(recipients.map((r) => ({ reference: r.reference, address: r.address, units: r.units.toString() })));
}

function checkRecipients(recipients: readonly PayoutRecipient[]): void {
  if (recipients.length === 0) throw coreErrors.validation_error({ message: 'A payout plan pays at least one recipient.', details: { field: 'recipients' } });
  const seen = new Set<string>();
  recipients.forEach((r, index) => {
    if (typeof r.units !== 'bigint' || r.units <= 0n) {
      throw coreErrors.validation_error({ message: `Recipient ${index} has no positive amount.`, details: { field: 'recipients', index } });
    }
    if (seen.has(r.reference))
      throw coreErrors.validation_error({ message: `The reference ${r.reference} is given twice.`, details: { field: 'recipients', index } });
    seen.add(r.reference);
  });
}
