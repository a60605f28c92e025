import type * as bitcoin from 'bitcoinjs-lib';
import type { NetworkDefinition } from '@gw/chain-api';
import type { Bip84Params } from '../bip84-params.js';

/** What the treasury of one network of a BIP84 chain works with. */
export interface TreasuryNetwork {
  /** The chain id (`btc`, `ltc`): the `chain` of the account keys a plan may name. */
  readonly chain: string;
  readonly params: Bip84Params;
  readonly definition: NetworkDefinition;
  /** bitcoinjs-lib parameters of the network (address encodings, key versions). */
  readonly network: bitcoin.Network;
}
