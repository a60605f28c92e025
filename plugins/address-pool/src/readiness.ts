import { type ReadinessCheck, withDeps } from '@gw/kernel';
import type {} from '@gw/plugin-tenancy/contract';
import { activationAdvice, activationCounts } from './activation-summary.js';

/**
 * Address pool: on a chain whose new addresses need activation (TRON), only activated pool addresses
 * are handed out, so a verified wallet whose pool has none refuses every invoice of the chain with
 * 422 `tron_no_activated_addresses_available`; `doctor` said nothing of it (issue 33 finding 9).
 * Sandbox projects are left out: their generated keys are never on chain and need no activation.
 * The watchers mark addresses activated once they exist on chain (issue 36), so the fix is an
 * activation plan or TRX sent to them; `pool activate` stays for a network no watcher follows.
 */
export const addressPoolReadiness = withDeps(['addressPoolStatus', 'chains', 'tenancyProjects'], (deps): ReadinessCheck[] => [
  {
    name: 'address-pool.activation',
    summary:
      'Every verified wallet of a production or testnet project on a chain that needs address activation (TRON) has at least one activated pool address.',
    about: 'projects',
    run: async (scope) => {
      const chains = deps.chains
        .list()
        .filter((c) => c.definition.capabilities.requiresActivation)
        .map((c) => c.definition.id);
      if (chains.length === 0) return { ok: true, detail: 'no enabled chain needs address activation.' };
      const projects = await deps.tenancyProjects.list(scope ? { operator: scope.operatorId } : {});
      const live = new Map(projects.filter((p) => p.status === 'active' && p.kind !== 'sandbox').map((p) => [p.id, p]));
      const pools = (await Promise.all(chains.map((chain) => deps.addressPoolStatus.status({ chain })))).flat().filter((p) => live.has(p.project_id));
      const empty = pools.filter((p) => p.activated === 0);
      if (empty.length > 0) {
        const names = empty.map((p) => `${live.get(p.project_id)!.name} (${p.project_id}) on ${p.chain}: ${activationCounts(p)}`).join('; ');
        const first = empty[0]!;
        return {
          ok: false,
          severity: 'error',
          detail: `${empty.length} pool(s) without an activated address: ${names}. Every invoice on ${[...new Set(empty.map((p) => p.chain))].join(', ')} there is refused with 422 tron_no_activated_addresses_available.`,
          fix: `${activationAdvice(first)} \`gateway pool status --project ${first.project_id} --chain ${first.chain}\` lists them under awaiting_activation; on a network no watcher follows, mark each by hand: \`gateway pool activate --project ${first.project_id} --chain ${first.chain} --address <address>\`.`,
        };
      }
      if (pools.length === 0) return { ok: true, detail: `no verified wallet of a production or testnet project on ${chains.join(', ')}.` };
      const counts = pools.map((p) => `${live.get(p.project_id)!.name} on ${p.chain}: ${activationCounts(p)}`).join('; ');
      return { ok: true, detail: `${pools.length} pool(s) on ${chains.join(', ')}, each with activated addresses (${counts}).` };
    },
  },
]);
