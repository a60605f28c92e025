import { createFailureLog, type AccountTreasury, type FailureLog, type ObservedTransfer } from '@gw/kernel';
import type { AddressPoolService } from '@gw/plugin-address-pool/contract';
import type { ProjectService } from '@gw/plugin-tenancy/contract';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { WatchersConfig } from '../config.js';
import type { ScanTarget } from './chain-scanner.js';
import { WATCHER_ACTOR } from './payment-matcher.js';
import { projectKindOn } from './watched-addresses.js';

/**
 * The one question activation detection asks a chain: which of these addresses exist on it (TRON:
 * `getaccount` answers an account). It is the chain adapter's account treasury's `activated`
 * (issue 36), read through the providers the watchers configured for the network.
 */
export type ActivationProbe = Pick<Required<AccountTreasury>, 'activated'>;

/** What one detection pass of one network did. */
export interface ActivationReport {
  /** Unactivated pool addresses of the network's projects asked about. */
  readonly checked: number;
  /** Pool rows marked activated. */
  readonly activated: number;
  /** The provider failed; nothing was marked, the same addresses are asked again next pass. */
  readonly error?: string;
}

/**
 * Activation is automatic: on a chain whose new addresses must exist on chain before invoices use
 * them (`capabilities.requiresActivation`, TRON), the watchers mark a pool address activated once
 * the chain shows it exists, whoever activated it (an activation plan, TRX from a payer or an
 * exchange, the operator by hand). Two ways:
 *
 * - `pass` (the `watchers.activation` job, every `activationIntervalMinutes`): asks the chain about
 *   at most `activationAddressesPerPass` unactivated pool addresses of the network's project kind, a
 *   window that rotates over all of them from pass to pass, and marks those it answers.
 * - `fromTransfers` (inside each scan pass, free): a transfer of the native coin to a pool address,
 *   in a block, created its account; the row is marked in the pass's transaction.
 *
 * Rows are marked through the address pool's contract (`markActivated`, audited with the watchers as
 * actor); this plugin never reads the pool's table.
 */
export class ActivationDetector {
  /** Per network, the last id of the previous window (undefined: start again from the first). */
  private readonly cursors = new Map<string, string>();
  private readonly probes = new Map<string, ActivationProbe | null>();
  private readonly failures: FailureLog;

  constructor(
    private readonly deps: {
      logger: Logger;
      watchersConfig: WatchersConfig;
      addressPoolService: AddressPoolService;
      tenancyProjects: ProjectService;
    },
  ) {
    this.failures = createFailureLog(deps.logger, {
      failed: 'activation check failed; the same addresses are asked again next pass',
      stillFailing: 'activation check still failing',
      recovered: 'activation check recovered',
    });
  }

  /**
   * The network's probe: its adapter's account treasury (built once over the watchers' providers),
   * or null where the chain needs no activation or its adapter cannot tell (no `activated`).
   */
  probeOf(target: ScanTarget): ActivationProbe | null {
    const key = keyOf(target);
    if (this.probes.has(key)) return this.probes.get(key)!;
    const { definition } = target.adapter;
    let probe: ActivationProbe | null = null;
    if (definition.capabilities.requiresActivation && target.providers && target.adapter.createAccountTreasury) {
      const network = [definition.networks.mainnet, ...definition.networks.testnets].find((n) => n.id === target.network);
      const treasury = network ? target.adapter.createAccountTreasury({ network, providers: target.providers }) : undefined;
      if (treasury?.activated) probe = { activated: (addresses) => treasury.activated!(addresses) };
    }
    if (!probe && definition.capabilities.requiresActivation) {
      this.deps.logger.warn(
        { chain: definition.id, network: target.network },
        'this chain cannot tell which addresses exist on it: pool addresses are activated only by `pool activate`',
      );
    }
    this.probes.set(key, probe);
    return probe;
  }

  /** One detection pass of `target` (see the class comment); never throws for a provider failure. */
  async pass(target: ScanTarget): Promise<ActivationReport> {
    const probe = this.probeOf(target);
    const { definition } = target.adapter;
    const kind = projectKindOn(definition, target.network);
    if (!probe || !kind) return { checked: 0, activated: 0 };
    const key = keyOf(target);
    const limit = this.deps.watchersConfig.activationAddressesPerPass;
    const page = await this.deps.addressPoolService.unactivated(definition.id, { after: this.cursors.get(key), limit });
    if (page.length < limit) this.cursors.delete(key);
    else this.cursors.set(key, page.at(-1)!.id);
    const kinds = await this.deps.tenancyProjects.kinds(page.map((row) => row.projectId));
    // A network answers for the projects whose invoices pay on it: an account on mainnet says
    // nothing of the same address on a testnet.
    const ours = page.filter((row) => kinds.get(row.projectId) === kind);
    if (ours.length === 0) return { checked: 0, activated: 0 };
    let existing: Set<string>;
    try {
      existing = await probe.activated([...new Set(ours.map((row) => row.address))]);
    } catch (error) {
      this.failures.failed(key, error, { component: 'watcher', chain: definition.id, network: target.network });
      return { checked: ours.length, activated: 0, error: error instanceof Error ? error.message : String(error) };
    }
    this.failures.succeeded(key, { component: 'watcher', chain: definition.id, network: target.network });
    const marked = await this.deps.addressPoolService.markActivated(
      ours.filter((row) => existing.has(row.address)).map((row) => row.id),
      { by: 'account_on_chain' },
      WATCHER_ACTOR,
    );
    if (marked.length > 0) {
      this.deps.logger.info(
        { chain: definition.id, network: target.network, addresses: marked.map((row) => row.address) },
        'pool addresses found on chain are marked activated',
      );
    }
    return { checked: ours.length, activated: marked.length };
  }

  /**
   * Marks the pool rows at addresses that received the chain's native coin in a block of this pass
   * (the transfer created the account), in the pass's transaction `trx`: every row of the network's
   * project kind at such an address (the same key may be registered in several projects), not only
   * the one the payment matched. No-op on chains without activation. Returns the rows marked.
   */
  async fromTransfers(trx: Knex.Transaction, target: ScanTarget, transfers: readonly ObservedTransfer[]): Promise<number> {
    const { definition } = target.adapter;
    const kind = projectKindOn(definition, target.network);
    if (!definition.capabilities.requiresActivation || !kind) return 0;
    const native = definition.coins.find((coin) => !coin.contracts)?.id;
    const firstFunding = new Map<string, string>();
    for (const transfer of transfers) {
      if (transfer.coin !== native || transfer.amountUnits <= 0n || transfer.blockHeight === null) continue;
      if (!firstFunding.has(transfer.toAddress)) firstFunding.set(transfer.toAddress, transfer.txHash);
    }
    if (firstFunding.size === 0) return 0;
    const rows = await this.deps.addressPoolService.lookupAddresses(definition.id, [...firstFunding.keys()], trx);
    const kinds = await this.deps.tenancyProjects.kinds(
      rows.map((row) => row.projectId),
      trx,
    );
    let marked = 0;
    for (const [address, txid] of firstFunding) {
      const ids = rows.filter((row) => row.address === address && kinds.get(row.projectId) === kind).map((row) => row.id);
      marked += (await this.deps.addressPoolService.markActivated(ids, { by: 'incoming_transfer', txid }, WATCHER_ACTOR, trx)).length;
    }
    return marked;
  }
}

const keyOf = (target: ScanTarget): string => `${target.adapter.definition.id}:${target.network}`;
