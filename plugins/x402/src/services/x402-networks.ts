import type { AuthorizationDomain, AuthorizedTransfers, ChainRegistry } from '@gw/kernel';
import type { ReceivedOutputs } from '@gw/plugin-watchers/contract';
import type { X402Config } from '../config.js';
import type { CaipNetwork } from '../protocol/messages.js';

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

/**
 * Which coins and networks x402 can be paid in here (issue 41): a coin whose token implements
 * EIP-3009 (read from the chain, `AuthorizedTransfers.domain`) on an EVM network the watchers
 * watch, when settlement is on (`gas_wallet`: the network has a gas wallet; `facilitator`: any).
 */
export class X402Networks {
  constructor(private readonly deps: { chains: ChainRegistry; watchersOutputs: ReceivedOutputs; x402Config: X402Config }) {}

  /** The asset of `coin` on `network`; undefined when x402 cannot be paid in it there. */
  async asset(coin: string, network: string): Promise<X402Asset | undefined> {
    void coin;
    void network;
    void this.deps;
    throw new Error('X402Networks.asset: not built yet');
  }

  /** The asset a requirement names (its CAIP network and token contract); undefined when none matches. */
  async byRequirement(caip: string, asset: string): Promise<X402Asset | undefined> {
    void caip;
    void asset;
    throw new Error('X402Networks.byRequirement: not built yet');
  }

  /** Every payable asset now (the facilitator's `/supported`, the operator's status). */
  async all(): Promise<X402Asset[]> {
    throw new Error('X402Networks.all: not built yet');
  }
}
