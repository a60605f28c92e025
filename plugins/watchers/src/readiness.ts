import { networkFor, operatorOf, type ReadinessCheck, withDeps } from '@gw/kernel';
import type { ScanTarget } from './services/chain-scanner.js';
import type { ProviderUsage } from './services/provider-usage.js';
import { projectKindOn } from './services/watched-addresses.js';

/** `btc.bitcoin`. */
const keyOf = (t: ScanTarget) => `${t.adapter.definition.id}.${t.network}`;

/** Independent sources among a network's providers (configured ones without an operator are one: your own). */
const operatorsOf = (t: ScanTarget) => new Set((t.providers?.endpoints ?? []).map(operatorOf)).size;

/**
 * One network as doctor names it: where its providers come from, which they are, how many
 * independent operators run them and the quorum, and `idle` while it waits for its first pool
 * address (a default network is not scanned before).
 */
function describe(t: ScanTarget, scanned: ReadonlySet<string>): string {
  const names = (t.providers?.endpoints ?? []).map((e) => e.name).join(', ');
  const operators = operatorsOf(t);
  const idle = t.idleUntilUsed && !scanned.has(keyOf(t)) ? '; idle' : '';
  return `${keyOf(t)} (${t.origin ?? 'configured'}: ${names}; ${operators} operator${operators === 1 ? '' : 's'}, quorum ${t.quorum ?? 1}${idle})`;
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
 *   they suit trials and small volumes (shared limits, strangers' infrastructure). It names the
 *   networks where one provider's word decides a payment (quorum 1), and why: one operator runs
 *   all of their providers, or the config sets quorum 1 over several. The fix is your own node
 *   (docs/watchers.md).
 * - `watchers.provider-limits`: a warning when a provider runs at 80 % or more of the pace the
 *   gateway allows itself (its limit, times `publicLimitShare` for a public one) or rests after a
 *   429 (`ProviderUsageReads`: every instance's requests).
 * - `watchers.disagreements`: a warning while providers disagree about a transfer (its invoice
 *   waits; the operator decides once it is ripe) or a provider is marked (`DisagreementDesk`). It
 *   is the deployment's, so it counts disagreements and names none (each belongs to one operator's
 *   payment: `gateway watcher disagreements`, or the operator's own on the Watchers page).
 */
export const watchersReadiness = withDeps(
  ['walletsWallets', 'tenancyProjects', 'chains', 'watchersRegistry', 'watchersConfig', 'watchersStatus', 'watchersProviderUsage', 'watchersDisagreements'],
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
          const idleNote = targets.some((t) => t.idleUntilUsed && !scanned.has(keyOf(t))) ? ' (idle: not scanned until a pool address waits there)' : '';
          return {
            ok: true,
            detail: `watching ${targets.map((t) => describe(t, scanned)).join(', ')}${idleNote}${needed.size > 0 ? `; every network in use (${[...needed].join(', ')}) has a provider` : ''}.`,
          };
        },
      },
      {
        name: 'watchers.public-providers',
        summary: 'No network is watched through public providers, which suit trials and small volumes only.',
        run: async () => {
          const onPublic = deps.watchersRegistry.list().filter((t) => t.origin === 'public' || t.origin === 'joined');
          if (onPublic.length === 0) return { ok: true, detail: 'no network is watched through public providers.' };
          // Quorum 1: one provider's word alone decides a payment there. Why differs: one operator
          // runs every provider, or the config set quorum 1 over several operators.
          const alone = onPublic.filter((t) => (t.quorum ?? 1) < 2);
          const oneOperator = alone.filter((t) => operatorsOf(t) < 2);
          const setToOne = alone.filter((t) => operatorsOf(t) >= 2);
          const providersOf = (t: ScanTarget) => `${keyOf(t)} (${t.providers!.endpoints.map((e) => e.name).join(', ')})`;
          const aloneText = [
            oneOperator.length === 0
              ? ''
              : ` On ${oneOperator.map(providersOf).join(', ')} one operator runs every provider: its word alone decides a payment (quorum 1).`,
            setToOne.length === 0
              ? ''
              : ` On ${setToOne.map((t) => `${keyOf(t)} (${operatorsOf(t)} operators)`).join(', ')} the config sets quorum 1 (plugins.watchers.chains.<chain>.<network>.quorum): the scanning provider's word alone decides a payment, although another operator could confirm it.`,
          ].join('');
          return {
            ok: false,
            severity: 'warning',
            detail: `${onPublic.length} network(s) are watched through public providers that need no key (${onPublic.map(keyOf).join(', ')}): they suit trials and small volumes. Their limits are shared with everyone (the gateway uses at most ${Math.round(deps.watchersConfig.publicLimitShare * 100)} % of each), and a payment counts toward paid only once the quorum of independent providers report it.${aloneText}`,
            fix: `For production, run your own node and configure it under plugins.watchers.chains.<chain>.<network>.providers (it replaces the public providers; quorum 1), e.g. plugins.watchers.chains.${keyOf(onPublic[0]!)}; see docs/watchers.md, "Your own node".`,
          };
        },
      },
      {
        name: 'watchers.provider-limits',
        summary: `No provider runs at ${Math.round(BUSY_SHARE * 100)} % or more of the pace the gateway allows itself, or rests after a 429.`,
        run: async () => {
          const watched = new Map(deps.watchersRegistry.list().map((t) => [keyOf(t), t]));
          const usage = (await deps.watchersProviderUsage.list()).filter((u) => watched.has(`${u.chain}.${u.network}`));
          if (usage.length === 0) return { ok: true, detail: 'no provider with a limit has been asked yet.' };
          const now = Date.now();
          const resting = usage.filter((u) => u.restingUntil !== null && u.restingUntil.getTime() > now);
          const busy = usage.filter((u) => u.shareOfLimit >= BUSY_SHARE && !resting.includes(u));
          const percent = (u: ProviderUsage) => `${Math.round(u.shareOfLimit * 100)} %`;
          const name = (u: ProviderUsage) => `${u.provider} on ${u.chain}.${u.network}`;
          const counts = (u: ProviderUsage) => `${u.lastMinute} request(s) in the last minute, ${u.today} today`;
          if (resting.length === 0 && busy.length === 0) {
            const busiest = usage.reduce((a, b) => (b.shareOfLimit > a.shareOfLimit ? b : a));
            return {
              ok: true,
              detail: `${usage.length} provider(s) with a limit asked; the busiest, ${name(busiest)}, at ${percent(busiest)} of its pace (${counts(busiest)}).`,
            };
          }
          const found = [
            ...busy.map((u) => `${name(u)} at ${percent(u)} of its pace (${counts(u)})`),
            ...resting.map((u) => `${name(u)} rests until ${u.restingUntil!.toISOString()} (it answered 429, or its day's requests are used up)`),
          ];
          const isPublic = (u: ProviderUsage) =>
            watched.get(`${u.chain}.${u.network}`)?.providers?.endpoints.find((e) => e.name === u.provider)?.origin === 'public';
          return {
            ok: false,
            severity: 'warning',
            detail: `${found.join('; ')}. Scans slow down to stay within the limits, so payments are seen later.`,
            fix: [...busy, ...resting].some(isPublic)
              ? 'Public providers suit small volumes: configure your own node (or a provider with a key and its own limit) under plugins.watchers.chains.<chain>.<network>.providers (docs/watchers.md, "Your own node"); `gateway watcher providers` shows each provider\'s usage.'
              : "Raise the provider's limit if your plan allows more (plugins.watchers.chains.<chain>.<network>.providers[].limit), or add a provider; `gateway watcher providers` shows each provider's usage.",
          };
        },
      },
      {
        name: 'watchers.disagreements',
        summary: 'No open disagreement between providers and no marked provider.',
        run: async () => {
          const [open, marks] = await Promise.all([deps.watchersDisagreements.list({ status: 'open', limit: SHOWN_OPEN }), deps.watchersDisagreements.marks()]);
          if (open.length === 0 && marks.length === 0) return { ok: true, detail: 'no open disagreement between providers, no marked provider.' };
          const now = Date.now();
          const parts: string[] = [];
          // Counts only: a disagreement names an operator's transaction, address and invoice, and
          // this check is the deployment's (every operator's administrators read it on the
          // dashboard). Marks name shared providers, which the Watchers page shows to everyone.
          if (open.length > 0) {
            const ripe = open.filter((d) => d.decideAfter.getTime() <= now).length;
            parts.push(
              `${open.length}${open.length === SHOWN_OPEN ? '+' : ''} open disagreement(s) between providers, their payments waiting; ${ripe}${ripe === SHOWN_OPEN ? '+' : ''} past their waiting time, awaiting a decision`,
            );
          }
          if (marks.length > 0)
            parts.push(`marked (passed over, not counted toward a quorum): ${marks.map((m) => `${m.provider} on ${m.chain}.${m.network}`).join(', ')}`);
          return {
            ok: false,
            severity: 'warning',
            detail: `${parts.join('. ')}.`,
            fix: 'Check the transaction yourself (your own node, an explorer you trust): `gateway watcher disagreements --status open`, then once ripe `gateway watcher decide --id <id> --accept|--reject --reason "..."`; `gateway watcher unmark --chain <chain> --network <network> --provider <name>` clears a mark (docs/watchers.md, "The quorum").',
          };
        },
      },
    ];
  },
);

/** The share of its pace at which a provider is reported close to its limit. */
const BUSY_SHARE = 0.8;

/** Open disagreements read at most (the count shows `100+` beyond). */
const SHOWN_OPEN = 100;
