import { networkFor, type ReadinessCheck, withDeps } from '@gw/kernel';
import { projectKindOn } from './services/watched-addresses.js';

/**
 * Watchers: a chain network some project's wallet pays on needs at least one provider, or no
 * payment on it is ever seen. By default nothing is watched (`plugins.watchers.chains` is `{}`).
 * A watched network no project kind pays on (a test network other than the one
 * `chains.testNetworks` chose) is a warning: it is scanned for nothing.
 */
export const watchersReadiness = withDeps(['walletsWallets', 'tenancyProjects', 'chains', 'watchersRegistry'], (deps): ReadinessCheck[] => {
  return [
    {
      name: 'watchers.providers',
      summary: 'Every chain network a production or testnet project has a wallet on is watched through a provider.',
      run: async () => {
        const [bindings, projects] = await Promise.all([deps.walletsWallets.currentBindings(), deps.tenancyProjects.list()]);
        const kinds = new Map(projects.filter((p) => p.status === 'active' && p.kind !== 'sandbox').map((p) => [p.id, p.kind]));
        const missing = new Map<string, Set<string>>();
        const needed = new Set<string>();
        for (const binding of bindings) {
          const kind = kinds.get(binding.projectId);
          if (!kind) continue;
          const network = networkFor(deps.chains.get(binding.chain).definition, kind).id;
          needed.add(`${binding.chain}/${network}`);
          if (!deps.watchersRegistry.get(binding.chain, network)) {
            const key = `${binding.chain}.${network}`;
            missing.set(key, (missing.get(key) ?? new Set()).add(binding.projectId));
          }
        }
        if (missing.size > 0) {
          const list = [...missing].map(([key, ids]) => `${key} (${ids.size} project(s))`).join(', ');
          return {
            ok: false,
            severity: 'error',
            detail: `no watcher provider for ${list}: payments there are never seen.`,
            fix: `Add providers under plugins.watchers.chains.<chain>.<network>.providers (docs/watchers.md), e.g. plugins.watchers.chains.${[...missing.keys()][0]}.`,
          };
        }
        const watched = deps.watchersRegistry.list().map((t) => `${t.adapter.definition.id}.${t.network}`);
        if (watched.length === 0) {
          return {
            ok: false,
            severity: 'warning',
            detail: 'no chain is watched (plugins.watchers.chains is {}): no payment would be seen.',
            fix: 'Configure providers under plugins.watchers.chains (docs/watchers.md).',
          };
        }
        // A watched test network that is not the one testnet projects use (config chains.testNetworks)
        // scans blocks for no project: a regtest node watched without choosing regtest, say.
        const idle = deps.watchersRegistry.list().filter((t) => projectKindOn(t.adapter.definition, t.network) === undefined);
        if (idle.length > 0) {
          const [first] = idle;
          const chain = first!.adapter.definition.id;
          return {
            ok: false,
            severity: 'warning',
            detail: `${idle.map((t) => `${t.adapter.definition.id}.${t.network}`).join(', ')} ${idle.length === 1 ? 'is' : 'are'} watched, but no project pays there: testnet projects of ${chain} use ${networkFor(first!.adapter.definition, 'testnet').id}.`,
            fix: `To take testnet payments on ${chain}.${first!.network}, set chains.testNetworks.${chain} to "${first!.network}" (docs/configuration.md); otherwise remove plugins.watchers.chains.${chain}.${first!.network}.`,
          };
        }
        return {
          ok: true,
          detail: `watching ${watched.join(', ')}${needed.size > 0 ? `; every network in use (${[...needed].join(', ')}) has a provider` : ''}.`,
        };
      },
    },
  ];
});
