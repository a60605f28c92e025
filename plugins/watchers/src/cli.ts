import {
  CLI_ACTOR,
  coreErrors,
  defineCommand,
  givenFlags,
  PAGE_LIMIT_FLAG,
  ulidFlag,
  type ChainRegistry,
  type CliCommand,
  type CliFlag,
  type CliRunContext,
} from '@gw/kernel';
import { DECISION_REASON_MAX, disagreementView } from './services/disagreement-view.js';
import type { DisagreementStatus } from './services/disagreement-desk.js';
import { providerOverview } from './services/provider-overview.js';

const STATUSES: readonly DisagreementStatus[] = ['open', 'resolved', 'accepted', 'rejected'];

const NETWORK_ID = /^[a-z0-9][a-z0-9_-]{0,39}$/;

const chainFlag = (required: boolean, description: string): CliFlag => ({ type: 'string', required, choices: 'chains', description });
const networkFlag = (required: boolean, description: string): CliFlag => ({
  type: 'string',
  required,
  description,
  validate: (value) => (NETWORK_ID.test(value) ? undefined : 'must be a network id (lower-case letters, digits, - and _; mainnet, sepolia, signet...)'),
});

/**
 * `--chain` and `--network` where given; `--network` refused unless the chain has it, naming the
 * networks it has (the chain is checked by its flag's choices).
 */
function networkFlags(chains: ChainRegistry, flags: CliRunContext['flags']): { chain?: string; network?: string } {
  const given = givenFlags(flags, 'chain', 'network');
  const { chain, network } = given;
  if (chain === undefined || network === undefined) return given;
  const { networks } = chains.get(chain).definition;
  const ids = [networks.mainnet, ...networks.testnets].map((n) => n.id);
  if (!ids.includes(network))
    throw coreErrors.validation_error({ message: `${chain} has no network "${network}"; its networks: ${ids.join(', ')}.`, details: { field: 'network' } });
  return given;
}

/**
 * Operator CLI commands of the watchers plugin (issue 40): the providers each watched network
 * reads and how close they run to their limits, the disagreements between providers, the
 * operator's decision on one, and clearing a provider's mark.
 */
