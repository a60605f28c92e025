import {
  type Actor,
  type AuditLog,
  type ChainId,
  type ChainRegistry,
  type CoinId,
  coreErrors,
  fromBaseUnits,
  sql,
  type Sql,
  toBaseUnits,
  UnitsError,
} from '@gw/kernel';
import type { ProjectService } from '@gw/plugin-tenancy/contract';
import type { Knex } from 'knex';
import type { InvoicesConfig, MatchingMode } from '../config.js';
import { ProjectPolicy } from '../models/project-policy.js';

/** Bounds of the policy values (also enforced by the CLI flags). */
export const POLICY_LIMITS = {
  expirySeconds: { min: 60, max: 2_592_000 },
  confirmations: { min: 0, max: 1000 },
  /** A share of the amount, at most 5 % (issue 38), with at most 6 fractional digits (0.0001 %). */
  underpaymentTolerance: { max: '0.05', decimals: 6 },
} as const;

/** No underpayment tolerance: the default, and what invoices created before it existed have. */
export const NO_TOLERANCE = '0';

/**
 * An underpayment tolerance as written by an operator (a plain decimal share, "0" to "0.05", at
 * most 6 fractional digits) in its canonical form ("0.0050" is "0.005"); 400 `validation_error`
 * naming `underpayment_tolerance` otherwise.
 */
export function parseTolerance(value: string): string {
  const { max, decimals } = POLICY_LIMITS.underpaymentTolerance;
  const refuse = () =>
    coreErrors.validation_error({
      message: `underpayment tolerance must be a decimal share from 0 to ${max} (5 %) with at most ${decimals} fractional digits, e.g. 0.005 for 0.5 %`,
      details: { field: 'underpayment_tolerance' },
    });
  let units: bigint;
  try {
    units = toBaseUnits(value.trim(), decimals);
  } catch (error) {
    if (error instanceof UnitsError) throw refuse();
    throw error;
  }
  if (units > toBaseUnits(max, decimals)) throw refuse();
  return fromBaseUnits(units, decimals);
}

/**
 * A threshold of 0 on a production project marks an invoice paid on a transaction no block holds
 * yet: it can be replaced (RBF), double-spent or never confirm, and the partner ships anyway
 * (issue 33 finding 19). The operator must say so explicitly (`--allow-zero-confirmations`);
 * testnet and sandbox projects take 0 freely.
 */
export function refuseUnconfirmedProduction(patch: PolicyPatch): void {
  if (patch.allowZeroConfirmations === true) return;
  const zero = Object.entries(patch.confirmations ?? {})
    .filter(([, n]) => n === 0)
    .map(([chain]) => chain);
  if (zero.length === 0) return;
  throw coreErrors.validation_error({
    message: `confirmations of 0 (${zero.join(', ')}) on a production project count payments no block holds yet (replaceable, may never confirm); to accept that risk, set it again with --allow-zero-confirmations`,
    details: { field: 'confirmations' },
  });
}

/** A project's effective invoice policy: overrides resolved against the deployment defaults. */
export interface ResolvedPolicy {
  readonly project_id: string;
  readonly default_matching_mode: MatchingMode;
  readonly expiry_seconds: number;
  /** Confirmation threshold per enabled chain. */
  readonly confirmations: Readonly<Partial<Record<ChainId, number>>>;
  /** Coins invoices may be created in. */
  readonly enabled_coins: readonly CoinId[];
  /**
   * The share of an invoice's amount a payment may fall short by and still settle as `paid`
   * (decimal string, "0": none, the default; at most "0.05"). Invoices keep the value they were
   * created with (issue 38).
   */
  readonly underpayment_tolerance: string;
  /** What the project overrides (null: the default applies). */
  readonly overrides: {
    readonly default_matching_mode: MatchingMode | null;
    readonly expiry_seconds: number | null;
    readonly confirmations: Readonly<Partial<Record<ChainId, number>>>;
    readonly enabled_coins: readonly CoinId[] | null;
    readonly underpayment_tolerance: string | null;
  };
}

