/**
 * The contract of the wallets plugin (verified wallets (xpubs and addresses) of a project): the services it registers and
 * what other plugins may import from it (`@gw/plugin-wallets/contract`), nothing else (ADR 0009).
 * Services are exported as types: other plugins receive them from the container, declared
 * with `withDeps`/`service`, and never construct them.
 */
import type { ServiceName } from '@gw/kernel';
import type { WalletsConfig, WalletService } from './services/wallet-service.js';

declare module '@gw/kernel' {
  interface Cradle {
    readonly walletsWallets: WalletService;
    readonly walletsConfig: WalletsConfig;
  }
}

/**
 * The services other plugins may declare (ADR 0009); the plugin's other services are its own and
 * start-up refuses another plugin's declaration of one.
 */
export const WALLETS_EXPORTS: readonly ServiceName[] = ['walletsWallets'];

export { type CurrentBinding, type VerifiedWallet, WALLET_VERIFIED_CHANNEL, type WalletService, type WalletVerifiedNotice } from './services/wallet-service.js';
export { previewWallet } from './services/wallet-preview.js';
export type { RegisterResult, WalletAccountKey, WalletView } from './services/wallet-service.js';
