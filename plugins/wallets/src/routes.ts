import { defineRoute, type RouteDefinition, withDeps } from '@gw/kernel';
import Type from 'typebox';

/** One entry of the wallets listing: the sandbox listing's fields (spec 4.5) plus verification data. */
export const WalletListEntry = Type.Object({
  chain: Type.String(),
  xpub: Type.String(),
  bound_at_iso: Type.String(),
  verified: Type.Boolean(),
  verification_standard: Type.Union([Type.Literal('bip84'), Type.Literal('bip44'), Type.Literal('cip1852'), Type.Literal('bip44_ed25519')]),
  derivation_path_prefix: Type.String(),
});

/** `GET /api/v1/wallets`: the current wallet bindings of the signed production or testnet project. */
export const walletsRoutes = withDeps(['walletsWallets'], (deps): RouteDefinition[] => {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/v1/wallets',
      summary: 'The wallets bound to the project, one per chain.',
      description:
        'Mirrors GET /api/v1/sandbox/{projectId}/wallets (an array of chain, xpub, bound_at_iso) for production and testnet projects, ' +
        'plus whether the ownership challenge is complete and how addresses are derived.',
      tags: ['wallets'],
      auth: 'signed',
      access: { projectKind: 'production' },
      responses: { 200: Type.Array(WalletListEntry) },
      handler: async ({ auth }) => {
        const wallets = await deps.walletsWallets.list(auth.project!.id);
        return {
          body: wallets.map((w) => ({
            chain: w.chain,
            xpub: w.xpub,
            bound_at_iso: w.bound_at_iso,
            verified: w.state === 'verified',
            verification_standard: w.verification_standard,
            derivation_path_prefix: w.derivation_path_prefix,
          })),
        };
      },
    }),
  ];
});
