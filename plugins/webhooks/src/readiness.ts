import { type ReadinessCheck, withDeps } from '@gw/kernel';

/** Webhooks: a production or testnet project without a webhook URL tells nobody its invoice was paid. */
export const webhooksReadiness = withDeps(['tenancyProjects'], (deps): ReadinessCheck[] => {
  return [
    {
      name: 'webhooks.url',
      summary: 'Every active production or testnet project has a webhook URL.',
      about: 'projects',
      run: async (scope) => {
        const projects = (await deps.tenancyProjects.list(scope ? { operator: scope.operatorId } : {})).filter(
          (p) => p.status === 'active' && p.kind !== 'sandbox',
        );
        const without = projects.filter((p) => !p.webhook_url);
        if (without.length === 0)
          return {
            ok: true,
            detail:
              projects.length === 0 ? 'no production or testnet project yet.' : `all ${projects.length} production or testnet project(s) have a webhook URL.`,
          };
        return {
          ok: false,
          severity: 'warning',
          detail: `${without.length} project(s) without a webhook URL: ${without.map((p) => `${p.name} (${p.id})`).join(', ')}. Their invoices notify nobody unless created with a callback_url.`,
          fix: 'Set one: `gateway webhook set --project <id> --url https://...`.',
        };
      },
    },
  ];
});
