import { walletsReadiness } from './readiness.js';
import { WALLETS_EXPORTS } from './contract.js';
import { definePlugin, service, serviceValue, configSlice } from '@gw/kernel';
import Type from 'typebox';
import { m0001Wallets } from '../migrations/0001_wallets.js';
import { m0002BindingOrigin } from '../migrations/0002_binding_origin.js';
import { walletsCommands } from './cli.js';
import { walletsErrors } from './errors.js';
import { walletsRoutes } from './routes.js';
import { WalletService } from './services/wallet-service.js';

/** Config slice `plugins.wallets`. */
export const WalletsConfigSchema = configSlice({
  challengeTtlSeconds: Type.Integer({
    minimum: 60,
    maximum: 604_800,
    default: 86_400,
    description: 'Lifetime of a wallet ownership challenge (default 24 h).',
  }),
});

/**
 * Wallets: one account public key bound per (project, chain), validated by the chain adapter for
 * the project's network kind, proven by a signed ownership challenge (receive index 0 signs a
 * server nonce), and required in verified state before addresses are derived from it.
 */
export const walletsPlugin = definePlugin({
  id: 'wallets',
  dependsOn: ['tenancy'],
  exports: WALLETS_EXPORTS,
  config: WalletsConfigSchema,
  errors: [walletsErrors],
  migrations: [m0001Wallets, m0002BindingOrigin],
  register: ({ config }) => ({
    walletsConfig: serviceValue(config),
    walletsWallets: service(['db', 'audit', 'chains', 'logger', 'notifications', 'tenancyProjects', 'walletsConfig'], (deps) => new WalletService(deps)),
  }),
  routes: walletsRoutes,
  cli: walletsCommands,
  readiness: walletsReadiness,
});

export * from './contract.js';
export { walletsErrors } from './errors.js';
export { WalletService, WALLET_VERIFIED_CHANNEL } from './services/wallet-service.js';
export type { RegisterResult, VerifiedWallet, WalletVerifiedNotice, WalletView, WalletsConfig } from './services/wallet-service.js';
export { previewWallet, PREVIEW_MAX_COUNT, type WalletPreview } from './services/wallet-preview.js';
export { keyFingerprint } from './services/challenge.js';
export { WalletListEntry } from './routes.js';
