import { sql, sqlQuery, type Actor, type AuditLog, type ChainId, type ChainRegistry, type Extensions } from '@gw/kernel';
import type { AddressPoolService, PoolReplenisher } from '@gw/plugin-address-pool/contract';
import type { InvoiceService } from '@gw/plugin-invoices/contract';
import type { ApiKeyService, IssuedSecret, PatService, ProjectService, ProjectView } from '@gw/plugin-tenancy/contract';
import type { WalletService } from '@gw/plugin-wallets/contract';
import type { EventLog } from '@gw/plugin-webhooks/contract';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { sandboxErrors } from '../errors.js';
import { SANDBOX_PROJECT_PURGERS } from '../project-purgers.js';

/** A sandbox wallet listing entry (spec 2.6). */
export interface SandboxWallet {
  readonly chain: ChainId;
  readonly xpub: string;
  readonly bound_at_iso: string;
}

/** What provisioning returns. Both secrets are shown here once and never again. */
export interface ProvisionedSandbox {
  readonly project: ProjectView;
  readonly api_key: IssuedSecret;
  readonly pat: { readonly id: string; readonly token: string; readonly scopes: string[] };
  readonly wallets: SandboxWallet[];
}

/** The scope of the PAT every sandbox project gets (spec 1). */
export const SANDBOX_PAT_SCOPE = 'sandbox:simulate';

/**
 * The life of a sandbox project: one-action provisioning (project, a generated testnet key and
 * binding per chain, an `sk_sandbox_` API key and a `sandbox:simulate` PAT, all in one
 * transaction), the wallet listing, reset (a soft purge that keeps the shell, keys, bindings
 * and PAT) and deletion (everything, irreversibly).
 */
export class SandboxProjects {
  constructor(
    private readonly deps: {
      db: Knex;
      audit: AuditLog;
      logger: Logger;
      chains: ChainRegistry;
      tenancyProjects: ProjectService;
      tenancyApiKeys: ApiKeyService;
      tenancyPats: PatService;
      walletsWallets: WalletService;
      addressPoolService: AddressPoolService;
      addressPoolReplenisher: PoolReplenisher;
      invoicesService: InvoiceService;
      webhooksEventLog: EventLog;
      extensions: Extensions;
    },
  ) {}

  /**
   * Creates a sandbox project with everything it needs to take invoices at once, then derives
   * its address pools. `project_exists` (409) when the operator already has a project of that name.
   */
  async provision(input: { name: string; operator?: string }, actor: Actor, trx?: Knex.Transaction): Promise<ProvisionedSandbox> {
    const run = async (tx: Knex.Transaction): Promise<ProvisionedSandbox> => {
      const { project, credentials } = await this.deps.tenancyProjects.create(
        { name: input.name, kind: 'sandbox', ...(input.operator ? { operator: input.operator } : {}) },
        actor,
        tx,
      );
      const wallets: SandboxWallet[] = [];
      // A chain without the sandboxKeyGeneration capability needs an operator-registered key instead.
      for (const adapter of this.deps.chains.list().filter((a) => a.definition.capabilities.sandboxKeyGeneration)) {
        const wallet = await this.deps.walletsWallets.bindGenerated({ projectId: project.id, chain: adapter.definition.id }, actor, tx);
        wallets.push({ chain: wallet.chain, xpub: wallet.xpub, bound_at_iso: wallet.bound_at_iso });
      }
      const pat = await this.deps.tenancyPats.create({ scopes: [SANDBOX_PAT_SCOPE], project: project.id, name: 'sandbox' }, actor, tx);
      return { project, api_key: credentials, pat: { id: pat.id, token: pat.token, scopes: pat.scopes }, wallets };
    };
    const provisioned = trx ? await run(trx) : await this.deps.db.transaction(run);
    if (!trx) await this.fillPools(provisioned.project.id);
    return provisioned;
  }

