import { type ChainRegistry, type CoinId, coreErrors, type ProjectKind, tokenContractFor } from '@gw/kernel';
import type { PolicyService } from '@gw/plugin-invoices/contract';
import type { WalletService } from '@gw/plugin-wallets/contract';
import { sessionsErrors } from '../errors.js';

/**
 * The coins a project can be paid in through a session: every coin of an enabled chain for which
 * the project has a verified wallet, a token only where it has a contract on the project's network,
 * and only the coins the project's invoice policy enables (`enabled_coins`), in the composition's
 * chain and coin order. A coin offered here is one the payer's pick can invoice.
 */
export class InvoiceableCoins {
  constructor(private readonly deps: { chains: ChainRegistry; walletsWallets: WalletService; invoicesPolicies: Pick<PolicyService, 'get'> }) {}

  async of(project: { readonly id: string; readonly kind: ProjectKind }): Promise<CoinId[]> {
    const [wallets, policy] = await Promise.all([this.deps.walletsWallets.listVerified({ projectId: project.id }), this.deps.invoicesPolicies.get(project.id)]);
    const verified = new Set(wallets.map((w) => w.chain));
    const enabled = new Set(policy.enabled_coins);
    return this.deps.chains
      .list()
      .filter((adapter) => verified.has(adapter.definition.id))
      .flatMap((adapter) =>
        adapter.definition.coins
          .filter((coin) => enabled.has(coin.id) && (!coin.contracts || tokenContractFor(adapter.definition, coin, project.kind) !== undefined))
          .map((coin) => coin.id),
      );
  }

  /**
   * The allowed coins of a session or link: `requested` (each once, in the order given) when every
   * one can be invoiced, else 422 `coin_not_allowed` naming the first that cannot; without
   * `requested`, every coin the project can be paid in (422 `coin_not_allowed` when there is none:
   * no verified wallet yet).
   */
  async check(project: { readonly id: string; readonly kind: ProjectKind }, requested: readonly string[] | undefined): Promise<CoinId[]> {
    const invoiceable = await this.of(project);
    if (requested === undefined) {
      if (invoiceable.length === 0) {
        throw sessionsErrors.coin_not_allowed({
          message: 'The project has no coin it can be paid in: verify a wallet of a chain first.',
          details: { field: 'allowed_coins', allowed_coins: [] },
        });
      }
      return invoiceable;
    }
    if (requested.length === 0) throw coreErrors.validation_error({ message: 'allowed_coins names no coin.', details: { field: 'allowed_coins' } });
    const coins = [...new Set(requested)];
    const refused = coins.find((coin) => !invoiceable.includes(coin as CoinId));
    if (refused !== undefined) {
      throw sessionsErrors.coin_not_allowed({
        message: `The project cannot be paid in "${refused}" (an unknown or disabled coin, a chain without a verified wallet, or a token without a contract on its network).`,
        details: { field: 'allowed_coins', coin: refused, invoiceable_coins: invoiceable },
      });
    }
    return coins as CoinId[];
  }
}
