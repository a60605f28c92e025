import { type ChainRegistry, type CoinId, type ProjectKind, tokenContractFor } from '@gw/kernel';
import type { WalletService } from '@gw/plugin-wallets/contract';
import { coinOfPaymentMethodId, paymentMethodIdOf } from './payment-method-ids.js';

/** One payment method of a store: a coin the project can be paid in. */
export interface StorePaymentMethod {
  /** BTCPay's id (`BTC-CHAIN`, `USDT_TRC20-CHAIN`; see `paymentMethodIdOf`). */
  readonly paymentMethodId: string;
  readonly coin: CoinId;
  /** The verified account key of the coin's chain, BTCPay's on-chain `derivationScheme`. */
  readonly accountKey: string;
}

/**
 * A store's payment methods: every coin of an enabled chain on which the project has a verified
 * wallet, a token only where it has a contract on the project's network, in the composition's
 * chain and coin order (the coins a checkout session of the project can offer its payer).
 */
export class StorePaymentMethods {
  constructor(private readonly deps: { chains: ChainRegistry; walletsWallets: Pick<WalletService, 'listVerified'> }) {}

  async of(project: { readonly id: string; readonly kind: ProjectKind }): Promise<StorePaymentMethod[]> {
    const keys = new Map((await this.deps.walletsWallets.listVerified({ projectId: project.id })).map((wallet) => [wallet.chain as string, wallet.key.input]));
    return this.deps.chains.list().flatMap((adapter) => {
      const accountKey = keys.get(adapter.definition.id);
      if (accountKey === undefined) return [];
      return adapter.definition.coins
        .filter((coin) => !coin.contracts || tokenContractFor(adapter.definition, coin, project.kind) !== undefined)
        .map((coin) => ({ paymentMethodId: paymentMethodIdOf(coin.id), coin: coin.id, accountKey }));
    });
  }

  /** Every payment method id this gateway can serve: each coin of each enabled chain. */
  supported(): string[] {
    return this.deps.chains.coinIds().map((coin) => paymentMethodIdOf(coin));
  }

  /** The coin a payment method id names among the enabled chains' coins (see `coinOfPaymentMethodId`). */
  coinOf(paymentMethodId: string): CoinId | undefined {
    const coins: ReadonlySet<string> = new Set(this.deps.chains.coinIds());
    return coinOfPaymentMethodId(paymentMethodId, (coin) => coins.has(coin));
  }
}