/** A change to a policy: a value sets the override, null removes it, absent leaves it. */
export interface PolicyPatch {
  readonly defaultMatchingMode?: MatchingMode | null;
  readonly expirySeconds?: number | null;
  readonly confirmations?: Readonly<Partial<Record<ChainId, number | null>>>;
  readonly enabledCoins?: readonly CoinId[] | null;
  /** Underpayment tolerance, a share "0" to "0.05" (see {@link parseTolerance}); null: none (the default). */
  readonly underpaymentTolerance?: string | null;
  /**
   * The operator accepts a threshold of 0 on a production project (payments count while still
   * in the mempool); without it such a patch is refused (`refuseUnconfirmedProduction`).
   */
  readonly allowZeroConfirmations?: boolean;
}

/**
 * Per-project invoice policies set by the operator: default matching mode, expiry, confirmation
 * thresholds per chain, enabled coins, underpayment tolerance. Unset values follow the deployment defaults (config) and
 * the chain definitions.
 */
export class PolicyService {
  constructor(private readonly deps: { db: Knex; audit: AuditLog; chains: ChainRegistry; invoicesConfig: InvoicesConfig; tenancyProjects: ProjectService }) {}

  async get(projectId: string, trx?: Knex.Transaction): Promise<ResolvedPolicy> {
    const row = await ProjectPolicy.query(trx ?? this.deps.db).findById(projectId);
    return this.resolve(projectId, row);
  }

  /** The policies of several projects in one query. */
  async getMany(projectIds: readonly string[], trx?: Knex.Transaction): Promise<Map<string, ResolvedPolicy>> {
    const rows = await ProjectPolicy.query(trx ?? this.deps.db).whereIn('project_id', [...new Set(projectIds)]);
    const byProject = new Map(rows.map((row) => [row.project_id, row]));
    return new Map(projectIds.map((id) => [id, this.resolve(id, byProject.get(id))]));
  }

  /**
   * A part of the caller's statement: the stored policies of `projectIds` as one json value, read
   * back with {@link readMany} (the create path reads them in the statement that takes its locks).
   */
  manySql(projectIds: readonly string[]): Sql {
    return sql`(select coalesce(json_agg(json_build_object('project_id', p.project_id, 'default_matching_mode', p.default_matching_mode,
                  'expiry_seconds', p.expiry_seconds, 'confirmations', p.confirmations, 'enabled_coins', p.enabled_coins,
                  'underpayment_tolerance', p.underpayment_tolerance::text)), '[]')
                from invoices_project_policies p where p.project_id = any(${[...new Set(projectIds)]}::text[]))`;
  }

  /** The resolved policies of `projectIds` from the value of a {@link manySql} part. */
  readMany(value: unknown, projectIds: readonly string[]): Map<string, ResolvedPolicy> {
    const byProject = new Map((value as ProjectPolicy[]).map((row) => [row.project_id, row]));
    return new Map(projectIds.map((id) => [id, this.resolve(id, byProject.get(id))]));
  }

  async set(projectId: string, patch: PolicyPatch, actor: Actor): Promise<ResolvedPolicy> {
    const project = await this.deps.tenancyProjects.get(projectId);
    this.check(patch);
    if (project.kind === 'production') refuseUnconfirmedProduction(patch);
    const tolerance = patch.underpaymentTolerance == null ? patch.underpaymentTolerance : parseTolerance(patch.underpaymentTolerance);
    return this.deps.db.transaction(async (trx) => {
      const current = await ProjectPolicy.query(trx).findById(projectId).forUpdate();
      const confirmations: Partial<Record<ChainId, number>> = { ...(current?.confirmations ?? {}) };
      for (const [chain, value] of Object.entries(patch.confirmations ?? {}) as [ChainId, number | null][]) {
        if (value === null) delete confirmations[chain];
        else confirmations[chain] = value;
      }
      const next = {
        project_id: projectId,
        default_matching_mode: patch.defaultMatchingMode !== undefined ? patch.defaultMatchingMode : (current?.default_matching_mode ?? null),
        expiry_seconds: patch.expirySeconds !== undefined ? patch.expirySeconds : (current?.expiry_seconds ?? null),
        confirmations,
        enabled_coins:
          patch.enabledCoins !== undefined ? (patch.enabledCoins === null ? null : [...new Set(patch.enabledCoins)]) : (current?.enabled_coins ?? null),
        // "0" is stored as none: the default and an explicit zero are the same policy.
        underpayment_tolerance: tolerance !== undefined ? (tolerance === NO_TOLERANCE ? null : tolerance) : (current?.underpayment_tolerance ?? null),
        updated_at: new Date(),
      };
      const saved = current ? await ProjectPolicy.query(trx).patchAndFetchById(projectId, next) : await ProjectPolicy.query(trx).insertAndFetch(next);
      await this.deps.audit.record(
        {
          ...actor,
          action: 'invoice_policy.set',
          projectId,
          target: `project:${projectId}`,
          details: { ...patch, ...(tolerance != null ? { underpaymentTolerance: tolerance } : {}) },
        },
        trx,
      );
      return this.resolve(projectId, saved);
    });
  }