export const watcherCommands: CliCommand[] = [
  defineCommand(['chains', 'watchersRegistry', 'watchersConfig', 'watchersProviderUsage', 'watchersDisagreements', 'watchersStatus'], {
    noun: 'watcher',
    verb: 'providers',
    summary:
      'Per watched chain network: where its providers come from, the quorum, and each provider with its operator, kind, limit, usage (share of its pace, resting) and mark.',
    flags: {
      chain: chainFlag(false, 'Only the networks of this chain.'),
      network: networkFlag(false, 'Only this network (mainnet ids such as ethereum, test networks such as sepolia).'),
    },
    help: [
      'origin: "public" (the chain\'s public providers, no key), "configured" (plugins.watchers.chains.<chain>.<network>.providers), or "joined" (yours first, then the public ones).',
      'idle_until_used: a network watched by default (the config does not name it); idle: not scanned yet, until a pool address waits there (looked at once a minute). Once scanned, a network stays followed.',
      'quorum: how many independent providers (different operators) must report a transfer in the same block at the confirmation threshold before it counts toward paid; 1 trusts the scanning provider.',
      'limit: what the provider documents (public) or the config gives it; paced_at: what the gateway keeps to across every instance (limit x plugins.watchers.publicLimitShare for public providers).',
      'usage: calls (a JSON-RPC batch counts each) in the last minute and today (UTC), share_of_limit of the pace (0..1), resting_until after a 429 or a used-up day. Empty until the provider was first asked.',
      "usage.scope: the limit the calls count against: a public provider's host (or its operator's domain, publicnode.com), shared with the networks in shared_with, whose calls are in the figures too.",
      'mark: a provider caught reporting a transfer the others do not have is passed over and not counted toward a quorum until you clear it with "watcher unmark".',
      'Public providers suit trials and small volumes; run your own node (quorum 1) for production (docs/watchers.md).',
    ].join('\n'),
    run: async ({ flags, deps }) => providerOverview(deps, networkFlags(deps.chains, flags)),
  }),
  defineCommand(['chains', 'watchersDisagreements'], {
    noun: 'watcher',
    verb: 'disagreements',
    summary: 'Disagreements between providers about a transfer (newest first): who reported it, who denied it, and the decision once made.',
    flags: {
      status: { type: 'string', choices: STATUSES, description: 'Only disagreements in this status (default: every status).' },
      chain: chainFlag(false, 'Only disagreements on this chain.'),
      network: networkFlag(false, 'Only disagreements on this network.'),
      limit: PAGE_LIMIT_FLAG,
    },
    help: [
      'open: the invoice waits (it stays confirming; never credited on one provider\'s word). ripe: open and plugins.watchers.disagreementDecisionSeconds have passed, so "watcher decide" may settle it.',
      'resolved: the quorum agreed later by itself. accepted / rejected: the operator decided (decided_by, reason).',
      'reported_by: providers that have the transfer in that block; denied_by: have the block but not the transfer; other_branch: have another block at that height; lagging: not yet deep enough when last asked.',
    ].join('\n'),
    run: async ({ flags, deps }) => {
      const now = new Date();
      const found = await deps.watchersDisagreements.list({
        ...(flags['status'] ? { status: flags['status'] as DisagreementStatus } : {}),
        ...networkFlags(deps.chains, flags),
        limit: flags['limit'] ? Number(flags['limit']) : 50,
      });
      return { disagreements: found.map((d) => disagreementView(d, now)) };
    },
  }),
  defineCommand(['watchersDisagreements'], {
    noun: 'watcher',
    verb: 'decide',
    summary: 'Decide an open disagreement once its waiting time is over: --accept counts the transfer toward paid, --reject drops it.',
    flags: {
      id: ulidFlag('Disagreement', { description: 'The disagreement (ULID), as "watcher disagreements" lists it.' }),
      accept: { type: 'boolean', description: 'Count the transfer as if the quorum had reported it: its invoice goes on (paid at the threshold).' },
      reject: {
        type: 'boolean',
        description: 'Drop the transfer: its invoice no longer counts it, as a transaction that never made it into a block (it waits for money again).',
      },
      reason: {
        type: 'string',
        required: true,
        description: `Why (kept in the audit log and on the disagreement), up to ${DECISION_REASON_MAX} characters.`,
        validate: (value) =>
          value.trim() === ''
            ? 'must say why'
            : value.length > DECISION_REASON_MAX
              ? `must be at most ${DECISION_REASON_MAX} characters`
              : value.includes('\u0000')
                ? 'must not contain the NUL character'
                : undefined,
      },
    },
    help: [
      'Give exactly one of --accept and --reject. Decide only once you checked the transaction yourself (a block explorer you trust, your own node).',
      'Refused while the providers may still agree (disagreement_not_ripe: plugins.watchers.disagreementDecisionSeconds since it opened) and once closed (disagreement_closed).',
      'Audited with actor operator-cli, channel cli.',
      'Example: gateway watcher decide --id <id> --reject --reason "not in any block explorer"',
    ].join('\n'),
    run: async ({ flags, deps }) => {
      const accept = flags['accept'] === true;
      const reject = flags['reject'] === true;
      if (accept === reject)
        throw coreErrors.validation_error({ message: 'Give exactly one of --accept and --reject.', details: { field: accept ? 'reject' : 'accept' } });
      const decided = await deps.watchersDisagreements.decide(
        flags['id'] as string,
        accept ? 'accept' : 'reject',
        CLI_ACTOR,
        (flags['reason'] as string).trim(),
      );
      return { disagreement: disagreementView(decided) };
    },
  }),
  defineCommand(['chains', 'watchersDisagreements'], {
    noun: 'watcher',
    verb: 'unmark',
    summary: "Clear a provider's mark: it is asked again in its turn and its word counts toward the quorum again.",
    flags: {
      chain: chainFlag(true, 'The chain of the marked provider.'),
      network: networkFlag(true, 'The network of the marked provider.'),
      provider: {
        type: 'string',
        required: true,
        description: 'The provider\'s name, as "watcher providers" lists it.',
        validate: (value) =>
          value.length >= 1 && value.length <= 200 && !value.includes('\u0000') ? undefined : 'must be a provider name (1 to 200 characters)',
      },
    },
    help: [
      'A provider is marked when it reported a transfer that no other provider has. Clear the mark once you know why (a bug fixed, a provider you trust again); a provider that lies again is marked again.',
      'Refused when the provider is not marked (provider_not_marked). Audited with actor operator-cli, channel cli.',
    ].join('\n'),
    run: async ({ flags, deps }) => {
      // Both flags are required.
      const { chain, network } = networkFlags(deps.chains, flags) as { chain: string; network: string };
      const provider = flags['provider'] as string;
      await deps.watchersDisagreements.unmark(chain, network, provider, CLI_ACTOR);
      return { unmarked: { chain, network, provider }, marks: (await deps.watchersDisagreements.marks({ chain, network })).map((m) => m.provider) };
    },
  }),
];
