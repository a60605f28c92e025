import {
  networkFor,
  type AuthorizationDomain,
  type AuthorizedTransfers,
  type ChainAdapter,
  type ChainRegistry,
  type CoinDefinition,
  type NetworkDefinition,
  type ProjectKind,
} from '@gw/kernel';
import type { ReceivedOutputs } from '@gw/plugin-watchers/contract';
import { getAddress } from 'ethers';
import type { Logger } from 'pino';
import type { X402Config } from '../config.js';
import { eip155, type CaipNetwork } from '../protocol/messages.js';

/** A coin payable with x402 on one network: a token implementing EIP-3009 on a watched EVM network this gateway settles on. */
export interface X402Asset {
  readonly chain: string;
  /** The gateway's network id (`base-sepolia`). */
  readonly network: string;
  /** The protocol's network id (`eip155:84532`). */
  readonly caip: CaipNetwork;
  readonly coin: string;
  readonly decimals: number;
  /** The token contract, checksummed. */
  readonly asset: string;
  /** Its EIP-712 domain as the chain reports it (`extra.name`, `extra.version`). */
  readonly domain: AuthorizationDomain;
  /** The chain's EIP-3009 reads and submission. */
  readonly transfers: AuthorizedTransfers;
}

/** A network of an enabled EVM chain with the coin on it, before the chain is asked anything. */
interface Candidate {
  readonly adapter: ChainAdapter;
  readonly network: NetworkDefinition;
  readonly coin: CoinDefinition;
  readonly contract: string;
}

/**
 * Which coins and networks x402 can be paid in here (issue 41): a coin whose token implements
 * EIP-3009 (read from the chain, `AuthorizedTransfers.domain`) on an EVM network the watchers
 * watch, when settlement is on (`gas_wallet`: the network has a gas wallet; `facilitator`: any).
 * Nothing is kept here: the chain caches the domains it read (immutable facts).
 */
export class X402Networks {
  constructor(private readonly deps: { chains: ChainRegistry; watchersOutputs: ReceivedOutputs; x402Config: X402Config; logger: Logger }) {}

  /** The asset of `coin` on `network`; undefined when x402 cannot be paid in it there. */
  async asset(coin: string, network: string): Promise<X402Asset | undefined> {
    if (this.deps.x402Config.settlement === 'off') return undefined;
    const candidate = this.candidates().find((c) => c.coin.id === coin && c.network.id === network);
    return candidate && this.payable(candidate);
  }

  /**
   * The asset of `coin` on the network a project of `kind` is paid on (its chain's mainnet, or its
   * first testnet); undefined when x402 cannot be paid in it there, for a coin of no enabled chain,
   * and for a sandbox project (its payments are simulated, never settled).
   */
  async assetFor(coin: string, kind: ProjectKind): Promise<X402Asset | undefined> {
    if (kind === 'sandbox' || !(this.deps.chains.coinIds() as readonly string[]).includes(coin)) return undefined;
    return this.asset(coin, networkFor(this.deps.chains.coin(coin).adapter.definition, kind).id);
  }

  /**
   * Whether this gateway settles anything on the CAIP network (a watched EVM network with, in
   * `gas_wallet` mode, a gas wallet), whatever its tokens: `invalid_network` otherwise.
   */
  settles(caip: string): boolean {
    if (this.deps.x402Config.settlement === 'off') return false;
    return this.candidates().some((c) => eip155(c.network.evmChainId!) === caip && this.transfersOf(c) !== undefined);
  }

  /** The gateway's chain and network ids of a CAIP network of an enabled EVM chain; undefined for another. Reads nothing. */
  networkOf(caip: string): { readonly chain: string; readonly network: string } | undefined {
    for (const adapter of this.deps.chains.list()) {
      const { networks, id: chain } = adapter.definition;
      const network = [networks.mainnet, ...networks.testnets].find((n) => n.evmChainId !== undefined && eip155(n.evmChainId) === caip);
      if (network) return { chain, network: network.id };
    }
    return undefined;
  }

  /**
   * Every payable asset now (the facilitator's `/supported`, the operator's status). A network whose
   * node cannot be read now is left out, with a warning in the log.
   */
  async all(): Promise<X402Asset[]> {
    if (this.deps.x402Config.settlement === 'off') return [];
    const found = await Promise.all(
      this.candidates().map(async (candidate) => {
        try {
          return await this.payable(candidate);
        } catch (error) {
          this.deps.logger.warn(
            { err: error, chain: candidate.adapter.definition.id, network: candidate.network.id, coin: candidate.coin.id },
            'x402: the token’s EIP-3009 domain could not be read',
          );
          return undefined;
        }
      }),
    );
    return found.filter((asset): asset is X402Asset => asset !== undefined);
  }

  /** Tokens of enabled EVM chains on their networks, where the settlement mode allows the network. */
  private candidates(): Candidate[] {
    const { settlement, gasWallets } = this.deps.x402Config;
    const out: Candidate[] = [];
    for (const adapter of this.deps.chains.list()) {
      const { networks, coins, id: chain } = adapter.definition;
      for (const network of [networks.mainnet, ...networks.testnets]) {
        if (network.evmChainId === undefined) continue;
        if (settlement === 'gas_wallet' && gasWallets[chain]?.[network.id] === undefined) continue;
        for (const coin of coins) {
          const contract = coin.contracts?.[network.id];
          if (contract) out.push({ adapter, network, coin, contract });
        }
      }
    }
    return out;
  }

  private transfersOf(candidate: Candidate): AuthorizedTransfers | undefined {
    return this.deps.watchersOutputs.accountTreasuryOf(candidate.adapter.definition.id, candidate.network.id)?.authorizedTransfers;
  }

  private async payable(candidate: Candidate): Promise<X402Asset | undefined> {
    const transfers = this.transfersOf(candidate);
    if (!transfers) return undefined;
    const domain = await transfers.domain(candidate.coin.id);
    if (!domain) return undefined;
    return {
      chain: candidate.adapter.definition.id,
      network: candidate.network.id,
      caip: eip155(candidate.network.evmChainId!),
      coin: candidate.coin.id,
      decimals: candidate.coin.decimals,
      asset: getAddress(candidate.contract),
      domain,
      transfers,
    };
  }
}
