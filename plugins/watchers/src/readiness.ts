import { networkFor, operatorOf, type ReadinessCheck, withDeps } from '@gw/kernel';
import type { ScanTarget } from './services/chain-scanner.js';
import { projectKindOn } from './services/watched-addresses.js';

/** `btc.bitcoin`. */
const keyOf = (t: ScanTarget) => `${t.adapter.definition.id}.${t.network}`;

/** Independent sources among a network's providers (configured ones without an operator are one: your own). */
const operatorsOf = (t: ScanTarget) => new Set((t.providers?.endpoints ?? []).map(operatorOf)).size;

/**
 * One network as doctor names it: where its providers come from, which they are, how many
 * independent operators run them and the quorum, and whether it waits for its first pool address
 * (a default network is not scanned before).
 */
function describe(t: ScanTarget, scanned: ReadonlySet<string>): string {
  const names = (t.providers?.endpoints ?? []).map((e) => e.name).join(', ');
  const idle = t.idleUntilUsed && !scanned.has(keyOf(t)) ? '; scanned once a pool address waits there' : '';
  return `${keyOf(t)} (${t.origin ?? 'configured'}: ${names}; ${operatorsOf(t)} operator(s), quorum ${t.quorum ?? 1}${idle})`;
}

/**
 * Watchers:
 * - `watchers.providers`: a chain network some project's wallet pays on needs at least one
 *   provider, or no payment on it is ever seen. With no watcher configuration the mainnet and the
 *   test network in use of every enabled chain are watched through the chains' public providers
 *   (issue 40), so this fails only where those are turned off (`publicProviders: false`) or a
 *   network has none (regtest). A watched network no project kind pays on (a test network other
 *   than the one `chains.testNetworks` chose) is a warning: it is scanned for nothing. When all is
 *   well it lists every watched network: origin, providers, operators and quorum.
 * - `watchers.public-providers`: a warning while any network is watched through public providers:
 *   they suit trials and small volumes (shared limits, strangers' infrastructure), and where one
 *   operator runs all of a network's providers, one provider's word decides a payment. The fix is
 *   your own node (docs/watchers.md).
 */
export const watchersReadiness = withDeps(
  ['walletsWallets', 'tenancyProjects', 'chains', 'watchersRegistry', 'watchersConfig', 'watchersStatus'],
  (deps): ReadinessCheck[] => {
    const scannedNetworks = async () =>
      new Set((await deps.watchersStatus.status()).filter((s) => s.last_pass_iso !== null).map((s) => `${s.chain}.${s.network}`));
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
            needed.add(`${binding.chain}.${network}`);
            if (!deps.watchersRegistry.get(binding.chain, network)) {
              const key = `${binding.chain}.${network}`;
              missing.set(key, (missing.get(key) ?? new Set()).add(binding.projectId));
            }
          }
          const publicOff = deps.watchersConfig.publicProviders ? '' : ' (plugins.watchers.publicProviders is false)';
          if (missing.size > 0) {
            const list = [...missing].map(([key, ids]) => `${key} (${ids.size} project(s))`).join(', ');
            return {
              ok: false,
              severity: 'error',
              detail: `no watcher provider for ${list}${publicOff}: payments there are never seen.`,
              fix: `Add providers under plugins.watchers.chains.<chain>.<network>.providers (docs/watchers.md), e.g. plugins.watchers.chains.${[...missing.keys()][0]}${publicOff ? ', or turn plugins.watchers.publicProviders back on' : ''}.`,
            };
          }
          const targets = deps.watchersRegistry.list();
          if (targets.length === 0) {
            return {
              ok: false,
              severity: 'warning',
              detail: `no chain is watched (plugins.watchers.chains is {}${publicOff ? ' and plugins.watchers.publicProviders is false' : ''}): no payment would be seen.`,
              fix: 'Configure providers under plugins.watchers.chains, or turn plugins.watchers.publicProviders back on (docs/watchers.md).',
            };
          }
          // A watched test network that is not the one testnet projects use (config chains.testNetworks)
          // scans blocks for no project: a regtest node watched without choosing regtest, say.
          const idle = targets.filter((t) => projectKindOn(t.adapter.definition, t.network) === undefined);
          if (idle.length > 0) {
            const [first] = idle;
            const chain = first!.adapter.definition.id;
            return {
              ok: false,
              severity: 'warning',
              detail: `${idle.map(keyOf).join(', ')} ${idle.length === 1 ? 'is' : 'are'} watched, but no project pays there: testnet projects of ${chain} use ${networkFor(first!.adapter.definition, 'testnet').id}.`,
              fix: `To take testnet payments on ${chain}.${first!.network}, set chains.testNetworks.${chain} to "${first!.network}" (docs/configuration.md); otherwise remove plugins.watchers.chains.${chain}.${first!.network}.`,
            };
          }
          const scanned = await scannedNetworks();
          return {
            ok: true,
            detail: `watching ${targets.map((t) => describe(t, scanned)).join(', ')}${needed.size > 0 ? `; every network in use (${[...needed].join(', ')}) has a provider` : ''}.`,
          };
        },
      },
      {
        name: 'watchers.public-providers',
        summary: 'No network is watched through public providers, which suit trials and small volumes only.',
        run: async () => {
          const onPublic = deps.watchersRegistry.list().filter((t) => t.origin === 'public' || t.origin === 'joined');
          if (onPublic.length === 0) return { ok: true, detail: 'no network is watched through public providers.' };
          // One operator behind every provider of a network: its word alone decides a payment there.
          const alone = onPublic.filter((t) => (t.quorum ?? 1) < 2);
          const aloneText =
            alone.length === 0
              ? ''
              : ` On ${alone.map((t) => `${keyOf(t)} (${t.providers!.endpoints.map((e) => e.name).join(', ')})`).join(', ')} one operator runs every public provider: its word alone decides a payment (quorum 1).`;
          return {
            ok: false,
            severity: 'warning',
            detail: `${onPublic.length} network(s) are watched through public providers that need no key (${onPublic.map(keyOf).join(', ')}): they suit trials and small volumes. Their limits are shared with everyone (the gateway uses at most ${Math.round(deps.watchersConfig.publicLimitShare * 100)} % of each), and a payment counts toward paid only once the quorum of independent providers report it.${aloneText}`,
            fix: `For production, run your own node and configure it under plugins.watchers.chains.<chain>.<network>.providers (it replaces the public providers; quorum 1), e.g. plugins.watchers.chains.${keyOf(onPublic[0]!)}; see docs/watchers.md, "Your own node".`,
          };
        },
      },
    ];
  },
);
