import { type ReadinessCheck, withDeps } from '@gw/kernel';

/**
 * Wallets: a project that takes real payments needs a verified wallet on each chain it invoices;
 * a registered key whose challenge was never signed cannot derive a single address.
 */
export const walletsReadiness = withDeps(['walletsWallets', 'tenancyProjects'], (deps): ReadinessCheck[] => {
  return [
    {
      name: 'wallets.verified',
      summary: 'Every registered wallet of a production or testnet project is verified, and at least one exists.',
      about: 'projects',
      run: async (scope) => {
        const [bindings, projects] = await Promise.all([
          deps.walletsWallets.currentBindings(),
          deps.tenancyProjects.list(scope ? { operator: scope.operatorId } : {}),
        ]);
        const live = new Map(projects.filter((p) => p.status === 'active' && p.kind !== 'sandbox').map((p) => [p.id, p]));
        const real = bindings.filter((b) => live.has(b.projectId));
        const pending = real.filter((b) => b.state !== 'verified');
        if (pending.length > 0) {
          const names = pending.map((b) => `${live.get(b.projectId)!.name} (${b.projectId}) on ${b.chain}`).join(', ');
          return {
            ok: false,
            severity: 'error',
            detail: `${pending.length} wallet(s) registered but not verified: ${names}. Invoices on those chains fail with xpub_not_verified.`,
            fix: 'Sign the challenge with the wallet and run `gateway wallet verify --project <id> --chain <chain> --signature <sig>` (docs/getting-started.md).',
          };
        }
        if (real.length === 0) {
          return {
            ok: false,
            severity: 'error',
            detail: live.size === 0 ? 'no active production or testnet project exists.' : 'no production or testnet project has a wallet: nothing can be paid.',
            fix:
              live.size === 0
                ? 'Create one: `gateway project create --name <name> --kind testnet`.'
                : 'Register an account key: `gateway wallet register --project <id> --chain <chain> --xpub <key>`, then verify it.',
          };
        }
        return { ok: true, detail: `${real.length} wallet(s) of production or testnet projects, all verified.` };
      },
    },
  ];
});