  /**
   * Production projects whose stored policy counts payments at 0 confirmations (set before the
   * rule of `refuseUnconfirmedProduction`, or accepted with its flag): logged at start-up.
   */
  async unconfirmedProductionProjects(): Promise<{ projectId: string; chains: ChainId[] }[]> {
    const rows = await ProjectPolicy.query(this.deps.db);
    const found: { projectId: string; chains: ChainId[] }[] = [];
    for (const row of rows) {
      const chains = (Object.entries(row.confirmations ?? {}) as [ChainId, number][])
        .filter(([chain, n]) => n === 0 && this.deps.chains.has(chain))
        .map(([chain]) => chain);
      if (chains.length === 0) continue;
      const project = await this.deps.tenancyProjects.get(row.project_id).catch(() => undefined);
      if (project?.kind === 'production') found.push({ projectId: row.project_id, chains });
    }
    return found;
  }

  private check(patch: PolicyPatch): void {
    const { expirySeconds, confirmations: conf } = POLICY_LIMITS;
    if (
      patch.expirySeconds != null &&
      (!Number.isInteger(patch.expirySeconds) || patch.expirySeconds < expirySeconds.min || patch.expirySeconds > expirySeconds.max)
    ) {
      throw coreErrors.validation_error({
        message: `expiry must be a whole number of seconds from ${expirySeconds.min} to ${expirySeconds.max}`,
        details: { field: 'expiry_seconds' },
      });
    }
    for (const [chain, value] of Object.entries(patch.confirmations ?? {})) {
      if (!this.deps.chains.has(chain))
        throw coreErrors.validation_error({ message: `Unknown or disabled chain "${chain}"`, details: { field: 'confirmations' } });
      if (value != null && (!Number.isInteger(value) || value < conf.min || value > conf.max)) {
        throw coreErrors.validation_error({
          message: `confirmations for ${chain} must be a whole number from ${conf.min} to ${conf.max}`,
          details: { field: 'confirmations' },
        });
      }
    }
    if (patch.enabledCoins?.length === 0) {
      throw coreErrors.validation_error({
        message: 'Enabled coins must name at least one coin, or be every coin of the enabled chains ("all").',
        details: { field: 'enabled_coins' },
      });
    }
    for (const coin of patch.enabledCoins ?? []) this.deps.chains.coin(coin);
  }

  private resolve(projectId: string, row: ProjectPolicy | undefined): ResolvedPolicy {
    const chains = this.deps.chains.list();
    const confirmations: Partial<Record<ChainId, number>> = {};
    for (const adapter of chains) confirmations[adapter.definition.id] = row?.confirmations[adapter.definition.id] ?? adapter.definition.defaultConfirmations;
    const available = chains.flatMap((adapter) => adapter.definition.coins.map((coin) => coin.id));
    const enabled = row?.enabled_coins ? available.filter((coin) => row.enabled_coins!.includes(coin)) : available;
    return {
      project_id: projectId,
      default_matching_mode: row?.default_matching_mode ?? this.deps.invoicesConfig.defaultMatchingMode,
      expiry_seconds: row?.expiry_seconds ?? this.deps.invoicesConfig.defaultExpirySeconds,
      confirmations,
      enabled_coins: enabled,
      underpayment_tolerance: row?.underpayment_tolerance ?? NO_TOLERANCE,
      overrides: {
        default_matching_mode: row?.default_matching_mode ?? null,
        expiry_seconds: row?.expiry_seconds ?? null,
        confirmations: row?.confirmations ?? {},
        enabled_coins: row?.enabled_coins ?? null,
        underpayment_tolerance: row?.underpayment_tolerance ?? null,
      },
    };
  }
}
