import { newId, type ChainAdapter } from '@gw/kernel';
import type { VerifiedWallet } from '@gw/plugin-wallets/contract';
import type { PoolAddress } from '../models/pool-address.js';

/**
 * The pool rows of `count` receive addresses of `wallet` from index `from` on, free. A TRON
 * address must be activated on chain before it takes tokens, except a generated sandbox key's,
 * which is never on chain.
 */
export function deriveRows(adapter: ChainAdapter, wallet: VerifiedWallet, from: number, count: number): Partial<PoolAddress>[] {
  const activated = !(adapter.definition.capabilities.requiresActivation && !wallet.generated);
  const rows: Partial<PoolAddress>[] = [];
  for (let index = from; index < from + count; index++) {
    const derived = adapter.deriveAddress(wallet.key, index);
    rows.push({
      id: newId(),
      project_id: wallet.projectId,
      chain: wallet.chain,
      wallet_id: wallet.id,
      derivation_index: derived.index,
      address: derived.address,
      derivation_path: derived.path,
      state: 'available',
      activated,
    });
  }
  return rows;
}