  /**
   * On the first start of an install (no project at all), provisions one sandbox project named
   * `sandbox` and returns it; otherwise undefined. Concurrent first starts of several instances
   * serialise on an advisory lock, so exactly one provisions.
   */
  async provisionIfEmpty(actor: Actor): Promise<ProvisionedSandbox | undefined> {
    const provisioned = await this.deps.db.transaction(async (trx) => {
      await sqlQuery(trx, sql`select pg_advisory_xact_lock(hashtextextended(${'sandbox:first-start'}, 0))`);
      if (await this.deps.tenancyProjects.any(trx)) return undefined;
      return this.provision({ name: 'sandbox' }, actor, trx);
    });
    if (provisioned) await this.fillPools(provisioned.project.id);
    return provisioned;
  }

  /** The project's generated keys and when they were bound (spec 2.6). */
  async wallets(projectId: string): Promise<SandboxWallet[]> {
    return (await this.deps.walletsWallets.list(projectId)).map((wallet) => ({ chain: wallet.chain, xpub: wallet.xpub, bound_at_iso: wallet.bound_at_iso }));
  }

  /**
   * Purges the project's invoices (and their transactions), webhook events (and attempts), address
   * pool and what other plugins hold of it (`SANDBOX_PROJECT_PURGERS`: refunds and payouts, ...) in
   * one transaction, then derives fresh pools. The shell, API key, bindings and
   * PAT stay. Any failure rolls everything back: 500 `sandbox_reset_failed`.
   */
  async reset(projectId: string, actor: Actor): Promise<{ status: 'reset' }> {
    try {
      await this.deps.db.transaction(async (trx) => {
        const contributed = await this.purgeContributed(trx, projectId);
        const invoices = await this.deps.invoicesService.purgeProject(trx, projectId);
        const events = await this.deps.webhooksEventLog.purgeProject(trx, projectId);
        const addresses = await this.deps.addressPoolService.purgeProject(trx, projectId);
        await this.deps.audit.record(
          { ...actor, action: 'sandbox.reset', projectId, target: `project:${projectId}`, details: { invoices, events, addresses, ...contributed } },
          trx,
        );
      });
    } catch (error) {
      this.deps.logger.error({ err: error, projectId }, 'sandbox reset failed');
      throw sandboxErrors.sandbox_reset_failed({ cause: error });
    }
    await this.fillPools(projectId);
    return { status: 'reset' };
  }

  /**
   * Deletes the project and everything of it, keys and PAT included, and what other plugins hold of
   * it (`SANDBOX_PROJECT_PURGERS`) in the same transaction. 500 `sandbox_delete_failed` on failure.
   */
  async delete(projectId: string, actor: Actor): Promise<{ status: 'deleted' }> {
    try {
      await this.deps.db.transaction(async (trx) => {
        await this.purgeContributed(trx, projectId);
        await this.deps.tenancyProjects.delete(projectId, actor, trx);
      });
    } catch (error) {
      this.deps.logger.error({ err: error, projectId }, 'sandbox delete failed');
      throw sandboxErrors.sandbox_delete_failed({ cause: error });
    }
    return { status: 'deleted' };
  }

  /** Derives the project's pools now, so the first invoice need not wait for the replenisher job. */
  /** Every contributed purger's rows of the project, by the purger's name (the reset's audit details). */
  private async purgeContributed(trx: Knex.Transaction, projectId: string): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    for (const { item } of this.deps.extensions.of(SANDBOX_PROJECT_PURGERS)) counts[item.name] = await item.purge(trx, projectId);
    return counts;
  }

  private async fillPools(projectId: string): Promise<void> {
    try {
      await this.deps.addressPoolReplenisher.replenish({ projectId });
    } catch (error) {
      // The periodic replenisher will fill them; creation answers pool_exhausted until then.
      this.deps.logger.warn({ err: error, projectId }, 'sandbox pool derivation failed; the replenisher job will retry');
    }
  }
}
