import type { ChainRegistry, CoinId, ProjectKind } from '@gw/kernel';
import type { InvoiceableCoins } from '@gw/plugin-sessions/contract';
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
 * A store's payment methods: the coins a checkout session of the project offers its payer (the
 * sessions plugin's rule: verified wallets, token contracts, the invoice policy's coins), each with
 * its chain's verified account key.
 */
export class StorePaymentMethods {
  constructor(
    private readonly deps: { chains: ChainRegistry; walletsWallets: Pick<WalletService, 'listVerified'>; sessionsCoins: Pick<InvoiceableCoins, 'of'> },
  ) {}

  async of(project: { readonly id: string; readonly kind: ProjectKind }): Promise<StorePaymentMethod[]> {
    const [wallets, coins] = await Promise.all([this.deps.walletsWallets.listVerified({ projectId: project.id }), this.deps.sessionsCoins.of(project)]);
    const keys = new Map(wallets.map((wallet) => [wallet.chain as string, wallet.key.input]));
    return coins.flatMap((coin) => {
      const accountKey = keys.get(this.deps.chains.coin(coin).adapter.definition.id);
      return accountKey === undefined ? [] : [{ paymentMethodId: paymentMethodIdOf(coin), coin, accountKey }];
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
