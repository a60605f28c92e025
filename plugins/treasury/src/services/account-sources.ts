import { networkFor, type AccountSource, type ProjectKind } from '@gw/kernel';
import type { AddressPoolService } from '@gw/plugin-address-pool/contract';
import type { ProjectService } from '@gw/plugin-tenancy/contract';
import type { ReceivedOutputs } from '@gw/plugin-watchers/contract';
import type { WalletService } from '@gw/plugin-wallets/contract';
import type { AccountNetwork } from './account-networks.js';

/** A pool address of an account-chain network, with what derives its key and whose it is. */
export interface PoolSource extends AccountSource {
  readonly projectId: string;
  readonly poolAddressId: string;
}

/**
 * The pool addresses an account plan may move from: every pool address of the network that
 * received a payment (the watchers' receipts, grouped by address), in the caller's projects, with
 * its wallet's account key and receive index (address-pool, wallets; replaced keys too, so their
 * addresses stay spendable). What each holds now is the chain's answer, not the receipts'.
 */
export class AccountSources {
  constructor(
    private readonly deps: {
      addressPoolService: AddressPoolService;
      tenancyProjects: ProjectService;
      walletsWallets: WalletService;
      watchersOutputs: ReceivedOutputs;
    },
  ) {}

  /** The project kinds whose addresses pay on the network (a key registered in a testnet and a production project has rows for both). */
  kindsOn(target: AccountNetwork): ProjectKind[] {
    return (['production', 'testnet', 'sandbox'] as const).filter((kind) => networkFor(target.adapter.definition, kind).id === target.network);
  }

  /** Pool addresses of the network that received anything, at most `limit`, in `reach` (null: all projects). */
  async received(target: AccountNetwork, reach: ReadonlySet<string> | null, options: { projectId?: string; limit: number }): Promise<PoolSource[]> {
    const addresses = new Map<string, string>();
    let after: string | undefined;
    do {
      const page = await this.deps.watchersOutputs.balances({
        groupBy: 'address',
        chain: target.chain,
        network: target.network,
        ...(options.projectId ? { projectId: options.projectId } : reach ? { projectIds: [...reach] } : {}),
        limit: 500,
        ...(after ? { after } : {}),
      });
      for (const row of page.rows) if (row.address && row.projectId) addresses.set(row.address, row.projectId);
      after = page.next ?? undefined;
    } while (after && addresses.size < options.limit);
    return this.resolve(target, [...addresses.keys()].slice(0, options.limit));
  }

  /** The pool addresses named, with their keys; addresses not in the pool, and rows of projects that pay on another network, are left out. */
  async resolve(target: AccountNetwork, addresses: readonly string[]): Promise<PoolSource[]> {
    const found = await this.deps.addressPoolService.lookupAddresses(target.chain, addresses);
    const kinds = await this.deps.tenancyProjects.kinds(found.map((r) => r.projectId));
    const onNetwork = new Set<ProjectKind>(this.kindsOn(target));
    const refs = found.filter((r) => onNetwork.has(kinds.get(r.projectId)!));
    const paths = await this.deps.addressPoolService.spendPaths(refs.map((r) => r.id));
    const keys = await this.deps.walletsWallets.accountKeys([...new Set([...paths.values()].map((p) => p.walletId))]);
    const sources: PoolSource[] = [];
    for (const ref of refs) {
      const path = paths.get(ref.id);
      const wallet = path ? keys.get(path.walletId) : undefined;
      if (!path || !wallet || path.address !== ref.address) continue;
      sources.push({ address: ref.address, key: wallet.key, index: path.index, projectId: ref.projectId, poolAddressId: ref.id });
    }
    return sources;
  }
}
