import type { WatchedAddresses } from '../watch/chain-watcher.js';

/**
 * Watched addresses backed by a fixed set, for watcher tests: `filter` keeps the members and
 * records every call in `calls`; `active` gives `active` (default: the set).
 */
export function watchedSet(addresses: readonly string[], active: readonly string[] = addresses): WatchedAddresses & { calls: string[][] } {
  const calls: string[][] = [];
  return {
    calls,
    filter: async (candidates) => {
      calls.push([...candidates]);
      return new Set(candidates.filter((a) => addresses.includes(a)));
    },
    active: async () => [...active],
  };
}
