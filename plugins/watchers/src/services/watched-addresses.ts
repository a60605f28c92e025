import { networkFor, usesPaymentReferences, WatcherLocalError, type ChainDefinition, type ProjectKind, type WatchedAddresses } from '@gw/kernel';
import type { AddressPoolService, PoolAddressRef } from '@gw/plugin-address-pool/contract';
import type { InvoiceLifecycle } from '@gw/plugin-invoices/contract';
import type { ProjectService } from '@gw/plugin-tenancy/contract';
import type { Knex } from 'knex';

/** A pool address found by the filter, with the kind of its project. */
export interface WatchedAddress extends PoolAddressRef {
  readonly projectKind: ProjectKind;
}

/** The project kind whose invoices pay on `networkId`: production on mainnet, testnet on the first testnet; none elsewhere. */
export function projectKindOn(definition: ChainDefinition, networkId: string): ProjectKind | undefined {
  if (networkFor(definition, 'production').id === networkId) return 'production';
  if (networkFor(definition, 'testnet').id === networkId) return 'testnet';
  return undefined;
}

/**
 * Which pool row owns a receipt when several projects' pools hold the address (the same extended
 * key registered in several projects): the one allocated to an invoice, else the one in cooldown
 * after an invoice (a late payment), else a spare one.
 */
const OWNER_RANK: Record<PoolAddressRef['state'], number> = { allocated: 0, cooldown: 1, available: 2 };

/**
 * The pool addresses one network watches: those of projects whose kind pays on it (sandbox
 * projects never touch a chain). The same EVM address may belong to projects of both kinds; only
 * the network's kind counts. `lookup` keeps the rows of the last `filter` for the matcher.
 */
export class PoolWatchedAddresses implements WatchedAddresses {
  private readonly kind: ProjectKind | undefined;
  /** What `filter` looked up and found since `forget`: a pass's block recipients, read once. */
  private last: { readonly asked: Set<string>; readonly found: Map<string, WatchedAddress> } | undefined;
  constructor(
    private readonly deps: {
      addressPoolService: AddressPoolService;
      tenancyProjects: ProjectService;
      db: Knex;
      /** Where the payment references come from (chains with payment references; absent: registries built by hand in unit tests). */
      invoicesLifecycle?: Pick<InvoiceLifecycle, 'watchedReferences'>;
    },
    private readonly definition: ChainDefinition,
    networkId: string,
  ) {
    this.kind = projectKindOn(definition, networkId);
  }

  /**
   * Pool rows at `addresses` of the network's project kind, keyed by address (one owner each:
   * `OWNER_RANK`). Addresses `filter` already looked up in this pass are answered from it, so a
   * block's recipients are looked up once per pass, not once by the scan and again by the matcher.
   */
  async lookup(addresses: readonly string[], db: Knex | Knex.Transaction = this.deps.db): Promise<Map<string, WatchedAddress>> {
    if (!this.kind || addresses.length === 0) return new Map();
    const last = this.last;
    if (last && addresses.every((a) => last.asked.has(a))) {
      return new Map(addresses.flatMap((a) => (last.found.has(a) ? [[a, last.found.get(a)!] as const] : [])));
    }
    return this.read(addresses, db);
  }

  /** Drops what `filter` remembered (the scanner calls it at the start and end of each pass). */
  forget(): void {
    this.last = undefined;
  }

  private async read(addresses: readonly string[], db: Knex | Knex.Transaction): Promise<Map<string, WatchedAddress>> {
    if (!this.kind || addresses.length === 0) return new Map();
    const rows = await this.deps.addressPoolService.lookupAddresses(this.definition.id, addresses, db);
    const kinds = await this.deps.tenancyProjects.kinds(
      rows.map((r) => r.projectId),
      db,
    );
    const found = new Map<string, WatchedAddress>();
    // Ids are ULIDs: in creation order, so among equals the oldest pool row wins.
    for (const row of [...rows].sort((a, b) => (a.id < b.id ? -1 : 1))) {
      const projectKind = kinds.get(row.projectId);
      if (projectKind !== this.kind) continue;
      const held = found.get(row.address);
      if (!held || OWNER_RANK[row.state] < OWNER_RANK[held.state]) found.set(row.address, { ...row, projectKind });
    }
    return found;
  }

  async filter(addresses: readonly string[]): Promise<Set<string>> {
    return ours(async () => {
      const found = await this.read(addresses, this.deps.db);
      const last = (this.last ??= { asked: new Set(), found: new Map() });
      for (const a of addresses) last.asked.add(a);
      for (const [a, row] of found) last.found.set(a, row);
      return new Set(found.keys());
    });
  }

  async active(): Promise<string[]> {
    return ours(() => this.expecting(() => true));
  }

  /**
   * Chains with payment references (issue 43): the references of the invoices of the network's
   * projects (those whose recipient the pool holds) that a payment may still come for: waiting, or
   * ended less than the pool's cooldown ago, as a released address is watched through its cooldown.
   */
  async references(): Promise<string[]> {
    return ours(async () => {
      if (!this.kind || !usesPaymentReferences(this.definition) || !this.deps.invoicesLifecycle) return [];
      const rows = await this.deps.addressPoolService.expectingAddresses(this.definition.id);
      const kinds = await this.deps.tenancyProjects.kinds(rows.map((r) => r.projectId));
      const projects = [...new Set(rows.filter((r) => kinds.get(r.projectId) === this.kind).map((r) => r.projectId))];
      return this.deps.invoicesLifecycle.watchedReferences(this.definition.id, projects, this.deps.addressPoolService.cooldownSeconds);
    });
  }

  /** The pool addresses allocated to an invoice that waits (`active` without those in cooldown after one). */
  async awaiting(): Promise<string[]> {
    return ours(() => this.expecting((row) => row.state === 'allocated'));
  }

  private async expecting(keep: (row: PoolAddressRef) => boolean): Promise<string[]> {
    if (!this.kind) return [];
    const rows = await this.deps.addressPoolService.expectingAddresses(this.definition.id);
    const kinds = await this.deps.tenancyProjects.kinds(rows.map((r) => r.projectId));
    return [...new Set(rows.filter((r) => kinds.get(r.projectId) === this.kind && keep(r)).map((r) => r.address))];
  }
}

/** Runs a lookup of ours inside a provider call: a database failure fails the pass without blaming (or leaving) the provider. */
async function ours<T>(lookup: () => Promise<T>): Promise<T> {
  try {
    return await lookup();
  } catch (error) {
    throw new WatcherLocalError(`watched-address lookup failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}
